"""Checkers for notebook 03, trapezoid integration: when to record a graph, and a peak-bytes budget.

>>> def integral_within_budget(net, x, budget_bytes):
...     raise NotImplementedError
>>> check_budget(integral_within_budget).status
'not attempted'
"""
import difflib
import math

import torch

from autograd_memory import GraphMemory, LiveTensors, format_bytes

from ..problems.integrate import ScalarNet, grid
from . import exercise, expect, fail

__all__ = ["SCENARIOS", "check_scenarios", "BUDGET_PROBLEM", "check_budget"]

SCENARIOS = {
    "report": "After training, print the integral of f_theta on a fine grid for a report.",
    "density": "Train a density p_theta(x) = f_theta(x) / Z_theta by maximum likelihood, where the "
               "normaliser Z_theta is the integral of f_theta over the domain.",
    "teacher": "Fit f_theta so that its integral matches the integral of a frozen, pretrained teacher "
               "network g: the target value is the integral of g.",
}

_RIGHT = {"report": "no_grad", "density": "grad", "teacher": "no_grad"}

_WHY = {
    "report": "nothing will call backward() on a number printed in a report: with grad on, the graph would keep "
              "points x width x layers activations alive for nothing. Use no_grad.",
    "density": "the normaliser depends on theta, and its gradient is part of the likelihood's gradient: "
               "-log p = -log f_theta(x) + log Z_theta. Under no_grad Z_theta becomes a constant and the "
               "training silently follows the wrong gradient. Keep the graph (chunk + checkpoint if it is too big).",
    "teacher": "the teacher is frozen: its integral is a target, a constant. Recording its graph costs memory and "
               "gives nothing to backpropagate into. Use no_grad for the teacher (and grad for f_theta).",
}


@exercise("no_grad or not, three scenarios")
def check_scenarios(choose):
    """``choose()`` returns a dict mapping each key of :data:`SCENARIOS` to ``"no_grad"`` or ``"grad"``."""
    answers = choose()
    expect(isinstance(answers, dict), f"answers should be a dict like {{'report': 'no_grad', ...}}, got {type(answers).__name__}")
    expect(set(answers) == set(SCENARIOS), f"answer exactly the scenarios {sorted(SCENARIOS)}; got {sorted(answers)}")
    odd = {key: value for key, value in answers.items() if value not in ("no_grad", "grad")}
    near = {value: difflib.get_close_matches(str(value), ("no_grad", "grad"), n=1) for value in odd.values()}
    expect(not odd, f"each answer is the string 'no_grad' or 'grad'; these are not: {odd}"
                    + "".join(f" ({value!r}: did you mean {found[0]!r}?)" for value, found in near.items() if found))
    wrong = [key for key in SCENARIOS if answers[key] != _RIGHT[key]]
    expect(not wrong, " | ".join(f"{key}: {_WHY[key]}" for key in wrong))
    return "report and teacher under no_grad; the density's normaliser keeps its graph."


# The budget exercise's cases: a network over nodes, and the budgets each is tried at. The first is the notebook's own
# 20,001 evenly spaced nodes on [0, pi], at budgets 16 times apart (one chunk size cannot suit them all); the second
# another network over 129 nodes spaced unevenly (denser at the start) on a wider span, where a rule other than the
# trapezoid rule, one spacing for all intervals, or a missing interval is far from the trapezoid rule's value.
BUDGET_PROBLEM = {"width": 64, "hidden_layers": 2, "points": 20_001, "budgets": (1_000_000, 250_000, 4_000_000),
                  "uneven": {"seed": 1, "points": 129, "span": (-5.0, 35.0), "budgets": (20_000,)}}
_REL_TOL = 1e-6  # float32 chunks summed in any order agree with the whole to about 1e-7


def _cases():
    problem = BUDGET_PROBLEM
    even = ScalarNet(problem["width"], problem["hidden_layers"])
    yield even, grid(problem["points"]), problem["budgets"]
    uneven = problem["uneven"]
    start, end = uneven["span"]
    net = ScalarNet(problem["width"], problem["hidden_layers"], seed=uneven["seed"])
    yield net, start + (end - start) * torch.linspace(0, 1, uneven["points"]) ** 2, uneven["budgets"]


def _near_misses(net, x):
    """What plausible other rules give over the nodes ``x``: ``[(the idea it misses, its value)]``."""
    rectangles = ("that is a rectangle rule (each interval's width times the value at one of its ends): the trapezoid "
                  "rule takes the mean of both ends, (y[i] + y[i + 1]) / 2 x (x[i + 1] - x[i])")
    with torch.no_grad():
        y, nodes = net(x).double(), x.double()
        widths = nodes.diff()
        return [(rectangles, (y[:-1] * widths).sum().item()), (rectangles, (y[1:] * widths).sum().item()),
                ("one interval is missing at the end: the last chunk must reach the last node, x[-1]",
                 torch.trapezoid(y[:-1], nodes[:-1]).item()),
                ("one interval is missing at the start: the first chunk must start at the first node, x[0]",
                 torch.trapezoid(y[1:], nodes[1:]).item())]


@exercise("Chunked evaluation within a peak-bytes budget")
def check_budget(integral_within_budget):
    """``integral_within_budget(net, x, budget_bytes)`` returns the trapezoid integral of ``net`` over the
    nodes ``x`` (a 0-d tensor or float) while the live tensors it creates never exceed ``budget_bytes``; the checker
    tries the cases of :data:`BUDGET_PROBLEM`."""
    details = []
    for net, x, budgets in _cases():
        with torch.no_grad():
            exact = torch.trapezoid(net(x).double(), x.double()).item()
        for budget in budgets:
            net.calls = 0
            fewest = math.ceil((x.numel() - 1) * 2 * net.width * 4 / budget)
            too_many = (f"network calls for a budget of {format_bytes(budget)} over {x.numel()} nodes: chunks of about "
                        f"{(x.numel() - 1) // fewest} intervals would fit in {fewest} calls. Tiny chunks meet any "
                        "budget, but each call costs Python overhead: use the largest chunk the budget allows (it "
                        "changes with the budget).")

            def stop_at_too_many(module, inputs):  # ten times the calls allowed: refused now, not after thousands more
                expect(module.calls < 40 * fewest, f"more than {40 * fewest} {too_many}")

            hook = net.register_forward_pre_hook(stop_at_too_many)
            try:
                with LiveTensors() as live, GraphMemory() as graph:
                    value = integral_within_budget(net, x, budget)
            finally:
                hook.remove()
            expect(graph.peak == 0,
                   f"with a budget of {format_bytes(budget)} autograd saved {format_bytes(graph.peak)} for backward: "
                   "a graph over all chunks adds up to the whole evaluation's activations. Nobody will call backward() "
                   "here: evaluate under torch.no_grad().")
            expect(live.peak <= budget,
                   f"peak {format_bytes(live.peak)} > budget {format_bytes(budget)} (in {net.calls} network calls). "
                   "A chunk of c intervals holds two (c+1) x width float32 tensors at once (a layer's input and "
                   "output): pick c so that 2 * (c + 1) * width * 4 bytes fits, with some room for the rest.")
            value = float(value)
            if not math.isclose(value, exact, rel_tol=_REL_TOL, abs_tol=1e-9):
                ideas = [idea for idea, other in _near_misses(net, x)
                         if math.isclose(value, other, rel_tol=_REL_TOL, abs_tol=1e-9)]
                fail(f"integral {value:.7g}, but the trapezoid rule over all {x.numel()} nodes gives {exact:.7g}: "
                     + (ideas[0] if ideas else "do neighbouring chunks share their boundary node (x[i : i + c + 1], "
                        "then step i by c), does the last chunk reach x[-1], and does each chunk use its own nodes' "
                        "spacing (torch.trapezoid(net(nodes), nodes))?"))
            expect(net.calls <= 4 * fewest, f"{net.calls} {too_many}")
            details.append(f"{format_bytes(budget)}: peak {format_bytes(live.peak)} in {net.calls} calls")
    return "; ".join(details) + "."
