"""Notebook 04's explorer: the truncation window k -> peak graph memory and the gradient's error against full
backpropagation, on the notebook's Euler problem.

>>> reading = euler_window().update(window=60)
>>> reading.relative_error < 1e-5 and reading.peak_saved == reading.full_peak_saved
True
"""
from dataclasses import dataclass

from autograd_memory.formats.units import format_bytes
from autograd_memory.measuring.meters import GraphMemory

from ..problems.ode import DT, cosine_similarity, euler_problem, full_backprop_gradient, truncated_gradient
from .panel import Explorer, bytes_html, rows_html

__all__ = ["WINDOWS", "EulerReading", "EulerWindows", "euler_window"]

WINDOWS = (1, 2, 3, 5, 10, 15, 20, 30, 60)


@dataclass
class EulerReading:
    """Truncated backpropagation with window ``window`` against full backpropagation, measured."""

    window: int
    steps: int
    peak_saved: int  # GraphMemory.peak while the truncated gradient is computed
    full_peak_saved: int  # the same for full backpropagation
    relative_error: float  # ||g_k - g|| / ||g||
    cosine: float
    length_ratio: float  # ||g_k|| / ||g||

    def text(self):
        return "\n".join([
            f"Truncated backpropagation, window k = {self.window} of {self.steps} Euler steps",
            f"  peak graph memory   {format_bytes(self.peak_saved)} (full backprop: {format_bytes(self.full_peak_saved)})",
            f"  gradient error      {self.relative_error:.1%} (|g_k - g| / |g|)",
            f"  gradient length     {self.length_ratio:.1%} of full backprop's, cosine {self.cosine:.3f}"])

    def html(self):
        rows = [("window k", f"{self.window} of {self.steps} steps"),
                ("peak graph memory (GraphMemory)", bytes_html("peak", self.peak_saved)),
                ("full backprop's peak", bytes_html("full-peak", self.full_peak_saved)),
                ("gradient error |g_k − g| / |g|", f"<span class='amlab-explorer-error'>{self.relative_error:.1%}</span>"),
                ("gradient length vs full", f"{self.length_ratio:.1%}"),
                ("cosine with full", f"{self.cosine:.3f}")]
        bar = (f"<div style='background:#eee;width:16em'><div style='background:#c62828;height:0.8em;"
               f"width:{min(1.0, self.relative_error) * 100:.0f}%'></div></div>")
        return rows_html(rows) + f"<p>gradient error {bar}</p>"


class EulerWindows:
    """Notebook 04's Euler problem (:func:`~course_utils.problems.ode.euler_problem`) and its full-backprop gradient,
    computed once.

    The cosine with full backprop stays near 1 on these dynamics (truncation here mostly *shrinks*
    the gradient: it drops the earlier steps' contributions, which point the same way), so the
    reading leads with the relative error ``||g_k - g|| / ||g||``, where the bias is plain.
    """

    def __init__(self):
        self.field, self.x0, self.targets = euler_problem()
        self.dt = DT
        with GraphMemory() as graph:
            self.full = full_backprop_gradient(self.field, self.x0, self.targets, self.dt)
        self.full_peak = graph.peak

    def reading(self, window):
        with GraphMemory() as graph:
            gradient = truncated_gradient(self.field, self.x0, self.targets, self.dt, window)
        full_length = self.full.norm().item()
        return EulerReading(window, len(self.targets), graph.peak, self.full_peak,
                            (gradient - self.full).norm().item() / full_length,
                            cosine_similarity(gradient, self.full), gradient.norm().item() / full_length)


def euler_window() -> Explorer:
    """Explorer for notebook 04: the truncation window k -> peak graph memory and gradient error.

    Cap: notebook 04's problem (60 steps, 64 states, width 64, about 1 MB of graph at k = 60): the
    window is the only knob, and each move re-runs 60 tiny steps.
    """
    problem = EulerWindows()
    return Explorer("Truncated backprop through Euler steps", {"window": ("window k", WINDOWS, 1)},
                    problem.reading, cap="notebook 04's 60 steps x 64 states x width 64 (about 1 MB of graph)")
