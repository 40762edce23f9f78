"""Notebook 03's explorer: points x width x layers of a network integrated by the trapezoid rule -> saved bytes and
peak, next to the learner's own formula.

>>> explorer = trapezoid()
>>> reading = explorer.update(points=1001, width=16, layers=2)
>>> reading.activations == 1001 * 16 * 2 * 4          # measured by GraphMemory
True
>>> print(explorer)                                   # doctest: +ELLIPSIS
Trapezoid through a network: 1,001 points, width 16, 2 hidden layers
  saved activations  128.1 kB (GraphMemory)
...
"""
import html
from dataclasses import dataclass

import torch

from autograd_memory import GraphMemory, LiveTensors, format_bytes

from ..problems.integrate import ScalarNet, grid, spacing_bytes
from .panel import Explorer, bytes_html, rows_html

__all__ = ["POINTS", "WIDTHS", "LAYERS", "TrapezoidReading", "trapezoid_reading", "trapezoid"]

POINTS, WIDTHS, LAYERS = (1001, 2001, 5001, 10_001, 20_001), (8, 16, 32, 64, 128), (1, 2, 3, 4)


@dataclass
class TrapezoidReading:
    """``trapezoid(ScalarNet(width, layers)(x), x)`` over ``points`` nodes, measured."""

    points: int
    width: int
    layers: int
    activations: int  # the network's: GraphMemory.by_kind["activations"] less trapezoid's spacings diff(x)
    saved: int  # GraphMemory.bytes: the network's activations + the spacings + the grid points x
    peak: int  # LiveTensors.peak during the forward pass
    formula: object = None  # what the learner's formula said (a number), or None
    formula_note: str = ""  # why there is no number (not written yet, or the error it raised)

    @property
    def formula_error(self):
        """Relative error of the learner's formula against the measured activations, or None."""
        if not isinstance(self.formula, (int, float)) or not self.activations:
            return None
        return (self.formula - self.activations) / self.activations

    def _formula_line(self):
        if self.formula_error is None:
            return self.formula_note
        return f"{format_bytes(self.formula)} ({self.formula_error:+.1%} against the meter)"

    def text(self):
        return "\n".join([
            f"Trapezoid through a network: {self.points:,} points, width {self.width}, {self.layers} hidden layer"
            + ("s" if self.layers > 1 else ""),
            f"  saved activations  {format_bytes(self.activations)} (GraphMemory)",
            f"  saved in all       {format_bytes(self.saved)} (with the grid points x and their spacings)",
            f"  peak live          {format_bytes(self.peak)} (LiveTensors)",
            f"  your formula       {self._formula_line()}"])

    def html(self):
        error = self.formula_error
        colour = "#2e7d32" if error == 0 else "#c62828" if error is not None else "#555"
        rows = [("setting", f"{self.points:,} points × width {self.width} × {self.layers} layers"),
                ("saved activations (GraphMemory)", bytes_html("activations", self.activations)),
                ("saved in all", bytes_html("saved", self.saved)),
                ("peak live (LiveTensors)", bytes_html("peak", self.peak)),
                ("your formula", f"<span style='color:{colour}' class='amlab-explorer-formula'>"
                                 f"{html.escape(self._formula_line())}</span>")]
        return rows_html(rows)


def _ask(formula, points, width, layers):
    """The learner's formula's answer, or (None, why not)."""
    if formula is None:
        return None, "none given: pass your function, e.g. trapezoid(my_saved_bytes)"
    try:
        value = formula(points, width, layers)
    except NotImplementedError:
        return None, "not written yet: replace `raise NotImplementedError` in your function and re-run its cell"
    except Exception as error:  # the learner's code: show what went wrong instead of breaking the panel
        return None, f"your function raised {type(error).__name__}: {error}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"your function returned {value!r}; it should return a number of bytes"
    return value, ""


def trapezoid_reading(points, width, layers, formula=None):
    """Measure ``torch.trapezoid(ScalarNet(width, layers)(x), x)`` on ``points`` nodes (float32, CPU).

    ``formula(points, width, layers)``, if given, is the learner's prediction of the network's saved
    activations (the meter files trapezoid's spacings ``diff(x)`` with the activations too: the reading
    takes them out); the reading holds its answer and its relative error.

    >>> r = trapezoid_reading(1001, 8, 1, formula=lambda n, w, l: n * w * l * 4)
    >>> r.activations, r.formula_error
    (32032, 0.0)
    """
    net, x = ScalarNet(width, layers), grid(points)
    with LiveTensors() as live, GraphMemory() as graph:
        integral = torch.trapezoid(net(x), x)
        activations, saved = graph.by_kind["activations"] - spacing_bytes(points), graph.bytes
    del integral
    answer, note = _ask(formula, points, width, layers)
    return TrapezoidReading(points, width, layers, activations, saved, live.peak, answer, note)


def trapezoid(formula=None) -> Explorer:
    """Explorer for notebook 03: points x width x layers, measured, next to ``formula`` (yours).

    Cap: at most 20,001 points x width 128 x 4 layers, about 41 MB of activations: every setting
    re-measures in a fraction of a second and fits any laptop, and the law is already exact there.
    """
    return Explorer("Trapezoid through a network", {"points": ("points", POINTS, 2001), "width": ("width", WIDTHS, 32),
                                                    "layers": ("hidden layers", LAYERS, 2)},
                    lambda points, width, layers: trapezoid_reading(points, width, layers, formula),
                    cap="20,001 points x width 128 x 4 layers (41 MB of activations) keeps each move well under 1 s")
