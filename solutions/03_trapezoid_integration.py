"""Worked solutions for notebook 03, trapezoid integration (for instructors).

Run ``python solutions/03_trapezoid_integration.py`` to see the checkers' verdicts.
"""
import torch

from course_utils.checks import nb03_trapezoid_integration as checks
from course_utils.integrate import trapezoid_in_chunks


def choose():
    """Only the density's normaliser is part of what backward() must differentiate."""
    return {"report": "no_grad", "density": "grad", "teacher": "no_grad"}


def integral_within_budget(net, x, budget_bytes):
    """A chunk of c intervals holds two (c + 1) x width float32 tensors at its peak (one layer's input
    and output): take the largest c that fits in 90% of the budget, and record no graph."""
    bytes_per_node = 2 * net.width * x.element_size()
    chunk = int(0.9 * budget_bytes) // bytes_per_node - 1
    with torch.no_grad():
        return trapezoid_in_chunks(net, x, chunk)


def run_checks():
    return [checks.check_scenarios(choose), checks.check_budget(integral_within_budget)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
