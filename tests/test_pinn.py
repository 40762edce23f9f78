"""course_utils.pinn: the heat problem, the popular fixes fail as the notebook says, the fixed loop is flat, training works."""
import gc
import math

import pytest
import torch

import course_utils as cu
from course_utils import laplacians, pinn
from course_utils.checks import ExerciseFailed
from course_utils.checks import pinn as checks

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_heat_pinn_forward_laplacian_includes_the_ansatz():
    model = pinn.HeatPINN(width=12, depth=2).double()
    points = pinn.sample_points(32, dtype=torch.float64)
    for method in (m for name, m in laplacians.METHODS.items() if "Hutchinson" not in name):
        torch.testing.assert_close(method(model, points, pinn.SPACE)[2],
                                   laplacians.laplacian_nested(model, points, pinn.SPACE)[2], rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="space only"):
        laplacians.laplacian_forward(model, points, (0, 1, 2))


def test_every_method_sends_gradient_to_every_parameter():
    for method in laplacians.METHODS.values():
        model = pinn.HeatPINN(width=8, depth=2)
        pinn.residual_loss(model, pinn.sample_points(16), method=method).backward()
        assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters()), method.__name__


def test_heat_pinn_meets_boundary_and_initial_conditions_exactly():
    model = pinn.HeatPINN(width=8, depth=2).double()
    edge = torch.tensor([[0.0, 0.3, 0.5], [1.0, 0.7, 0.2], [0.4, 0.0, 0.9], [0.6, 1.0, 0.1]], dtype=torch.float64)
    assert model(edge).abs().max() < 1e-15
    start = pinn.sample_points(20, dtype=torch.float64)
    start[:, 2] = 0
    torch.testing.assert_close(model(start)[:, 0], pinn.exact_solution(start), rtol=0, atol=1e-15)


class ExactSolution(torch.nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, points):
        return pinn.exact_solution(points, self.alpha).unsqueeze(1)


def test_the_exact_solution_satisfies_the_heat_equation():
    points = pinn.sample_points(200, dtype=torch.float64)
    residual = pinn.heat_residual(ExactSolution(pinn.ALPHA), points)
    assert residual.abs().max() < 1e-12
    # the residual is not blind: the same formula with the wrong decay rate is off by a lot
    wrong = pinn.heat_residual(ExactSolution(2 * pinn.ALPHA), points)
    assert wrong.abs().max() > 0.1
    # and the exact values: the decay exp(-2 pi^2 alpha t) at the centre
    centre = torch.tensor([[0.5, 0.5, 1.0]], dtype=torch.float64)
    assert pinn.exact_solution(centre).item() == pytest.approx(math.exp(-2 * math.pi ** 2 * pinn.ALPHA))


def test_chunked_gradient_accumulation_equals_the_unchunked_step():
    model = pinn.HeatPINN(width=32, depth=3)
    points = pinn.sample_points(1000)
    full_loss = pinn.residual_loss(model, points)
    full_loss.backward()
    full = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    chunked_loss = pinn.chunked_backward(model, points, chunk_size=128)  # 8 chunks, the last one short
    for a, b in zip(full, (p.grad for p in model.parameters())):
        assert (a - b).abs().max() <= 1e-6
    assert chunked_loss == pytest.approx(full_loss.item(), rel=1e-5)


def test_no_grad_does_not_stop_autograd_grad_from_recording():
    model = pinn.HeatPINN(width=8, depth=2)
    _, u_t, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=False)
    assert u_t.grad_fn is not None and residual.grad_fn is not None


def test_the_detach_fix_sends_no_gradient_to_the_network():
    model = pinn.HeatPINN(width=8, depth=2)
    _, _, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=True)
    residual.pow(2).mean().backward()
    assert all(p.grad is None for p in model.parameters())
    # without the detach the same residual trains every parameter
    _, _, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=False)
    residual.pow(2).mean().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_retain_graph_false_on_the_last_derivative_breaks_the_later_backward():
    model = pinn.HeatPINN(width=8, depth=2)
    _, _, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=False, last_retain_graph=False)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        residual.pow(2).mean().backward()


def pattern_trace(detach):
    model = pinn.HeatPINN(width=16, depth=2)
    trace = cu.Trace()
    with cu.LiveTensors() as live:
        mark = lambda label: trace.record(len(trace), label, live=live.bytes)
        pinn.usual_pattern(model, pinn.sample_points(256), detach=detach, mark=mark)
    return dict(zip(trace.labels, trace.values["live"]))


def test_the_detach_makes_memory_fall_and_gc_collect_frees_nothing():
    detached, correct = pattern_trace(detach=True), pattern_trace(detach=False)
    after_del = "del u_x, u_y, u_xx, u_yy"
    assert detached["u_yy = grad(u_y, y, retain_graph=True)"] == correct["u_yy = grad(u_y, y, retain_graph=True)"]
    assert detached[after_del] < correct[after_del] / 5, "detaching lets the derivative graphs go at the del"
    for live_at in (detached, correct):
        assert live_at["gc.collect()"] == live_at[after_del] == live_at["torch.cuda.empty_cache()"]


def fixed_loop_trace(steps, n=128):
    model = pinn.HeatPINN(width=16, depth=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    trace = cu.Trace("fixed")
    losses = []
    with cu.LiveTensors() as live:
        for step in range(steps):
            losses.append(pinn.train_step(model, optimizer, pinn.sample_points(n, seed=step)))
            trace.record(step, live=live.bytes)
    return trace, losses


def test_the_fixed_loop_stays_flat_to_the_byte():
    trace, losses = fixed_loop_trace(30)
    trace.assert_flat("live")
    assert trace.growth_per_step("live") == 0
    assert losses[-1] < losses[0]


def test_a_loss_history_of_tensors_grows_by_the_points_and_their_grad():
    """With nested autograd the points are a leaf that requires grad: backward() fills points.grad, and
    every kept loss keeps its graph's leaf, the points (3 floats each) and their .grad (3 more), alive."""
    n = 128
    model = pinn.HeatPINN(width=16, depth=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    history, trace = [], cu.Trace("history")
    with cu.LiveTensors() as live:
        for step in range(6):
            optimizer.zero_grad(set_to_none=True)
            loss = pinn.residual_loss(model, pinn.sample_points(n, seed=step), method=laplacians.laplacian_nested)
            loss.backward()
            optimizer.step()
            history.append(loss)
            del loss
            trace.record(step, live=live.bytes)
    assert trace.growth_per_step("live", skip=1) == 4 + n * 3 * 4 * 2


def test_training_reaches_five_percent():
    torch.manual_seed(0)
    model = pinn.HeatPINN(width=16, depth=2)
    grid = pinn.grid_points(11, 4)
    before = pinn.relative_l2_error(model, grid)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(60):
        pinn.train_step(model, optimizer, pinn.sample_points(256, seed=step))
    gc.collect()
    assert before > 0.05 and pinn.relative_l2_error(model, grid) <= 0.05



# --- the notebook's exercise checkers reject the classic mistakes with the right explanation ---------

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

