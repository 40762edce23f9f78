"""Checkers for notebook 03, trapezoid integration: when to record a graph, and a peak-bytes budget.

>>> def integral_within_budget(net, x, budget_bytes):
...     raise NotImplementedError
>>> check_budget(integral_within_budget).status
'not attempted'
"""
import math

import torch

from autograd_memory import GraphMemory, LiveTensors, format_bytes

from ..problems.integrate import ScalarNet, grid
from . import exercise, expect

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
    expect(not odd, f"each answer is the string 'no_grad' or 'grad'; these are not: {odd}")
    wrong = [key for key in SCENARIOS if answers[key] != _RIGHT[key]]
    expect(not wrong, " | ".join(f"{key}: {_WHY[key]}" for key in wrong))
    return "report and teacher under no_grad; the density's normaliser keeps its graph."


BUDGET_PROBLEM = {"width": 64, "hidden_layers": 2, "points": 20_001, "budgets": (1_000_000, 250_000)}


@exercise("Chunked evaluation within a peak-bytes budget")
def check_budget(integral_within_budget):
    """``integral_within_budget(net, x, budget_bytes)`` returns the trapezoid integral of ``net`` over the
    nodes ``x`` (a 0-d tensor or float) while the live tensors it creates never exceed ``budget_bytes``."""
    problem = BUDGET_PROBLEM
    net = ScalarNet(problem["width"], problem["hidden_layers"])
    x = grid(problem["points"])
    with torch.no_grad():
        exact = torch.trapezoid(net(x), x).item()
    details = []
    for budget in problem["budgets"]:
        net.calls = 0
        fewest = math.ceil((x.numel() - 1) * 2 * net.width * 4 / budget)
        too_many = (f"network calls for a budget of {format_bytes(budget)}: chunks of about "
                    f"{(x.numel() - 1) // fewest} intervals would fit in {fewest} calls. Tiny chunks meet any budget, but "
                    "each call costs Python overhead: use the largest chunk the budget allows.")

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
               "A chunk of c intervals holds two (c+1) x width float32 tensors at once (a layer's input and output): "
               "pick c so that 2 * (c + 1) * width * 4 bytes fits, with some room for the rest.")
        value = float(value)
        expect(math.isclose(value, exact, rel_tol=1e-4, abs_tol=1e-5),
               f"integral {value:.6g}, but the trapezoid rule over all {x.numel()} nodes gives {exact:.6g}. Do "
               "neighbouring chunks share their boundary node? (x[i : i + c + 1], then step i by c.)")
        expect(net.calls <= 4 * fewest, f"{net.calls} {too_many}")
        details.append(f"{format_bytes(budget)} budget: peak {format_bytes(live.peak)} in {net.calls} calls")
    return "; ".join(details) + "."
