"""A meter over time: samples per step, the growth per step, and a check that memory stays flat.

>>> trace = Trace("leaky loop")
>>> for step in range(5):
...     trace.record(step, live=1000 + 400 * step, saved=0)
>>> trace.growth_per_step("live")
400.0
>>> trace.assert_flat("saved")
>>> Trace.from_json(trace.to_json()).values["live"][-1]
2600
"""
import json
import math
from typing import Optional, Sequence

from ..formats.tables import Table
from ..formats.units import format_bytes

__all__ = ["Trace", "NotFlatError", "LEAK_HINT", "least_squares_slope", "convergence_order"]


def least_squares_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Slope of the least-squares line through the points ``(xs[i], ys[i])``; 0 when it is undefined.

    >>> least_squares_slope([0, 1, 2], [5, 7, 9])
    2.0
    """
    if len(xs) < 2:
        return 0.0
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    if var == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / var


def convergence_order(step_sizes: Sequence[float], errors: Sequence[float]) -> float:
    """Least-squares slope of ``log(error)`` against ``log(step size)``: the ``p`` in ``error ~ h**p``
    (notebooks 03 and 04 measure the trapezoid rule's 2 and Euler's 1).

    >>> round(convergence_order([0.1, 0.05, 0.025], [1e-2, 2.5e-3, 6.25e-4]), 6)
    2.0
    """
    return least_squares_slope([math.log(h) for h in step_sizes], [math.log(e) for e in errors])


LEAK_HINT = ("Something keeps tensors alive across steps: a loss kept as a tensor instead of loss.item(), "
             "an output stored without .detach(), or a graph kept with retain_graph=True/create_graph=True.")


class NotFlatError(AssertionError):
    """A meter that should stay flat grew; the message says by how much and what usually causes it."""


class Trace:
    """Samples of any meters over steps: ``record(step, label=None, **values)``.

    ``values[name]`` is a list aligned with ``steps``; a meter missing from a sample is ``None``.
    """

    def __init__(self, name: str = ""):
        self.name = name
        self.steps = []
        self.labels = []
        self.values = {}

    def __len__(self):
        return len(self.steps)

    def record(self, step: int, label: Optional[str] = None, **values) -> None:
        """Add one sample: ``trace.record(3, live=live.bytes, saved=graph.bytes)``."""
        for name in values:
            if name not in self.values:
                self.values[name] = [None] * len(self.steps)
        for name, series in self.values.items():
            series.append(values.get(name))
        self.steps.append(step)
        self.labels.append(label)

    def series(self, name: str, skip: int = 0) -> tuple:
        """(steps, values) of one meter, leaving out the first ``skip`` samples and missing values."""
        if name not in self.values:
            known = ", ".join(self.values) or "none yet"
            raise KeyError(f"this trace has no meter {name!r} (it has: {known})")
        pairs = [(s, v) for s, v in zip(self.steps[skip:], self.values[name][skip:]) if v is not None]
        return [s for s, _ in pairs], [v for _, v in pairs]

    def growth_per_step(self, name: str, skip: int = 0) -> float:
        """Least-squares slope of the meter against the step number: bytes per step."""
        steps, values = self.series(name, skip)
        slope = least_squares_slope(steps, values)
        return 0.0 if math.isclose(slope, 0.0, abs_tol=1e-9) else slope

    def assert_flat(self, name: str, tolerance_bytes: int = 0, skip: int = 0) -> None:
        """Raise :class:`NotFlatError` unless the samples (after the first ``skip``, e.g. a warm-up
        step that allocates ``.grad``) span at most ``tolerance_bytes`` from lowest to highest."""
        steps, values = self.series(name, skip)
        if not values:
            raise NotFlatError(f"{name!r} has no samples to check (skip={skip}, {len(self)} samples in all)")
        spread = max(values) - min(values)
        if spread > tolerance_bytes:
            growth = self.growth_per_step(name, skip)
            title = f" in {self.name!r}" if self.name else ""
            raise NotFlatError(
                f"{name!r}{title} is not flat: it moved by {format_bytes(spread)} over {len(values)} samples "
                f"(from {format_bytes(values[0])} to {format_bytes(values[-1])}, "
                f"{format_bytes(growth, signed=True)} per step; allowed: {format_bytes(tolerance_bytes)}). {LEAK_HINT}"
            )

    def to_dict(self) -> dict:
        return {"name": self.name, "steps": self.steps, "labels": self.labels, "values": self.values}

    def to_json(self, **dumps_kwargs) -> str:
        return json.dumps(self.to_dict(), **dumps_kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "Trace":
        trace = cls(data.get("name", ""))
        trace.steps = list(data["steps"])
        trace.labels = list(data.get("labels") or [None] * len(trace.steps))
        trace.values = {name: list(series) for name, series in data["values"].items()}
        if any(len(series) != len(trace.steps) for series in trace.values.values()):
            raise ValueError("corrupt trace: every meter needs one value (or null) per step")
        return trace

    @classmethod
    def from_json(cls, text: str) -> "Trace":
        return cls.from_dict(json.loads(text))

    def summary(self) -> Table:
        """One row per meter: last value, peak and growth per step.

        >>> trace = Trace("loop")
        >>> for step in range(3):
        ...     trace.record(step, live=1000 * (step + 1))
        >>> print(trace.summary())
        meter     last     peak  growth / step
        live   3.00 kB  3.00 kB       +1.00 kB
        Trace 'loop': 3 samples
        """
        rows = []
        for name in self.values:
            _, values = self.series(name)
            if values:
                rows.append((name, format_bytes(values[-1]), format_bytes(max(values)),
                             format_bytes(self.growth_per_step(name), signed=True)))
        return Table(("meter", "last", "peak", "growth / step"), rows, align="lrrr",
                     caption=f"Trace {self.name!r}: {len(self)} samples")

    def __repr__(self):
        return f"<Trace {self.name!r}: {len(self)} samples of {', '.join(self.values) or 'nothing'}>"
