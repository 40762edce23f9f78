"""Notebook 06's explorer: Laplacian method x input dimension d -> peak memory and time, measured live at small
sizes and drawn over ``data/laplacian_cpu.json`` (examples: :func:`laplacian_reading`, :func:`laplacian_methods`)."""
import html
import io
from dataclasses import dataclass, field

import torch

from autograd_memory.formats.units import format_bytes
from autograd_memory.measuring.measurement import time_call

from ..problems import laplacians, pinn
from ..problems.models import TanhMLP
from ..teaching import lecture
from .panel import Explorer, bytes_html, rows_html

__all__ = ["DIMENSIONS", "LaplacianReading", "laplacian_reading", "laplacian_methods"]

DIMENSIONS = (2, 4, 8, 16, 32)
LIVE_POINTS, LIVE_WIDTH, LIVE_DEPTH = 128, 32, 3


@dataclass
class LaplacianReading:
    """One residual + backward step of ``method`` at input dimension ``d``, measured live."""

    method: str
    d: int
    peak: int  # LiveTensors.peak of the step
    saved: object  # GraphMemory.peak, or None for torch.func methods (they refuse the graph meter)
    ms: float  # fastest of a few runs
    measured: dict = field(default_factory=dict)  # {(method, d): (peak, ms)} measured so far in this explorer
    reference: dict = None  # data/laplacian_cpu.json
    figures: dict = None  # this explorer's figures drawn since its last measurement, by (method, lecture mode)

    def text(self):
        saved = format_bytes(self.saved) if self.saved is not None else "n/a (torch.func refuses the graph meter)"
        return "\n".join([f"{self.method}, d = {self.d} ({LIVE_POINTS} points, width {LIVE_WIDTH} x {LIVE_DEPTH})",
                          f"  peak live  {format_bytes(self.peak)}", f"  saved      {saved}",
                          f"  time       {self.ms:.1f} ms per residual + backward"])

    def html(self):
        rows = [("method", html.escape(self.method)), ("dimension d", str(self.d)),
                ("peak live (LiveTensors)", bytes_html("peak", self.peak)),
                ("saved (GraphMemory)", bytes_html("saved", self.saved) if self.saved is not None else "n/a (torch.func)"),
                ("time per step", f"{self.ms:.1f} ms")]
        return rows_html(rows) + self.figure_svg()

    def figure_svg(self):
        """Peak and time against d: the reference data's lines, and this explorer's live points on top. A figure
        shows the method, not d: the static explorer's frames of one method share one drawing (0.3 s each)."""
        key = (self.method, lecture.is_on())
        if self.figures is None:
            return self._draw()
        if key not in self.figures:
            self.figures[key] = self._draw()
        return self.figures[key]

    def _draw(self):
        import matplotlib
        from matplotlib.figure import Figure

        figure = Figure(figsize=(7.5, 4.2))
        axes = figure.subplots(1, 2)
        if self.reference:
            options = self.reference["options"]
            for row_method in dict.fromkeys(row["method"] for result in self.reference["results"] for row in result["rows"]):
                dims = [result["d"] for result in self.reference["results"]]
                rows = [next(r for r in result["rows"] if r["method"] == row_method) for result in self.reference["results"]]
                style = dict(lw=2.5, alpha=0.9) if row_method == self.method else dict(lw=1, alpha=0.35)
                axes[0].plot(dims, [r["peak_bytes"] for r in rows], "-", **style)
                axes[1].plot(dims, [r["ms"] for r in rows], "-", label=row_method, **style)
            reference_label = (f"lines: data/laplacian_cpu.json (N={options['n']:,}, "
                               f"width {options['width']} x {options['depth']})")
        else:
            reference_label = "no reference data found"
        live = sorted((d, peak, ms) for (method, d), (peak, ms) in self.measured.items() if method == self.method)
        for ax, values in ((axes[0], [peak for _, peak, _ in live]), (axes[1], [ms for _, _, ms in live])):
            ax.plot([d for d, _, _ in live], values, "o--", color="black", label=f"live (N={LIVE_POINTS})")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("input dimension d")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("peak bytes")
        axes[1].set_ylabel("ms per step")
        handles, labels = axes[1].get_legend_handles_labels()
        others = ""
        if lecture.is_on():  # a lecture's legend names the chosen method and the live points only
            kept = [i for i, label in enumerate(labels) if label == self.method or label.startswith("live")]
            others = f"faint: the other {len(labels) - len(kept)} methods"
            handles, labels = [handles[i] for i in kept], [labels[i] for i in kept]
        figure.legend(handles, labels, loc="lower center", ncol=2, fontsize=7, frameon=False, title=others or None)
        figure.suptitle(reference_label, fontsize=8)
        figure.subplots_adjust(left=0.1, right=0.97, bottom=0.38, top=0.9, wspace=0.3)  # tight_layout costs ~0.1 s
        if lecture.is_on():
            lecture.readable(figure, dpi=96)  # SVG text is in points, shown at 96 CSS px per inch
        buffer = io.StringIO()
        with matplotlib.rc_context({"svg.fonttype": "none"}):  # text as text: a third faster, and smaller
            figure.savefig(buffer, format="svg")
        svg = buffer.getvalue()
        return svg[svg.index("<svg"):]


def laplacian_reading(method, d, repeats=1):
    """One residual + backward step of ``laplacians.METHODS[method]`` at dimension ``d``, measured live.

    A generic tanh MLP ``(d + 1) -> 32 x 3 -> 1`` on 128 points (d space dimensions and time), as
    in notebook 05's scaling table: peak live bytes, peak saved bytes (``None`` for
    ``torch.func``), and the fastest of ``repeats`` timed steps (after one warm-up step).

    >>> r = laplacian_reading("forward Laplacian (one pass)", 2, repeats=1)
    >>> r.peak > 0 and r.saved > 0
    True
    """
    if method not in laplacians.METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, laplacians.METHODS))}, got {method!r}")
    net = TanhMLP(d + 1, width=LIVE_WIDTH, hidden_layers=LIVE_DEPTH)
    points = torch.rand(LIVE_POINTS, d + 1, generator=torch.Generator().manual_seed(d))
    laplacian = laplacians.METHODS[method]
    peak, saved = laplacians.step_memory(net, points, laplacian)

    def step():
        net.zero_grad(set_to_none=True)
        pinn.residual_loss(net, points, method=laplacian).backward()

    ms = time_call(step, repeats=repeats) * 1e3
    return LaplacianReading(method, d, peak, saved, ms)


def laplacian_methods() -> Explorer:
    """Explorer for the Laplacian notebook: method x input dimension d, measured live, over the reference data.

    Cap: 128 points through a ``(d + 1) -> 32 x 3 -> 1`` MLP, d <= 32: the slowest method at d = 32
    still re-measures in well under a second; larger sizes are what ``benchmarks/laplacian.py``
    measured into ``data/laplacian_cpu.json``, drawn as the lines. The static explorer (slides, decks)
    measures nested autograd, the forward Laplacian and Hutchinson at d = 2, 8, 32 (the scaling table's),
    9 of the 25 settings: the whole grid takes about 25 s on 2 busy cores, these about 5 s.

    >>> explorer = laplacian_methods()             # in a notebook, display it: the panel
    >>> reading = explorer.update(method="torch.func vmap(hessian)", d=8)
    >>> reading.saved is None, reading.peak > 0    # torch.func refuses the graph meter
    (True, True)
    """
    reference = laplacians.load_benchmarks().get("cpu")
    measured, figures = {}, {}

    def compute(method, d):
        reading = laplacian_reading(method, d)
        measured[method, d] = (reading.peak, reading.ms)
        figures.clear()  # a figure draws every live point: one measured since is missing from it
        reading.measured, reading.reference, reading.figures = measured, reference, figures
        return reading

    methods = tuple(name for name in laplacians.METHODS if "separate" not in name)  # the same as one input, 10x slower at d = 32
    forward = next(name for name, method in laplacians.METHODS.items() if method is laplacians.laplacian_forward)
    static = (laplacians.laplacian_nested, laplacians.laplacian_forward, laplacians.laplacian_hutchinson)
    shown = tuple(name for name in methods if laplacians.METHODS[name] in static)
    return Explorer("Which Laplacian", {"method": ("method", methods, forward),
                                        "d": ("dimension d", DIMENSIONS, 2)},
                    compute, cap=f"{LIVE_POINTS} points, width {LIVE_WIDTH} x {LIVE_DEPTH}, d <= 32: under 1 s a move",
                    grid={"method": shown, "d": (2, 8, 32)})
