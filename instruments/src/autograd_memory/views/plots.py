"""Pictures of traces: a timeline per meter, and runs compared side by side (matplotlib, imported lazily).

>>> from autograd_memory import Trace
>>> leaky, fixed = Trace("leaky"), Trace("fixed")
>>> for step in range(3):
...     leaky.record(step, live=4000 * step)
...     fixed.record(step, live=0)
>>> figure = plot_trace(leaky)                       # e.g. plot_trace(gauge.trace)
>>> figure = compare_traces({"leaky": leaky, "fixed": fixed})
>>> figure.axes[0].get_legend().get_texts()[0].get_text()
'leaky: +4.00 kB/step'

Sizes read in decimal units on the axes (``format_bytes``), each legend entry carries its growth per
step, and fonts are large enough for a screen; in the large display set
(:func:`~autograd_memory.formats.display_settings.use_large`) they are the lecture sizes, at least 16 px, and a legend
lists at most 4 runs, the first ones given.
"""
from typing import TYPE_CHECKING, Callable, Optional

from ..formats.display_settings import SIZES_PX, is_large, points
from ..formats.units import format_bytes
from ..measuring import meter_registry
from ..measuring.trace import Trace
from ..optional.extras import require

if TYPE_CHECKING:  # matplotlib is imported only when a picture is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_trace", "compare_traces", "log_axis", "log_bytes", "bytes_axis"]

FONT = {"title": 15, "label": 13, "ticks": 11, "legend": 12, "suptitle": 16}  # points, outside lecture mode
_LECTURE_ROLE = {"title": "axes.titlesize", "label": "axes.labelsize", "ticks": "xtick.labelsize",
                 "legend": "legend.fontsize", "suptitle": "figure.titlesize"}


def _size(role, default=None):
    """A text role's font size in points: ``default`` (or FONT's) normally, the lecture size in lecture mode."""
    return points(SIZES_PX[_LECTURE_ROLE[role]]) if is_large() else default or FONT[role]


def bytes_axis(ax, xlabel="step"):
    """Label an axis for projectors: step along x, human-readable sizes along y."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_bytes(value)))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel, fontsize=_size("label"))
    ax.set_ylabel("memory (bytes, 1 kB = 1,000 B)", fontsize=_size("label"))
    ax.tick_params(labelsize=_size("ticks"))
    ax.grid(alpha=0.3)


def _growth_label(name, trace, meter):
    return f"{name}: {format_bytes(trace.growth_per_step(meter), signed=True)}/step"


def _figure(panels, title, width_per_panel, height, vertical=False):
    plt = require("matplotlib.pyplot", "plotting a trace")

    shape = (panels, 1) if vertical else (1, panels)
    size = (width_per_panel, height * panels) if vertical else (width_per_panel * panels, height)
    fig, axes = plt.subplots(*shape, figsize=size, squeeze=False, sharex=vertical)
    fig.suptitle(title, fontsize=_size("suptitle"), fontweight="bold")
    return fig, list(axes.flat)


def plot_trace(trace: Trace, meters: Optional[list] = None, title: Optional[str] = None) -> "Figure":
    """One timeline per meter, stacked, with the growth per step in each legend. Returns the figure."""
    meters = [name for name in (meters or trace.values) if trace.series(name)[0]]
    if not meters:
        raise ValueError(f"{trace!r} has no samples to plot")
    fig, axes = _figure(len(meters), title or trace.name or "Memory per step", 9, 3.6 if is_large() else 2.6, vertical=True)
    for ax, meter in zip(axes, meters):
        steps, values = trace.series(meter)
        ax.plot(steps, values, marker="o" if len(steps) < 30 else None, linewidth=2,
                label=_growth_label(meter_registry.label(meter), trace, meter))
        ax.set_title(meter_registry.label(meter), fontsize=_size("title"))
        ax.legend(fontsize=_size("legend"), loc="upper left")
        bytes_axis(ax)
    fig.tight_layout()
    return fig


def compare_traces(traces: dict, meters: Optional[list] = None, title: str = "Leaky vs fixed") -> "Figure":
    """Runs side by side: one panel per meter, every run drawn in it, its growth per step in the legend.

    ``traces``: ``{"leaky": trace_a, "fixed": trace_b}``. ``meters`` defaults to the exact meters
    (``live``, ``saved``) that every trace has, else every meter they share. Returns the figure.
    """
    if not traces:
        raise ValueError("compare_traces needs at least one trace, e.g. {'leaky': a, 'fixed': b}")
    shared = [name for name in next(iter(traces.values())).values if all(name in t.values for t in traces.values())]
    if meters is None:
        meters = [name for name in ("live", "saved") if name in shared] or shared
    missing = [name for name in meters if name not in shared]
    if missing or not meters:
        raise ValueError(f"not every trace has the meter(s) {missing or meters}; they share: {shared or 'none'}")
    fig, axes = _figure(len(meters), title, 7, 4.5)
    for ax, meter in zip(axes, meters):
        for name, trace in traces.items():
            steps, values = trace.series(meter)
            ax.plot(steps, values, linewidth=2.5, label=_growth_label(name, trace, meter))
        ax.set_title(meter_registry.label(meter), fontsize=_size("title"))
        ax.legend(fontsize=_size("legend"), loc="upper left")
        bytes_axis(ax)
    fig.tight_layout()
    return fig


def log_axis(ax: "Axes", label: Callable[[float], str] = format_bytes) -> None:
    """A log y axis with ticks at 1, 2, 5 x 10^k, labelled by ``label`` (sizes in bytes by default):
    for values that differ by orders of magnitude, e.g. the methods of notebook 05."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: label(value)))
    ax.yaxis.set_minor_formatter(NullFormatter())


def log_bytes(figure: "Figure", steps: int) -> None:
    """Put a :func:`compare_traces` figure on log byte axes over its first ``steps`` steps, legends beside
    the panels: notebook 05's leaks differ by a factor of 600, which a linear axis flattens to zero.

    >>> from autograd_memory import Trace
    >>> small, big = Trace("small"), Trace("big")
    >>> for step in range(3):
    ...     small.record(step, live=1000 + step)
    ...     big.record(step, live=600_000 * (step + 1))
    >>> figure = compare_traces({"small": small, "big": big}, meters=["live"])
    >>> log_bytes(figure, steps=3)
    >>> figure.axes[0].get_yscale()
    'log'
    """
    figure.set_size_inches(11, 4.5)
    for ax in figure.axes:
        log_axis(ax)
        ax.set_xlim(-0.5, steps)
        ax.legend(fontsize=_size("legend", 10), loc="upper left", bbox_to_anchor=(1.02, 1))
    figure.tight_layout()
