"""Every exercise of every notebook refuses a plausible wrong answer, and says what to look at.

One row per exercise (per mystery script for notebook 07's clinic): the mistake a learner is likely to make, and
a fragment of the message that must explain it. ``test_every_exercise_has_a_row`` fails when a checker (or a
clinic script) is added without one. The per-notebook test files hold more wrong answers; this table is the floor.
"""
import importlib
import inspect

import pytest
import torch

from course_utils import GraphMemory
from course_utils.checks import NOTEBOOK_CHECKERS, ExerciseFailed
from course_utils.checks import nb07_find_the_leak
from course_utils.problems.ode import window_tradeoff


def _graph_bytes_after_five_calls(step):
    """nb01: the total kept after five calls, not the growth per call."""
    with GraphMemory() as graph:
        for _ in range(5):
            step()
    return graph.bytes


def _saved_after_the_call(evaluate, model, batches):
    """nb02: graph.bytes once the evaluation is over (every graph has died with its loss by then)."""
    with GraphMemory() as graph:
        evaluate(model, batches)
    return graph.bytes


def _freeze_with_detach(model):
    """nb02: detach() returns a new tensor; the parameter still requires grad."""
    for p in model[:-1].parameters():
        p.detach()


def _chunks_with_grad_on(net, x, budget_bytes):
    """nb03: chunked, but every chunk's graph is kept (no torch.no_grad())."""
    from course_utils.problems.integrate import trapezoid_in_chunks
    return trapezoid_in_chunks(net, x, 100)


def _window_without_the_base(budget_bytes):
    """nb04, W4: ``budget // per_step`` forgets the base term of ``base + k * per_step``."""
    from course_utils.checks.nb04_euler_ode_truncation import DT, euler_problem
    field, x0, targets = euler_problem()
    peaks = {k: peak for k, (peak, _cosine) in window_tradeoff(field, x0, targets, DT, [2, 3]).items()}
    return int(min(len(targets), budget_bytes // (peaks[3] - peaks[2])))


def _live_meter_only(step):
    """nb05: reads only the live meter, so a kept graph looks like kept tensors."""
    from course_utils import LiveTensors, Trace
    trace = Trace("step")
    with LiveTensors() as live:
        for i in range(6):
            step()
            trace.record(i, live=live.bytes)
    growth = trace.growth_per_step("live", skip=1)
    return ("tensors" if growth > 0 else "nothing"), growth


def _row_sums(u, points):
    """nb06: grad of the whole (N, 3) gradient with grad_outputs=ones sums the Hessian's rows."""
    first, = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)
    second, = torch.autograd.grad(first, points, torch.ones_like(first), create_graph=True)
    return second[:, 0] + second[:, 1]


WRONG = [
    ("nb01_graph_lifecycle.check_saved_prediction", "tanh: you said 'input'", lambda m: m.check_saved_prediction(
        lambda: {"tanh": "input", "sigmoid": "output", "relu": "output", "cos": "input", "x ** 2": "input",
                 "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"})),
    ("nb01_graph_lifecycle.check_saved_growth", "growth per call", lambda m: m.check_saved_growth(_graph_bytes_after_five_calls)),
    ("nb02_no_grad_vs_detach.check_saved_peaks", "which of its readings remembers the most", lambda m: m.check_saved_peaks(_saved_after_the_call)),
    ("nb02_no_grad_vs_detach.check_frozen_body", "p.detach() returns a new tensor", lambda m: m.check_frozen_body(_freeze_with_detach)),
    ("nb03_trapezoid_integration.check_scenarios", "density: the normaliser depends on theta",
     lambda m: m.check_scenarios(lambda: {"report": "no_grad", "density": "no_grad", "teacher": "no_grad"})),
    ("nb03_trapezoid_integration.check_budget", "evaluate under torch.no_grad()", lambda m: m.check_budget(_chunks_with_grad_on)),
    ("nb04_euler_ode_truncation.check_detach", "Detach the state going *in*",
     lambda m: m.check_detach(lambda field, x, dt: (x + dt * field(x)).detach())),
    ("nb04_euler_ode_truncation.check_window", "the base counts too", lambda m: m.check_window(_window_without_the_base)),
    ("nb05_laplacian_pinn.check_diagnosis", "graph meter grows", lambda m: m.check_diagnosis(_live_meter_only)),
    ("nb05_laplacian_pinn.check_leak_bytes", "which of them got a .grad",
     lambda m: m.check_leak_bytes(lambda n_points, laplacian: 4 + (3 * 4 * n_points if laplacian == "nested" else 0))),
    ("nb06_which_laplacian.check_laplacian", "ROW SUMS", lambda m: m.check_laplacian(_row_sums)),
    ("nb06_which_laplacian.check_chunk_size", "over the budget", lambda m: m.check_chunk_size(lambda model, points, budget: 256)),
]
CLINIC = [  # notebook 07: one checker, one exercise per mystery script
    ("loss_history", "losses.append(loss)", "losses.append(loss.detach())", "still grows every step"),
    # W3: flat, and it trains the same, but it keeps the graph that backward() should free
    ("input_gradient", "loss.backward(create_graph=True)", "loss.backward(retain_graph=True)", "retain_graph=True keeps it"),
    ("activation_hook", "history.append(output.std())", "history.append(output.std().detach())", "still grows every step"),
    ("derivative_cache", "key = (id(y), id(x))", "key = (y, x)", "still grows every step"),
    ("recurrent_state", 'model["encoder"](readings))', 'model["encoder"](readings)).detach()', "gradient of encoder.weight differs"),
    ("running_loss", "running_loss = running_loss + loss\n", "running_loss += loss\n", "still grows every step"),
    ("trainer_class", "self.total_loss += loss\n", "self.total_loss = self.total_loss + loss\n", "still grows every step"),
    # a detached tensor per evaluation has no graph, but the list still gains a tensor every evaluation
    ("fit_state", "append(residual.abs().max())", "append(residual.abs().max().detach())", "still grows every step"),
]


@pytest.mark.parametrize("name, hint, answer", WRONG, ids=[row[0] for row in WRONG])
def test_a_plausible_wrong_answer_is_refused_with_a_reason(name, hint, answer):
    module = importlib.import_module(f"course_utils.checks.{name.split('.')[0]}")
    with pytest.raises(ExerciseFailed) as caught:
        answer(module)
    assert str(caught.value).startswith("[FAIL] ") and hint in str(caught.value), str(caught.value)


@pytest.mark.parametrize("name, old, new, hint", CLINIC, ids=[row[0] for row in CLINIC])
def test_a_plausible_wrong_fix_is_refused_with_a_reason(name, old, new, hint):
    with pytest.raises(ExerciseFailed) as caught:
        nb07_find_the_leak.check_fix(name, lambda: (old, new))
    assert str(caught.value).startswith(f"[FAIL] Mystery {name!r}") and hint in str(caught.value), str(caught.value)


def test_every_exercise_has_a_row():
    checkers = {f"{module}.{name}" for module in NOTEBOOK_CHECKERS
                for name, _ in inspect.getmembers(importlib.import_module(f"course_utils.checks.{module}"), inspect.isfunction)
                if name.startswith("check_") and module != "nb07_find_the_leak"}
    assert checkers == {row[0] for row in WRONG}, "every checker needs a plausible wrong answer in WRONG"
    assert set(nb07_find_the_leak.MYSTERIES) == {row[0] for row in CLINIC}, "every clinic script needs a wrong fix in CLINIC"
