"""course_utils.problems.ode: Euler's order, and the exact graph bytes of each way to backpropagate through steps."""
import pytest
import torch

import course_utils as cu
from autograd_memory.measuring.trace import convergence_order
from course_utils.problems.ode import (
    VectorField,
    checkpointed_gradient,
    euler,
    full_backprop_gradient,
    harmonic_oscillator,
    harmonic_solution,
    make_problem,
    step_bytes,
    step_loss,
    truncated_gradient,
    window_tradeoff,
)

BATCH, WIDTH, DT = 16, 32, 0.05


def test_euler_global_error_is_first_order():
    x0, t_end = torch.tensor([1.0, 0.0], dtype=torch.float64), 2.0
    steps, errors = [], []
    for n in (20, 40, 80, 160):
        final = euler(harmonic_oscillator, x0, t_end / n, n)[-1]
        steps.append(t_end / n)
        errors.append((final - harmonic_solution(x0, t_end)).norm().item())
    assert 0.95 < convergence_order(steps, errors) < 1.05


def test_full_backprop_graph_grows_by_step_bytes_exactly():
    field, (x0, _) = VectorField(WIDTH), make_problem(BATCH, 1)
    growth = []
    with cu.GraphMemory() as graph:
        x = x0
        for _ in range(10):
            x = x + DT * field(x)
            growth.append(graph.by_kind["activations"])
    steps = [b - a for a, b in zip(growth, growth[1:])]
    assert steps == [step_bytes(BATCH, WIDTH)] * 9 == [4 * BATCH * (WIDTH + 2)] * 9


def test_detach_keeps_the_graph_flat():
    field, (x0, targets) = VectorField(WIDTH), make_problem(BATCH, 20)
    trace = cu.Trace("detached")
    with cu.GraphMemory() as graph:
        x = x0
        for step, target in enumerate(targets):
            x = x.detach()
            x = x + DT * field(x)
            loss = step_loss(x, target)
            trace.record(step, saved=graph.bytes)
            loss.backward()
    trace.assert_flat("saved")
    assert trace.values["saved"][0] > 0


def test_backward_every_step_without_detach_raises_at_the_second_step():
    field, (x0, targets) = VectorField(WIDTH), make_problem(BATCH, 5)
    x, reached = x0, []
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        for step, target in enumerate(targets):
            x = x + DT * field(x)
            step_loss(x, target).backward()
            reached.append(step)
    assert reached == [0]


def test_retain_graph_grows_by_step_bytes_every_step():
    field, (x0, targets) = VectorField(WIDTH), make_problem(BATCH, 12)
    trace = cu.Trace("retained")
    with cu.GraphMemory() as graph:
        x = x0
        for step, target in enumerate(targets):
            x = x + DT * field(x)
            loss = step_loss(x, target)
            loss.backward(retain_graph=True)
            trace.record(step, saved=graph.bytes)
    saved = trace.values["saved"]
    # from the third step on, each step adds its state and tanh output; the previous loss's graph is dropped
    assert [b - a for a, b in zip(saved[1:], saved[2:])] == [step_bytes(BATCH, WIDTH)] * (len(saved) - 2)


def test_truncated_window_memory_is_linear_and_full_window_is_exact():
    field, (x0, targets) = VectorField(WIDTH), make_problem(BATCH, 24)
    table = window_tradeoff(field, x0, targets, DT, windows=[2, 3, 6, 12, 24])
    per_step = step_bytes(BATCH, WIDTH) + 4 * BATCH * 2  # plus what each step's loss saves (x - target)
    base = table[2][0] - 2 * per_step
    assert all(peak == base + k * per_step for k, (peak, _) in table.items())
    assert table[24][1] == pytest.approx(1.0, abs=1e-5)
    assert table[2][1] < table[24][1]


def test_truncated_window_one_is_per_step_detach():
    field, (x0, targets) = VectorField(WIDTH), make_problem(BATCH, 8)
    truncated = truncated_gradient(field, x0, targets, DT, window=1)
    x = x0
    for target in targets:
        x = x.detach()
        x = x + DT * field(x)
        step_loss(x, target).backward()
    by_hand = torch.cat([p.grad.flatten() for p in field.parameters()])
    assert torch.allclose(truncated, by_hand)


@pytest.mark.parametrize("segment", [1, 4, 7, 20])
def test_checkpointed_gradient_is_exact_and_holds_less(segment):
    field, (x0, targets) = VectorField(WIDTH), make_problem(BATCH, 20)
    with cu.LiveTensors() as full_live:
        full = full_backprop_gradient(field, x0, targets, DT)
    field.calls = 0
    with cu.LiveTensors() as live:
        checkpointed = checkpointed_gradient(field, x0, targets, DT, segment)
    assert torch.allclose(checkpointed, full, rtol=1e-5, atol=1e-7)
    assert field.calls == 2 * len(targets), "each step runs once forward and once more in backward"
    if segment < len(targets):
        assert live.peak < full_live.peak
