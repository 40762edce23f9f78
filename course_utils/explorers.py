"""Explorers: a panel per idea, controls on the left, the *measured* result on the right.

Each explorer is a function that returns an :class:`Explorer`. In a notebook it shows as an
ipywidgets panel that re-measures when a control is released (``continuous_update=False``);
anywhere else it prints its current reading as text. Every reading comes from the course's exact
meters, never from a formula; the compute functions are plain Python that tests call directly:

* :func:`graph_lifecycle` (notebook 01): step a graph through forward, backward and ``del``
  (plain, ``retain_graph=True``, ``create_graph=True``); the picture greys freed nodes;
* :func:`trapezoid` (notebook 03): points x width x layers -> saved bytes and peak, next to
  the learner's own formula;
* :func:`euler_window` (notebook 04): truncation window k -> peak graph memory and the
  gradient's error against full backpropagation;
* :func:`laplacian_methods` (notebook 06): Laplacian method x input dimension d -> peak memory
  and time, measured live at small sizes and drawn over ``data/laplacian_cpu.json``.

>>> explorer = trapezoid()
>>> reading = explorer.update(points=1001, width=16, layers=2)
>>> reading.activations == 1001 * 16 * 2 * 4          # measured by GraphMemory
True
>>> print(explorer)                                   # doctest: +ELLIPSIS
Trapezoid through a network: 1,001 points, width 16, 2 hidden layers
  saved activations  128.1 kB (GraphMemory)
...

Sizes are capped (each explorer's ``cap`` says where and why): every setting re-measures in
well under a second on two CPU cores and holds at most tens of MB.
"""
import gc
import html
import io
import time
import warnings
from dataclasses import dataclass, field

import torch

from . import lecture
from autograd_memory.graphs import lifecycle
from .integrate import ScalarNet, grid, spacing_bytes
from autograd_memory.meters import GraphMemory, LiveTensors
from .models import TanhMLP
from autograd_memory.tables import ShowsAsText
from autograd_memory.units import format_bytes

__all__ = ["Explorer", "graph_lifecycle", "lifecycle_moments", "Moment", "trapezoid", "trapezoid_reading",
           "TrapezoidReading", "euler_window", "EulerWindows", "EulerReading", "laplacian_methods",
           "laplacian_reading", "LaplacianReading"]


# NOTE [ONE_THREAD]: every reading is taken on one torch thread. The tensors are tiny, and on a
# busy 2-core machine a second OpenMP thread spins waiting for the first: 04's window test took
# 38 s on two threads under load and 0.3 s on one. data/laplacian_cpu.json was measured on one too.


class Explorer(ShowsAsText):
    """Controls, a compute function and its last reading. Made by the explorer functions below.

    ``controls``: ``{name: (label, options, start value)}``; ``compute(**settings)`` returns a
    reading with ``text()`` and ``html()``. :meth:`update` re-measures headless (what the widget
    calls on every release); ``seconds`` is how long the last one took.
    """

    def __init__(self, title, controls, compute, cap):
        self.title, self.controls, self._compute, self.cap = title, controls, compute, cap
        self.settings = {name: value for name, (_, _, value) in controls.items()}
        self.reading, self.seconds = None, None
        self.update()

    def update(self, **settings):
        """Re-measure with some settings changed; returns the new reading."""
        for name, value in settings.items():
            if name not in self.controls:
                raise ValueError(f"{self.title!r} has no control {name!r}; its controls: {', '.join(self.controls)}")
            options = self.controls[name][1]
            if value not in options:
                raise ValueError(f"{name}={value!r} is outside this explorer's range {list(options)} ({self.cap})")
        wanted = {**self.settings, **settings}
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # see ONE_THREAD
        try:
            start = time.perf_counter()
            self.reading = self._compute(**wanted)
            self.seconds = time.perf_counter() - start
        finally:
            torch.set_num_threads(threads)
        self.settings = wanted  # only once measured: settings and reading always belong together
        return self.reading

    def __str__(self):
        return self.reading.text()

    def widget(self):
        """The ipywidgets panel: controls left (re-measure on release), measured readout right."""
        import ipywidgets as w

        inputs = {}
        for name, (label, options, value) in self.controls.items():
            common = dict(description=label, value=self.settings[name], style={"description_width": "7em"},
                          layout=w.Layout(width="21em"))
            if all(isinstance(option, int) for option in options):
                control = w.SelectionSlider(options=[(f"{option:,}", option) for option in options],
                                            continuous_update=False, **common)
            else:
                control = w.Dropdown(options=list(options), **common)
            inputs[name] = control.add_class(f"amlab-explorer-{name}")
        text = {"style": {"font_size": f"{lecture.WIDGET_PX}px"}} if lecture.is_on() else {}  # lecture: projector text
        readout = w.HTML(self.reading.html(), **text).add_class("amlab-explorer-readout")
        status = w.HTML(self._status(), **text).add_class("amlab-explorer-status")

        def changed(_):
            try:
                self.update(**{name: control.value for name, control in inputs.items()})
            except Exception as error:  # say so in the panel: an error in a widget callback is easily missed
                status.value = (f"<span style='color:#c62828'>could not measure this setting: "
                                f"{html.escape(type(error).__name__)}: {html.escape(str(error))}</span>")
                return
            readout.value, status.value = self.reading.html(), self._status()

        for control in inputs.values():
            control.observe(changed, names="value")
        left = w.VBox([w.HTML(f"<b>{html.escape(self.title)}</b>", **text), *inputs.values(), status],
                      layout=w.Layout(width="23em", min_width="23em"))
        return w.HBox([left, readout]).add_class("amlab-explorer")

    def _status(self):
        return (f"<small>measured in {self.seconds * 1e3:.0f} ms. Cap: {html.escape(self.cap)}</small>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget()._repr_mimebundle_()
        bundle["text/plain"] = str(self)
        return bundle


def _rows_html(rows):
    body = "".join(f"<tr><td style='text-align:left'>{html.escape(label)}</td><td style='text-align:right'>{value}</td></tr>"
                   for label, value in rows)
    return f"<table>{body}</table>"


def _bytes_html(name, nbytes):
    """A byte count for the readout: readable text, the exact count in its title (what the browser test reads)."""
    return f"<span class='amlab-explorer-{name}' title='{nbytes:,} bytes'>{format_bytes(nbytes)}</span>"


# ---------------------------------------------------------------------------------------------
# 01 · the graph lifecycle

VARIANTS = {
    "backward()": ("after forward", "after backward()", "a second backward() raises", "after del loss"),
    "backward(retain_graph=True)": ("after forward", "after backward(retain_graph=True)", "after a second backward()",
                                    "after del loss"),
    "backward(create_graph=True)": ("after forward", "after backward(create_graph=True)", "after del loss + gc.collect()",
                                    "after p.grad = None"),
}


@dataclass
class Moment:
    """One moment of a graph's life: what the graph meter and the live meter read, and the picture."""

    label: str
    saved: int  # GraphMemory.bytes
    live: int  # LiveTensors.bytes (tensors created since the forward started)
    view: object = None  # graphs.GraphView, None once the output is deleted
    note: str = ""

    def text(self):
        picture = self.view.table.caption() if self.view is not None else "output deleted: nothing to draw from it"
        lines = [f"{self.label}: saved for backward {format_bytes(self.saved)}, live tensors {format_bytes(self.live)}",
                 f"  graph: {picture}"]
        return "\n".join(lines + ([f"  {self.note}"] if self.note else []))

    def html(self):
        rows = [("saved for backward (GraphMemory)", _bytes_html("saved", self.saved)),
                ("live tensors (LiveTensors)", _bytes_html("live", self.live))]
        picture = self.view._repr_html_() if self.view is not None else "<p><i>output deleted: nothing to draw from it</i></p>"
        note = f"<p>{html.escape(self.note)}</p>" if self.note else ""
        return f"<div><h4>{html.escape(self.label)}</h4>{_rows_html(rows)}{note}{picture}</div>"


def _small_model(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                                torch.nn.Linear(16, 1))
    return model, torch.randn(32, 2)


def lifecycle_moments(variant):
    """The four moments of one graph's life for ``variant`` (a key of ``VARIANTS``), measured.

    Notebook 01's small MLP (2 -> 16 -> 16 -> 1, a batch of 32) computes ``loss``; then backward
    runs as the variant says, and ``loss`` is deleted. Each moment reads ``GraphMemory`` and
    ``LiveTensors`` and draws the graph with :func:`~course_utils.graphs.lifecycle`.

    PyTorch warns about the ``create_graph=True`` cycle once per process (a C++ warn-once): this
    function silences it, but uses it up, so a notebook that asserts the warning runs it first.

    >>> [moment.saved > 0 for moment in lifecycle_moments("backward()")]
    [True, False, False, False]
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(repr, VARIANTS))}, got {variant!r}")
    labels = iter(VARIANTS[variant])
    model, batch = _small_model()
    params = dict(model.named_parameters())
    moments = []
    with warnings.catch_warnings(), GraphMemory() as graph, LiveTensors() as live:
        warnings.simplefilter("ignore")  # backward(create_graph=True) warns about the cycle it makes: that is the lesson

        def take(note=""):
            label = next(labels)
            moments.append(Moment(label, graph.bytes, live.bytes, snaps.take(label), note))

        loss = model(batch).pow(2).mean()
        snaps = lifecycle({"loss": loss}, params)
        take()
        if variant == "backward()":
            loss.backward()
            take()
            try:
                loss.backward()
                note = "it ran (unexpected)"
            except RuntimeError as error:
                note = "RuntimeError: " + str(error).split(" (or directly")[0]
            take(note)
        elif variant == "backward(retain_graph=True)":
            loss.backward(retain_graph=True)
            take()
            loss.backward()
            take()
        else:
            loss.backward(create_graph=True)
            take("each p.grad now has a grad_fn: the graph of the backward pass hangs on the parameters")
        del loss
        gc.collect()
        if variant == "backward(create_graph=True)":
            take("del loss freed nothing: param.grad -> graph -> param is a cycle the garbage collector cannot see")
            for p in model.parameters():
                p.grad = None
        take()
    return moments


def graph_lifecycle():
    """Explorer for notebook 01: a variant of backward, and a slider over the graph's moments.

    Cap: the notebook's 2 -> 16 -> 16 -> 1 MLP on 32 points (a 13-node picture): the lesson is
    which nodes are freed when, and a bigger graph would only make the picture unreadable.
    """
    cache = {}

    def compute(variant, moment):
        if variant not in cache:
            cache[variant] = lifecycle_moments(variant)
        return cache[variant][moment - 1]

    return Explorer("Graph lifecycle", {"variant": ("backward", tuple(VARIANTS), "backward()"),
                                        "moment": ("moment", (1, 2, 3, 4), 1)},
                    compute, cap="notebook 01's 2-16-16-1 MLP on 32 points: a picture you can read")


# ---------------------------------------------------------------------------------------------
# 03 · the trapezoid integral through a network

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
                ("saved activations (GraphMemory)", _bytes_html("activations", self.activations)),
                ("saved in all", _bytes_html("saved", self.saved)),
                ("peak live (LiveTensors)", _bytes_html("peak", self.peak)),
                ("your formula", f"<span style='color:{colour}' class='amlab-explorer-formula'>"
                                 f"{html.escape(self._formula_line())}</span>")]
        return _rows_html(rows)


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


def trapezoid(formula=None):
    """Explorer for notebook 03: points x width x layers, measured, next to ``formula`` (yours).

    Cap: at most 20,001 points x width 128 x 4 layers, about 41 MB of activations: every setting
    re-measures in a fraction of a second and fits any laptop, and the law is already exact there.
    """
    return Explorer("Trapezoid through a network", {"points": ("points", POINTS, 2001), "width": ("width", WIDTHS, 32),
                                                    "layers": ("hidden layers", LAYERS, 2)},
                    lambda points, width, layers: trapezoid_reading(points, width, layers, formula),
                    cap="20,001 points x width 128 x 4 layers (41 MB of activations) keeps each move well under 1 s")


# ---------------------------------------------------------------------------------------------
# 04 · truncated backpropagation through Euler steps

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
                ("peak graph memory (GraphMemory)", _bytes_html("peak", self.peak_saved)),
                ("full backprop's peak", _bytes_html("full-peak", self.full_peak_saved)),
                ("gradient error |g_k − g| / |g|", f"<span class='amlab-explorer-error'>{self.relative_error:.1%}</span>"),
                ("gradient length vs full", f"{self.length_ratio:.1%}"),
                ("cosine with full", f"{self.cosine:.3f}")]
        bar = (f"<div style='background:#eee;width:16em'><div style='background:#c62828;height:0.8em;"
               f"width:{min(1.0, self.relative_error) * 100:.0f}%'></div></div>")
        return _rows_html(rows) + f"<p>gradient error {bar}</p>"


class EulerWindows:
    """Notebook 04's Euler problem (``checks.nb04_euler_ode_truncation.euler_problem``) and its full-backprop gradient, computed once.

    The cosine with full backprop stays near 1 on these dynamics (truncation here mostly *shrinks*
    the gradient: it drops the earlier steps' contributions, which point the same way), so the
    reading leads with the relative error ``||g_k - g|| / ||g||``, where the bias is plain.
    """

    def __init__(self):
        from .checks.nb04_euler_ode_truncation import DT, euler_problem
        from .ode import full_backprop_gradient

        self.field, self.x0, self.targets = euler_problem()
        self.dt = DT
        with GraphMemory() as graph:
            self.full = full_backprop_gradient(self.field, self.x0, self.targets, self.dt)
        self.full_peak = graph.peak

    def reading(self, window):
        from .ode import cosine_similarity, truncated_gradient

        with GraphMemory() as graph:
            gradient = truncated_gradient(self.field, self.x0, self.targets, self.dt, window)
        full_length = self.full.norm().item()
        return EulerReading(window, len(self.targets), graph.peak, self.full_peak,
                            (gradient - self.full).norm().item() / full_length,
                            cosine_similarity(gradient, self.full), gradient.norm().item() / full_length)


def euler_window():
    """Explorer for notebook 04: the truncation window k -> peak graph memory and gradient error.

    Cap: notebook 04's problem (60 steps, 64 states, width 64, about 1 MB of graph at k = 60): the
    window is the only knob, and each move re-runs 60 tiny steps.
    """
    problem = EulerWindows()
    return Explorer("Truncated backprop through Euler steps", {"window": ("window k", WINDOWS, 1)},
                    problem.reading, cap="notebook 04's 60 steps x 64 states x width 64 (about 1 MB of graph)")


# ---------------------------------------------------------------------------------------------
# 06 · which Laplacian: method x dimension, live and from the shipped reference data

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

    def text(self):
        saved = format_bytes(self.saved) if self.saved is not None else "n/a (torch.func refuses the graph meter)"
        return "\n".join([f"{self.method}, d = {self.d} ({LIVE_POINTS} points, width {LIVE_WIDTH} x {LIVE_DEPTH})",
                          f"  peak live  {format_bytes(self.peak)}", f"  saved      {saved}",
                          f"  time       {self.ms:.1f} ms per residual + backward"])

    def html(self):
        rows = [("method", html.escape(self.method)), ("dimension d", str(self.d)),
                ("peak live (LiveTensors)", _bytes_html("peak", self.peak)),
                ("saved (GraphMemory)", _bytes_html("saved", self.saved) if self.saved is not None else "n/a (torch.func)"),
                ("time per step", f"{self.ms:.1f} ms")]
        return _rows_html(rows) + self.figure_svg()

    def figure_svg(self):
        """Peak and time against d: the reference data's lines, and this explorer's live points on top."""
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
            reference_label = f"lines: data/laplacian_cpu.json (N={options['n']:,}, width {options['width']} x {options['depth']})"
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
    from . import laplacians, pinn
    from autograd_memory.measurement import time_call

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


def laplacian_methods():
    """Explorer for the Laplacian notebook: method x input dimension d, measured live, over the reference data.

    Cap: 128 points through a ``(d + 1) -> 32 x 3 -> 1`` MLP, d <= 32: the slowest method at d = 32
    still re-measures in well under a second; larger sizes are what ``benchmarks/laplacian.py``
    measured into ``data/laplacian_cpu.json``, drawn as the lines.

    >>> explorer = laplacian_methods()             # in a notebook, display it: the panel
    >>> reading = explorer.update(method="torch.func vmap(hessian)", d=8)
    >>> reading.saved is None, reading.peak > 0    # torch.func refuses the graph meter
    (True, True)
    """
    from . import laplacians

    reference = laplacians.load_benchmarks().get("cpu")
    measured = {}

    def compute(method, d):
        reading = laplacian_reading(method, d)
        measured[method, d] = (reading.peak, reading.ms)
        reading.measured, reading.reference = measured, reference
        return reading

    methods = tuple(name for name in laplacians.METHODS if "separate" not in name)  # the same as one input, 10x slower at d = 32
    forward = next(name for name, method in laplacians.METHODS.items() if method is laplacians.laplacian_forward)
    return Explorer("Which Laplacian", {"method": ("method", methods, forward),
                                        "d": ("dimension d", DIMENSIONS, 2)},
                    compute, cap=f"{LIVE_POINTS} points, width {LIVE_WIDTH} x {LIVE_DEPTH}, d <= 32: under 1 s a move")
