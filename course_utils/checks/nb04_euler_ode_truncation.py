"""Checkers for notebook 04, Euler ODE truncation: where the ``detach()`` goes, and a truncation window.

Both run on the problem :func:`~course_utils.problems.ode.euler_problem` builds, the one the notebook and its
explorer measure (``checks.euler_problem`` and ``checks.DT`` name it for the notebook).

>>> def euler_step(field, x, dt):
...     raise NotImplementedError
>>> check_detach(euler_step).status
'not attempted'
"""
import functools
import numbers

import torch

from autograd_memory import GraphMemory, NotFlatError, Trace, format_bytes

from ..problems.ode import DT, euler_problem, step_loss, truncated_gradient
from . import LOOP_ERRORS, exercise, expect, fail

__all__ = ["DT", "WINDOWS", "WINDOW_BUDGET", "TIGHT_WINDOW", "EXACT_WINDOWS", "euler_problem", "check_detach", "check_window"]

WINDOWS = (1, 2, 5, 10, 20, 30, 60)
WINDOW_BUDGET = 300_000  # bytes of graph the exercise allows


@exercise("Place the detach()", errors=LOOP_ERRORS)
def check_detach(euler_step):
    """``euler_step(field, x, dt)`` returns the next Euler state so that a loop with a per-step loss and
    ``backward()`` every step runs, keeps memory flat, and trains ``field`` through the step it just took."""
    field, x0, targets = euler_problem(batch=16, steps=20, width=32)
    expected = truncated_gradient(field, x0, targets, DT, window=1)
    trace = Trace("your euler_step")
    x = x0
    with GraphMemory() as graph:
        for step, target in enumerate(targets):
            x = euler_step(field, x, DT)
            expect(isinstance(x, torch.Tensor) and x.shape == x0.shape,
                   f"euler_step should return the next state, a tensor shaped like x {tuple(x0.shape)}")
            loss = step_loss(x, target)
            expect(loss.requires_grad,
                   f"at step {step} the loss does not depend on the field's parameters: the state came back "
                   "detached, so nothing can train. Detach the state going *in* (history), not the one coming out.")
            trace.record(step, saved=graph.bytes)  # the graph at its largest, just before backward()
            try:
                loss.backward()
            except RuntimeError as error:
                expect("second time" not in str(error),
                       f"step {step} raised 'Trying to backward through the graph a second time': the new state still "
                       "hangs on the previous steps' graph, which the last backward() freed. Cut it with x.detach() "
                       "before using x (in the field *and* in the `x + ...` term).")
                raise
    try:
        trace.assert_flat("saved")
    except NotFlatError as error:
        fail(f"graph memory grew across steps: {error}")
    got = torch.cat([p.grad.flatten() for p in field.parameters()])
    expect(torch.allclose(got, expected, rtol=1e-4, atol=1e-7),
           "the accumulated gradient differs from per-step detached Euler: take x_next = x + dt * field(x) with the "
           "incoming x detached, nothing else changed.")
    return f"{len(targets)} steps, the graph flat at {format_bytes(trace.values['saved'][-1])} before each backward()."


@functools.cache
def _window_peak(window):
    """The most graph :func:`~course_utils.problems.ode.truncated_gradient` holds at once with truncation window
    ``window`` on :func:`euler_problem` (``window_tradeoff``'s peak, without its cosine): exact bytes, measured once."""
    field, x0, targets = euler_problem()
    with GraphMemory() as graph:
        truncated_gradient(field, x0, targets, DT, window)
    return graph.peak


TIGHT_WINDOW = 10  # one budget is one byte short of this window's peak
EXACT_WINDOWS = (6, 33)  # two budgets are exactly these windows' peaks


@exercise("Compute the largest truncation window a budget allows")
def check_window(largest_window, budgets=None):
    """``largest_window(budget_bytes) -> k``: the largest truncation window (any whole number of steps) whose
    graph peaks within ``budget_bytes`` on :func:`euler_problem`; the checker measures ``k`` and ``k + 1``.
    The bias falls as the window grows (the notebook's section 5), so the largest window that fits is the best.
    Its budgets: ``WINDOW_BUDGET``, exactly the peaks of the windows in ``EXACT_WINDOWS``, and one byte short of
    window ``TIGHT_WINDOW``'s peak. A law ``base + k x per_step`` with a base too small takes one step too many at the
    last; one with a base (or a per_step) too large takes one step too few at the exact peaks, so only the measured
    law passes at all four."""
    field, x0, targets = euler_problem()
    if budgets is None:
        peaks = {k: _window_peak(k) for k in (*EXACT_WINDOWS, TIGHT_WINDOW)}
        budgets = (WINDOW_BUDGET, peaks[EXACT_WINDOWS[0]], peaks[TIGHT_WINDOW] - 1, peaks[EXACT_WINDOWS[1]])
    answers = []
    for budget in budgets:
        window = largest_window(budget)
        expect(not (isinstance(window, numbers.Real) and not isinstance(window, numbers.Integral) and window % 1),
               f"got {window!r}: a window is a whole number of steps. Round down the law's k (int(k), or use //): "
               "rounding up would take a step the budget does not allow")
        expect(isinstance(window, numbers.Integral) and 1 <= window <= len(targets),
               f"return a whole number of steps between 1 and {len(targets)}; got {window!r}")
        window = int(window)
        peaks = {k: _window_peak(k) for k in (window, window + 1)}
        expect(peaks[window] <= budget,
               f"window {window} peaks at {format_bytes(peaks[window])} of graph, over the budget of {format_bytes(budget)} "
               f"by {format_bytes(peaks[window] - budget)}: memory is base + k x per_step, and the base counts too; "
               "solve base + k x per_step <= budget for k.")
        expect(window == len(targets) or peaks[window + 1] > budget,
               f"window {window + 1} fits the budget of {format_bytes(budget)} too ({format_bytes(peaks[window + 1])}): "
               "take the largest k with base + k x per_step <= budget (the bias shrinks with k). If your law gives one "
               "step too few where a budget is exactly a window's peak, its base or its per_step is too large: read "
               "both from two measured peaks (per_step their difference, base what is left).")
        answers.append(f"{format_bytes(budget)} -> window {window} ({format_bytes(peaks[window])})")
    return "; ".join(answers) + "; one step more would not fit."
