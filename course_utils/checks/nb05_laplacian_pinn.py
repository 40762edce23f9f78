"""Checkers for notebook 05, the Laplacian PINN: diagnose a training step with the meters, predict a leak's
bytes (notebook 06's exercises are in :mod:`course_utils.checks.nb06_which_laplacian`).

>>> def diagnose(step, steps=6):
...     raise NotImplementedError
>>> check_diagnosis(diagnose).status
'not attempted'

Every checker builds its own small, seeded problem from :mod:`course_utils.problems.pinn`, so the learner's code and
the checker see the same model and points.
"""
import functools

import torch

from autograd_memory import GraphMemory, LiveTensors, Trace, format_bytes

from ..problems import laplacians, pinn
from . import LOOP_ERRORS, exercise, expect, unit_mistake

__all__ = ["mystery_steps", "check_diagnosis", "check_leak_bytes", "KINDS", "ROUNDS"]

KINDS = ("graph", "tensors", "nothing")  # what a step keeps: a whole graph, other tensors only, or nothing
POINTS = 64
# The diagnosis checker's rounds: the collocation points per step, and the steps it hands over, in that order (not
# the order of their names, so answers given by position are wrong). What the kept loss holds grows with its points,
# so a number typed in from one round is wrong in the other.
ROUNDS = ((POINTS, ("C", "A", "B")), (96, ("C",)))


def mystery_steps(seed=0, points=POINTS):
    """Three training steps of a small :class:`~course_utils.problems.pinn.HeatPINN` on ``points`` collocation points
    each, named ``"A"``, ``"B"``, ``"C"``: each is a zero-argument function that runs one step and keeps something
    across steps (or nothing)."""
    def make(keep):
        model = pinn.HeatPINN(width=16, depth=2, seed=seed)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        grid, kept, count = pinn.grid_points(5, 2), [], [0]

        def step():
            optimizer.zero_grad(set_to_none=True)
            loss = pinn.residual_loss(model, pinn.sample_points(points, seed=count[0]))
            loss.backward()
            optimizer.step()
            count[0] += 1
            kept.append({"loss": loss, "picture": model(grid), "float": loss.item()}[keep])  # noqa: AGM001 (the exercise's leaky steps, on purpose)
        return step
    return {"A": make("picture"), "B": make("float"), "C": make("loss")}


def _measure(step, steps=6):
    """``(saved bytes per step, live bytes per step)`` after the first step (which creates Adam's state)."""
    trace = Trace("mystery step")
    with LiveTensors() as live, GraphMemory() as graph:
        for i in range(steps):
            step()
            trace.record(i, live=live.bytes, saved=graph.bytes)
    return trace.growth_per_step("saved", skip=1), trace.growth_per_step("live", skip=1)


@functools.cache
def _reference(points, name):
    """:func:`_measure` of mystery step ``name`` on ``points`` points: exact bytes of a seeded problem, measured once."""
    return _measure(mystery_steps(points=points)[name])


@functools.cache
def _kept_loss_bytes(n_points, name):
    """The live bytes per step that ``history.append(loss)`` keeps, ``name`` one of ``"nested"``, ``"forward"``:
    exact bytes, measured once."""
    method = {"nested": laplacians.laplacian_nested, "forward": laplacians.laplacian_forward}[name]
    model = pinn.HeatPINN(width=8, depth=2)
    kept = []

    def step():
        model.zero_grad(set_to_none=True)
        loss = pinn.residual_loss(model, pinn.sample_points(n_points, seed=len(kept)), method=method)
        loss.backward()
        kept.append(loss)
    return _measure(step, steps=4)[1]


@exercise("Diagnose three training steps with the meters", errors=LOOP_ERRORS)
def check_diagnosis(diagnose):
    """``diagnose(step) -> (kind, bytes per step)``: ``kind`` is ``"graph"`` if what the step keeps includes
    saved-for-backward tensors (a graph no ``backward()`` freed), ``"tensors"`` if it keeps live tensors but
    nothing saved, ``"nothing"`` if memory is flat; the bytes are the live tensors' growth per step. The checker
    asks in each of :data:`ROUNDS`."""
    verdicts = []
    for points, order in ROUNDS:
        for name in order:
            answer = diagnose(mystery_steps(points=points)[name])
            expect(isinstance(answer, tuple) and len(answer) == 2 and answer[0] in KINDS,
                   f"return a pair (kind, bytes per step) with kind one of {KINDS}; got {answer!r}")
            saved, live = _reference(points, name)
            kind = "graph" if saved > 0 else "tensors" if live > 0 else "nothing"
            step = f"step {name} on {points} points"
            expect(answer[0] == kind, f"{step}: you said {answer[0]!r}, but the graph meter grows by "
                                      f"{format_bytes(saved, signed=True)}/step and the live meter by "
                                      f"{format_bytes(live, signed=True)}/step. Run the step several times under "
                                      "LiveTensors and GraphMemory and read both.")
            unit = unit_mistake(answer[1], round(live))
            expect(round(answer[1]) == round(live),
                   f"{step}: the live tensors grow by {format_bytes(live, signed=True)}/step, not {answer[1]!r}"
                   + (f": {unit}." if unit else ". Measure each step you are given (what it keeps grows with its "
                                                 "points), and skip the first step: it creates Adam's state."))
            verdicts.append(f"{name}: {kind} ({format_bytes(live, signed=True)}/step)")
    return "; ".join(verdicts) + "."


@exercise("Predict the bytes a kept loss tensor holds per step")
def check_leak_bytes(kept_loss_bytes):
    """``kept_loss_bytes(n_points, laplacian) -> bytes``: what ``history.append(loss)`` keeps alive per
    training step of :func:`course_utils.problems.pinn.residual_loss` with ``n_points`` float32 collocation points and
    ``laplacian`` one of ``"nested"`` (:func:`~course_utils.problems.laplacians.laplacian_nested`) or ``"forward"``."""
    for n_points in (32, 96):
        for name in ("nested", "forward"):
            measured = _kept_loss_bytes(n_points, name)
            answer = kept_loss_bytes(n_points, name)
            unit = unit_mistake(answer, round(measured))
            expect(answer == round(measured),
                   f"{n_points} points with the {name} Laplacian: a kept loss holds {format_bytes(measured)} per step, "
                   f"you said {answer!r}" + (f": {unit}." if unit else ". Which leaves does its graph point at, and "
                                             "which of them got a .grad?"))
    return "the law holds at 32 and 96 points, for the nested and the forward Laplacian."
