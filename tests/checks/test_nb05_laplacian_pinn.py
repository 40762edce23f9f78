"""The checkers of notebook 05 (course_utils.checks.nb05_laplacian_pinn) reject the classic mistakes with the
right explanation and pass the fixes."""
import pytest
import torch

from course_utils import pinn
from course_utils.checks import ExerciseFailed
from course_utils.checks import nb05_laplacian_pinn as checks

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _loop(keep_tensor=False, picture_with_graph=False):
    def loop(model, optimizer, steps, grid):
        losses, snapshots = [], []
        for step in range(steps):
            optimizer.zero_grad()
            loss = pinn.residual_loss(model, pinn.sample_points(64, seed=step))
            loss.backward()
            optimizer.step()
            losses.append(loss if keep_tensor else loss.item())
            if step % checks.SNAPSHOT_EVERY == 0:
                if picture_with_graph:
                    snapshots.append(model(grid))
                else:
                    with torch.no_grad():
                        snapshots.append(model(grid))
        return losses, snapshots
    return loop


def test_leak_checker_names_each_leak_and_passes_the_fix():
    with pytest.raises(ExerciseFailed, match="loss.item"):
        checks.check_fixed_loop(_loop(keep_tensor=True))
    with pytest.raises(ExerciseFailed, match="no_grad"):
        checks.check_fixed_loop(_loop(picture_with_graph=True))
    assert checks.check_fixed_loop(_loop()).passed


def _nested(u, points, dims=(0, 1), create_graph=True):
    first, = torch.autograd.grad(u.sum(), points, create_graph=True)
    return sum(torch.autograd.grad(first[:, k].sum(), points, create_graph=create_graph, retain_graph=True)[0][:, k]
               for k in dims)


def test_laplacian_checker_catches_row_sums_time_and_a_missing_graph():
    def row_sums(u, points):
        first, = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)
        return torch.autograd.grad(first, points, torch.ones_like(first), create_graph=True)[0][:, :2].sum(1)

    with pytest.raises(ExerciseFailed, match="ROW SUMS"):
        checks.check_laplacian(row_sums)
    with pytest.raises(ExerciseFailed, match="u_tt"):
        checks.check_laplacian(lambda u, points: _nested(u, points, dims=(0, 1, 2)))
    with pytest.raises(ExerciseFailed, match="create_graph=True"):
        checks.check_laplacian(lambda u, points: _nested(u, points, create_graph=False))
    assert checks.check_laplacian(_nested).passed


def test_chunk_checker_wants_the_largest_chunk_that_fits():
    sizes = checks.CHUNK_CANDIDATES
    with pytest.raises(ExerciseFailed, match="over the budget"):
        checks.check_chunk_size(lambda model, points, budget: sizes[-1])
    with pytest.raises(ExerciseFailed, match="also fit"):
        checks.check_chunk_size(lambda model, points, budget: sizes[1])
    assert checks.check_chunk_size(lambda model, points, budget: 128).passed
