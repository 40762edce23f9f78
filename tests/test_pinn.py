"""course_utils.problems.pinn: the heat problem, the popular fixes fail as the notebook says, the fixed loop is flat,
training works."""
import gc
import math

import pytest
import torch

import course_utils as cu
from course_utils import laplacians, pinn

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


def test_checkpointed_loss_is_the_whole_loss_with_the_unchunked_gradient():
    model = pinn.HeatPINN(width=16, depth=2)
    points = pinn.sample_points(200)
    full_loss = pinn.residual_loss(model, points)
    full_loss.sqrt().backward()            # a loss that is not a sum over chunks: one backward is all it allows
    full = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    loss = pinn.checkpointed_loss(model, points, chunk_size=64)       # 4 chunks, the last one short
    assert loss.item() == pytest.approx(full_loss.item(), rel=1e-5)
    loss.sqrt().backward()
    for a, b in zip(full, (p.grad for p in model.parameters())):
        assert (a - b).abs().max() <= 1e-6


def test_no_grad_does_not_stop_autograd_grad_from_recording():
    model = pinn.HeatPINN(width=8, depth=2)
    _, u_t, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=False)
    assert u_t.grad_fn is not None and residual.grad_fn is not None


def test_the_detach_fix_sends_no_gradient_to_the_network():
    model = pinn.HeatPINN(width=8, depth=2)
    _, _, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=True)
    residual.pow(2).mean().backward()
    assert all(p.grad is None for p in model.parameters())
    # without the detach, and with the second derivatives' graphs, the same residual trains every parameter
    _, _, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=False, second_create_graph=True)
    residual.pow(2).mean().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_retain_graph_false_on_the_last_derivative_breaks_the_later_backward():
    model = pinn.HeatPINN(width=8, depth=2)
    _, _, residual = pinn.usual_pattern(model, pinn.sample_points(16), detach=False, last_retain_graph=False)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        residual.pow(2).mean().backward()


def pattern_trace(**options):
    model = pinn.HeatPINN(width=16, depth=2)
    trace = cu.Trace()
    with cu.LiveTensors() as live:
        mark = lambda label: trace.record(len(trace), label, live=live.bytes)
        pinn.usual_pattern(model, pinn.sample_points(256), mark=mark, **options)
    return dict(zip(trace.labels, trace.values["live"]))


def test_the_detach_makes_memory_fall_and_gc_collect_frees_nothing():
    options = dict(second_create_graph=True)
    detached, correct = pattern_trace(detach=True, **options), pattern_trace(detach=False, **options)
    after_del = "del u_x, u_y, u_xx, u_yy"
    assert detached["u_yy = grad(u_y, y, retain_graph=True)"] == correct["u_yy = grad(u_y, y, retain_graph=True)"]
    assert detached[after_del] < correct[after_del] / 5, "detaching lets the derivative graphs go at the del"
    for live_at in (detached, correct):
        assert live_at["gc.collect()"] == live_at[after_del] == live_at["torch.cuda.empty_cache()"]


def test_the_posted_second_derivatives_record_no_graph_and_train_on_u_t_alone():
    model = pinn.HeatPINN(width=8, depth=2)
    points = pinn.sample_points(16)
    saved = []
    with cu.GraphMemory() as graph:
        pinn.usual_pattern(model, points, detach=False, mark=lambda label: saved.append((label, graph.bytes)))
    saved = dict(saved)
    assert saved["u_y = grad(u, y)"] == saved["u_xx = grad(u_x, x)"] == saved["u_yy = grad(u_y, y, retain_graph=True)"], (
        "as posted, the second derivatives record nothing")
    _, u_t, residual = pinn.usual_pattern(model, points, detach=False)
    (laplacian_gradient,) = torch.autograd.grad(residual.sum(), u_t, retain_graph=True)
    assert torch.equal(laplacian_gradient, torch.ones_like(u_t)), "the residual reaches the network through u_t alone"
    posted_grads = torch.autograd.grad(residual.pow(2).mean(), list(model.parameters()))
    _, _, correct = pinn.usual_pattern(model, points, detach=False, second_create_graph=True)
    correct_grads = torch.autograd.grad(correct.pow(2).mean(), list(model.parameters()))
    assert torch.allclose(residual, correct), "the same residual values"
    assert not all(torch.allclose(a, b) for a, b in zip(posted_grads, correct_grads)), "but not the loss's gradient"


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
