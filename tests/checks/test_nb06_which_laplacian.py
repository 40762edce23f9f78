"""Notebook 06's checkers: each wrong answer gets its own explanation, the worked answer passes."""
import pytest
import torch

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb06_which_laplacian as checks

pytestmark = pytest.mark.usefixtures("one_torch_thread")


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


def _row_sums(u, points):
    """grad of the whole (N, 3) gradient with grad_outputs=ones sums the Hessian's rows."""
    first, = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)
    second, = torch.autograd.grad(first, points, torch.ones_like(first), create_graph=True)
    return second[:, 0] + second[:, 1]


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_laplacian", "ROW SUMS", lambda m: m.check_laplacian(_row_sums)),
    ("check_chunk_size", "over the budget", lambda m: m.check_chunk_size(lambda model, points, budget: 256)),
]
