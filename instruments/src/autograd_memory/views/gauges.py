"""A live memory gauge: watch the meters move while a loop runs, then keep a static summary.

>>> gauge = MemoryGauge(meters=("live", "saved"), title="a leaky loop")
>>> history = []
>>> for batch in gauge.track(range(100)):            # outside a notebook: a text summary at the end
...     history.append(torch.zeros(1000))     # 4 kB a step, kept forever
a leaky loop: 100 of 100 steps · live growth +4.00 kB/step · finished
  meter               last      peak      growth
  live tensors        400.0 kB  400.0 kB  +4.00 kB/step
  saved for backward  0 B       0 B       0 B/step
>>> gauge.trace.growth_per_step("live")
4000.0

In a notebook the gauge is an ipywidgets panel: one row per meter with a bar, the value, the peak
and a sparkline, and a status line (step, growth per step, budget). It redraws at most
``max_redraws_per_second`` times (10) plus once at the end, so drawing does not slow a fast loop.
When the loop ends it displays a static summary (HTML and text) that stays readable where widgets
do not render (GitHub, nbconvert). Outside a kernel (a script) it only prints that summary. In lecture
mode (:func:`~autograd_memory.formats.display_settings.use_large`) the panel is HTML replaced in place (live in the RISE
slideshow too, where ipywidgets do not load; its last frame is the summary), and its text is 24 px.

Meters: ``saved`` (:class:`GraphMemory`) and ``live`` (:class:`LiveTensors`, or
:func:`memory_budget` when ``budget`` is set) are read at every sample; the device's counters
(``rss``, ``cuda_allocated``, ``cuda_reserved``, from :func:`device_memory`) cost a system call,
so they are read at each redraw and stay ``None`` in the trace in between.
"""
import contextlib
import enum
import html
import time
import weakref

import torch

from ..formats import display_settings
from ..formats.units import format_bytes
from ..measuring.budget import memory_budget
from ..measuring.meter_registry import EXACT, METERS
from ..measuring.meters import device_memory
from ..measuring.trace import Trace
from ..optional.extras import require
from ..optional.ipython_internals import in_kernel as _in_kernel
from ..optional.ipython_internals import shell as _shell

__all__ = ["MemoryGauge", "GaugeModel", "GaugeStatus", "GaugeSummary"]

LIVE_ONLY = "amlab_live_only"  # output metadata: a view only a live kernel shows (tools/handouts.py drops it)
GROWTH_WINDOW = 1000  # the status line's growth per step looks at most this many samples back
_now = time.monotonic  # the throttle's clock (tests replace it)


_titles_shown = {}  # title -> (the cell run that showed it, how many times): see _unique_title


def _unique_title(title):
    """``title``, numbered (``"keeps x (2)"``) when gauges of the same cell run already showed it: two gauges made by
    one helper on one slide stay apart. Outside a kernel, or in a new cell run, the title as it is.

    >>> _unique_title("a loop"), _unique_title("a loop")   # no kernel here: no cell runs to tell apart
    ('a loop', 'a loop')
    """
    shell = _shell() if _in_kernel() else None
    run = getattr(shell, "execution_count", None)
    if run is None:
        return title
    last_run, times = _titles_shown.get(title, (None, 0))
    times = times + 1 if last_run == run else 1
    _titles_shown[title] = (run, times)
    return title if times == 1 else f"{title} ({times})"


def _show(obj):
    """Display ``obj`` in a kernel (HTML and text), print it anywhere else."""
    if _in_kernel():
        from IPython.display import display
        display(obj)
    else:
        print(obj)


def _sparkline_svg(values, width=120, height=22, colour="#1f77b4"):
    """A tiny inline SVG line of ``values`` (at most 60 points), for the gauge and the summary."""
    values = [v for v in values if v is not None]
    if len(values) > 60:
        stride = len(values) / 60
        values = [values[int(i * stride)] for i in range(60)] + [values[-1]]
    if len(values) < 2:
        return f"<svg width='{width}' height='{height}'></svg>"
    low, high = min(values), max(values)
    span = (high - low) or 1
    points = " ".join(f"{i * (width - 2) / (len(values) - 1) + 1:.1f},{height - 2 - (v - low) * (height - 4) / span:.1f}"
                      for i, v in enumerate(values))
    return (f"<svg width='{width}' height='{height}'><polyline fill='none' stroke='{colour}' "
            f"stroke-width='1.5' points='{points}'/></svg>")


def _nice_ceiling(n):
    """The smallest 1, 2 or 5 times a power of ten that is >= n: a bar's scale that grows in steps."""
    scale = 1
    while True:
        for factor in (1, 2, 5):
            if factor * scale >= n:
                return factor * scale
        scale *= 10


def _budget_level(fraction):
    """Colour of the budgeted row: green, then orange from 70 %, red from 90 % or when crossed."""
    return "danger" if fraction >= 0.9 else "warning" if fraction >= 0.7 else "success"


_COLOURS = {"success": "#2e7d32", "warning": "#ef6c00", "danger": "#c62828", "info": "#1565c0"}


class GaugeStatus(str, enum.Enum):
    """How a gauge's last run stands. A ``str``, so ``gauge.status == "finished"`` reads naturally."""

    NOT_STARTED = "not started"
    RUNNING = "running"
    FINISHED = "finished"
    LEFT_EARLY = "left the loop early"
    OVER_BUDGET = "stopped: over budget"
    STOPPED = "stopped by an exception"

    def __str__(self):
        return self.value


class GaugeModel:
    """What a gauge knows, with no display: its meters, the samples (``trace``), how the run stands.

    >>> model = GaugeModel(meters=("live",))
    >>> model.start()
    >>> kept = torch.zeros(1000)
    >>> model.sample(0)
    >>> model.stop(None, None)
    >>> model.status, model.trace.values["live"]
    (<GaugeStatus.FINISHED: 'finished'>, [4000])
    """

    def __init__(self, meters=tuple(METERS), budget=None, title="Memory"):
        if not meters:
            raise ValueError(f"a gauge needs at least one meter; the gauge knows: {', '.join(METERS)}")
        if budget is not None and budget <= 0:
            raise ValueError(f"budget is a positive number of bytes, got {budget!r}")
        unknown = [name for name in meters if name not in METERS]
        if unknown:
            raise ValueError(f"unknown meter(s) {', '.join(map(repr, unknown))}; "
                             f"the gauge knows: {', '.join(METERS)}")
        if budget is not None and "live" not in meters:
            raise ValueError("a budget applies to the live meter: add 'live' to meters")
        self.meters = tuple(meters)
        self._exact = tuple(METERS[name] for name in self.meters if METERS[name].exact)  # read at every sample
        self.budget = budget
        self.title = title
        self.shown_title = None  # the title a view shows: ``title``, numbered when a cell shows it twice (_unique_title)
        self.trace = Trace(title)
        self.instruments = {}  # this run's exact meters, by name (a memory_budget for "live" when budgeted)
        self.status = GaugeStatus.NOT_STARTED
        self.error = ""  # the exception that stopped the run, as "KeyError: 'missing'"
        self.steps_started = 0  # items handed to the loop body (track); samples count completed steps
        self.total = None  # the loop's length, when known
        self.available = {}
        self.device_peaks = {}
        self._included = []
        self._stack = None

    live = property(lambda self: self.instruments.get("live"))
    graph = property(lambda self: self.instruments.get("saved"))

    @property
    def running(self):
        return self._stack is not None

    def include(self, *items):
        """Count tensors or ``nn.Module`` s that existed before the loop in the live meter (weakly held)."""
        for item in items:
            if isinstance(item, (list, tuple)):
                self.include(*item)
            elif isinstance(item, (torch.Tensor, torch.nn.Module)):
                self._included.append(weakref.ref(item))
                if self.live is not None and self.live.active:
                    self.live.track(item)
            else:
                raise TypeError(f"include() takes tensors, nn.Modules or lists of them; got {type(item).__name__}")

    def start(self, total=None):
        """Enter fresh meters and start a fresh trace."""
        if self._stack is not None:
            raise RuntimeError("this gauge is already running; a gauge drives one loop at a time")
        self.instruments = {name: METERS[name].instrument() for name in EXACT}
        if self.budget is not None:
            self.instruments["live"] = memory_budget(self.budget)
        self.trace = Trace(self.title)
        self.status, self.error = GaugeStatus.RUNNING, ""
        self.steps_started, self.total = 0, total
        self.device_peaks = {}
        on_device = device_memory()
        self.available = {name: METERS[name].exact or name in on_device for name in self.meters}
        with contextlib.ExitStack() as stack:  # the live meter first: a graph meter inside it shares its record of births
            if "live" in self.meters:
                stack.enter_context(self.live)
                self.live.track(*(obj for obj in (ref() for ref in self._included) if obj is not None))
            if "saved" in self.meters:
                stack.enter_context(self.graph)
            self._stack = stack.pop_all()

    def sample(self, step=None, label=None, device=False):
        """Record the exact meters (and the device's counters when ``device``) after a step."""
        if self._stack is None:
            raise RuntimeError("sample() needs a running gauge: call it inside `with gauge:` or a track() loop")
        if step is None:
            step = self.trace.steps[-1] + 1 if self.trace.steps else 0
        readings = self.exact_readings()
        if device:
            readings.update(self.device_readings())
        self.trace.record(step, label, **readings)

    def stop(self, exc_type, exc, tb=None, left_early=False):
        """Exit the meters (whatever happened) and settle the status."""
        stack, self._stack = self._stack, None
        readings = {**self.exact_readings(), **self.device_readings()}
        if not self.trace.steps:
            self.trace.record(0, "end", **readings)
        else:  # the last completed step gets the device's counters as they are now
            for name, value in readings.items():
                series = self.trace.values.get(name)
                if series and series[-1] is None:
                    series[-1] = value
        if exc_type is not None and exc_type is not GeneratorExit:
            self.error = f"{exc_type.__name__}: {exc}"
        if self.budget is not None and self.live.peak > self.budget:
            self.status = GaugeStatus.OVER_BUDGET
        elif self.error:
            self.status = GaugeStatus.STOPPED
        elif left_early:
            self.status = GaugeStatus.LEFT_EARLY
        else:
            self.status = GaugeStatus.FINISHED
        stack.__exit__(exc_type, exc, tb)  # exits the meters; may turn the error into a clearer one

    # ------------------------------------------------------------ readings
    def exact_readings(self):
        return {meter.name: meter.read(self.instruments[meter.name]) for meter in self._exact}

    def device_readings(self):
        wanted = [name for name in self.meters if not METERS[name].exact and self.available.get(name)]
        if not wanted:
            return {}
        on_device = device_memory()
        readings = {name: METERS[name].read(on_device) for name in wanted}
        for name, value in readings.items():
            self.device_peaks[name] = max(value, self.device_peaks.get(name, value))
        return readings

    def peak(self, name):
        """Exact meters know their own peak (between samples too); device counters: the highest sample."""
        return METERS[name].peak(self.instruments.get(name), self.device_peaks.get(name))

    def last(self, name):
        series = self.trace.values.get(name, [])
        return next((v for v in reversed(series) if v is not None), None)

    def growth(self, name):
        skip = max(0, len(self.trace) - GROWTH_WINDOW)
        return self.trace.growth_per_step(name, skip=skip) if name in self.trace.values else 0.0

    def budget_fraction(self):
        stopped = self.status is GaugeStatus.OVER_BUDGET
        return max(self.live.bytes, self.live.peak if stopped else 0) / self.budget

    # ------------------------------------------------------------ words
    @property
    def steps_completed(self):
        """Samples taken (the one ``end`` record of a run that took none does not count)."""
        return 0 if self.trace.labels == ["end"] else len(self.trace)

    def _steps(self, n, of=None):
        return f"{n}" + (f" of {of}" if of is not None else "") + (" step" if (of or n) == 1 else " steps")

    def outcome(self):
        """The run's end in words (empty while it runs)."""
        done = self.steps_completed
        if self.status is GaugeStatus.OVER_BUDGET:
            return (f"stopped after {self._steps(done)}: live tensors reached {format_bytes(self.live.peak)}, over "
                    f"the budget of {format_bytes(self.budget)} (MemoryBudgetExceeded)")
        if self.status is GaugeStatus.STOPPED:
            return f"stopped after {self._steps(done)}: {self.error}"
        if self.status is GaugeStatus.LEFT_EARLY:
            return (f"left the loop during step {self.steps_started}"
                    + (f" of {self.total}" if self.total is not None else "")
                    + f" (a break, or an exception in the loop body); {self._steps(done)} completed")
        return "" if self.status is GaugeStatus.RUNNING else self.status.value

    def status_line(self):
        done = self.steps_completed
        main = "live" if "live" in self.meters else self.meters[0]
        window = f" (last {GROWTH_WINDOW:,} samples)" if len(self.trace) > GROWTH_WINDOW else ""
        parts = [self._steps(done, of=self.total),
                 f"{main} growth {format_bytes(self.growth(main), signed=True)}/step{window}"]
        if self.budget is not None:
            parts.append(f"budget {format_bytes(self.budget)} ({self.budget_fraction():.0%} used)")
        if self.outcome():
            parts.append(self.outcome())
        return " · ".join(parts)

    def level(self):
        """The status line's colour: budget use, then how the run ended."""
        level = _budget_level(self.budget_fraction()) if self.budget is not None else "info"
        if self.status in (GaugeStatus.OVER_BUDGET, GaugeStatus.STOPPED):
            level = "danger"
        elif self.status is GaugeStatus.LEFT_EARLY:
            level = "warning"
        return level

    def shown_meters(self):
        """The meters a view shows: all of them; in lecture mode only those this machine has (a CPU gauge on a
        slide has no "not available here" rows for CUDA)."""
        if display_settings.is_large():
            return [name for name in self.meters if self.available.get(name, False)] or list(self.meters[:1])
        return list(self.meters)

    def summary(self):
        """The static summary of the last run: HTML table in a notebook, aligned text elsewhere."""
        rows = []
        for name in self.shown_meters():
            if not self.available.get(name, False):
                rows.append((METERS[name].label, "not available here", "", "", ""))
                continue
            series = self.trace.values.get(name, [])
            rows.append((METERS[name].label, format_bytes(self.last(name)), format_bytes(self.peak(name)),
                         format_bytes(self.growth(name), signed=True) + "/step", _sparkline_svg(series)))
        return GaugeSummary(self.shown_title or self.title, rows, self.status_line())


class _WidgetView:
    """The ipywidgets panel of a :class:`GaugeModel`: a row per meter, a status line."""

    def __init__(self, model):
        w = require("ipywidgets", "the gauge's widget view")

        self.model = model
        self.cells = {}
        # ipywidgets' own font-size style; the em widths below grow with it (lecture mode: readable on a projector)
        text = {"style": {"font_size": f"{display_settings.WIDGET_PX}px"}} if display_settings.is_large() else {}
        rows = []
        for name in model.shown_meters():
            label = w.Label(METERS[name].label, layout=w.Layout(width="11em"), **text)
            if not model.available[name]:
                na = w.HTML("<i>not available here</i>", **text).add_class("amlab-gauge-na")
                rows.append(w.HBox([label, na]).add_class("amlab-gauge-row").add_class(f"amlab-gauge-{name}"))
                continue
            self.cells[name] = (w.FloatProgress(value=0, min=0, max=1, layout=w.Layout(width="14em")),
                                w.HTML(layout=w.Layout(width="7em"), **text).add_class("amlab-gauge-value"),
                                w.HTML(layout=w.Layout(width="9em"), **text).add_class("amlab-gauge-peak"),
                                w.HTML(**text).add_class("amlab-gauge-spark"))
            rows.append(w.HBox([label, *self.cells[name]]).add_class("amlab-gauge-row").add_class(f"amlab-gauge-{name}"))
        title = w.HTML(f"<b>{html.escape(model.shown_title)}</b>", **text)
        self.status = w.HTML(**text).add_class("amlab-gauge-status")
        self.box = w.VBox([title, *rows, self.status]).add_class("amlab-gauge")
        if _in_kernel():
            from IPython.display import display
            bundle = self.box._repr_mimebundle_()
            bundle["text/plain"] = f"MemoryGauge {model.title!r} (a live widget; the summary below stays readable)"
            # a page without a kernel (the decks, the site) drops this output: the summary below stands for it
            display(bundle, raw=True, metadata={LIVE_ONLY: True})

    def redraw(self):
        model = self.model
        for name, (bar, value, peak, spark) in self.cells.items():
            row = _Row(model, name)
            with bar.hold_sync():
                bar.max, bar.value, bar.bar_style = row.scale, min(row.last or 0, row.scale), row.level
            value.value, peak.value, spark.value = row.value_html, row.peak_text, row.spark
        self.status.value = _status_html(model)


class _Row:
    """What a view shows of one meter now: its last reading (exact bytes in the value's title), peak, bar and colour."""

    def __init__(self, model, name):
        self.last, top = model.last(name), model.peak(name)
        if model.budget is not None and name == "live":
            # lecture mode scales the bar to the run's own peak, so that growth shows on a slide (a few kB of a
            # 20 MB budget would stay at 0 %); the budget's share is the colour and the status line's "(N % used)"
            self.level = _budget_level(model.budget_fraction())
            self.scale = _nice_ceiling(max(top or 0, 1)) if display_settings.is_large() else model.budget
        else:
            self.level, self.scale = "info", _nice_ceiling(max(top or 0, 1))
        self.value_html = (f"<span title='{self.last:,} bytes'>{format_bytes(self.last)}</span>"
                           if self.last is not None else "n/a")
        self.peak_text = f"peak {format_bytes(top)}"
        self.spark = _sparkline_svg(model.trace.values.get(name, [])[-200:], colour=_COLOURS[self.level])


def _status_html(model):
    return f"<span style='color:{_COLOURS[model.level()]}'>{html.escape(model.status_line())}</span>"


class _HtmlView:
    """The same panel as plain HTML, displayed once and replaced in place at each redraw (``update_display_data``):
    live in any Jupyter front end, also where ipywidgets cannot load. jupyterlab-rise 0.43.1's slideshow is such a
    place (its app lacks the ``@jupyterlab/console`` that ipywidgets 8's manager needs), so lecture mode uses this view.
    Same classes as the widget view (``.amlab-gauge-live .amlab-gauge-value span``, exact bytes in its title); its
    last frame stays in a saved notebook, so no separate summary is shown after it."""

    def __init__(self, model):
        self.model = model
        self.handle = None
        if _in_kernel():
            from IPython.display import display
            self.handle = display(self.bundle(), raw=True, display_id=True)

    def bundle(self):
        """The panel now: HTML, and as text the status line while it runs, the summary's text once it ended."""
        done = not self.model.running
        return {"text/html": self.html(), "text/plain": str(self.model.summary()) if done else self.model.status_line()}

    def html(self):
        model = self.model
        size = f"font-size:{display_settings.WIDGET_PX}px;" if display_settings.is_large() else ""
        cell = "<td style='padding:0.1em 0.6em 0.1em 0;text-align:{}' class='{}'>{}</td>"
        rows = []
        for name in model.shown_meters():
            label = cell.format("left", "amlab-gauge-label", html.escape(METERS[name].label))
            if not model.available.get(name, False):
                rows.append(f"<tr class='amlab-gauge-row amlab-gauge-{name}'>{label}"
                            f"<td colspan='4' class='amlab-gauge-na'><i>not available here</i></td></tr>")
                continue
            row = _Row(model, name)
            fill = 100 * min(row.last or 0, row.scale) / row.scale
            bar = (f"<div style='background:#e0e0e0;width:14em;height:0.8em'><div style='background:"
                   f"{_COLOURS[row.level]};width:{fill:.1f}%;height:100%'></div></div>")
            rows.append(f"<tr class='amlab-gauge-row amlab-gauge-{name}'>{label}{cell.format('left', 'amlab-gauge-bar', bar)}"
                        f"{cell.format('right', 'amlab-gauge-value', row.value_html)}"
                        f"{cell.format('right', 'amlab-gauge-peak', row.peak_text)}"
                        f"{cell.format('left', 'amlab-gauge-spark', row.spark)}</tr>")
        # the size goes on the table too: JupyterLab's own CSS gives tables in an output a font size of their own
        return (f"<div class='amlab-gauge' style='{size}line-height:1.4'><b>{html.escape(model.shown_title)}</b>"
                f"<table style='{size}border-collapse:collapse'>{''.join(rows)}</table>"
                f"<div class='amlab-gauge-status'>{_status_html(model)}</div></div>")

    def redraw(self):
        if self.handle is not None:
            self.handle.update(self.bundle(), raw=True)


class _Tracked:
    """What :meth:`MemoryGauge.track` returns: iterate it once. Each ``for`` loop gets its own generator,
    which only the loop holds, so leaving the loop early (``break``) closes it at once and the meters
    are exited then, even when this object is kept (``it = gauge.track(...)``)."""

    def __init__(self, gauge, iterable, total):
        self.gauge, self.iterable, self.total = gauge, iterable, total

    def __len__(self):
        if self.total is None:
            raise TypeError("this loop's length is not known")
        return self.total

    def __iter__(self):
        gauge = self.gauge
        gauge.__enter__()
        gauge.model.total = self.total
        left_early = True
        try:
            for step, item in enumerate(self.iterable):
                gauge.model.steps_started += 1
                yield item
                gauge.sample(step)
            left_early = False
        except BaseException as error:
            if not isinstance(error, GeneratorExit):
                gauge._finish(type(error), error, error.__traceback__)
                raise
        gauge._finish(None, None, None, left_early=left_early)


class MemoryGauge:
    """Live gauges of the course's meters around a loop, with the samples kept in ``gauge.trace``.

    Three ways to drive it::

        for batch in gauge.track(loader):     # tqdm-like; a generator of unknown length is fine
            ...
        with gauge:                           # a manual loop: sample when a step is done
            for step in range(n):
                ...
                gauge.sample(step)

    ``meters``: any of :data:`~autograd_memory.measuring.meter_registry.METERS` (``saved``, ``live``, ``rss``,
    ``cuda_allocated``, ``cuda_reserved``); a meter this machine does not have (CUDA on a CPU box) is shown as "not
    available here". ``budget`` (bytes): the live meter becomes a :func:`memory_budget`, its row turns orange then
    red as the budget nears, and crossing it stops the loop with ``MemoryBudgetExceeded`` (the gauge says why).
    Tensors that exist before the loop (a model, inputs) are counted with :meth:`include`.

    Every run (each ``with`` or ``track``) enters fresh meters and starts a fresh ``trace``; the
    meters are exited when the loop ends, however it ends (a ``break`` included). ``mode``:
    ``"auto"`` (widgets in a kernel, HTML redisplayed in place in lecture mode, text elsewhere), ``"widget"``,
    ``"html"`` or ``"text"``. The gauge is a :class:`GaugeModel` (``gauge.model``: meters, samples, ``status``)
    shown by a view.
    """

    def __init__(self, meters=tuple(METERS), budget=None, title="Memory", max_redraws_per_second=10, mode="auto"):
        if max_redraws_per_second <= 0:
            raise ValueError(f"max_redraws_per_second must be positive, got {max_redraws_per_second}")
        if mode not in ("auto", "widget", "html", "text"):
            raise ValueError(f"mode must be 'auto', 'widget', 'html' or 'text', got {mode!r}")
        self.model = GaugeModel(meters, budget, title)
        self.min_interval = 1.0 / max_redraws_per_second
        self.mode = mode
        self.redraws = 0
        self.view = None  # a _WidgetView or _HtmlView while a kernel shows the gauge
        self._next_draw = float("-inf")

    # the model's state, read through the gauge
    meters = property(lambda self: self.model.meters)
    budget = property(lambda self: self.model.budget)
    title = property(lambda self: self.model.title)
    trace = property(lambda self: self.model.trace)
    live = property(lambda self: self.model.live)
    graph = property(lambda self: self.model.graph)
    status = property(lambda self: self.model.status, doc="A :class:`GaugeStatus`.")

    @property
    def _widgets(self):
        return {"cells": self.view.cells, "status": self.view.status} if isinstance(self.view, _WidgetView) else None

    # ------------------------------------------------------------ driving it
    def include(self, *items):
        """Count tensors or ``nn.Module`` s that existed before the loop in the live meter (weakly held).

        Returns the gauge: ``for x in gauge.include(model, data).track(loader):``.
        """
        self.model.include(*items)
        return self

    def track(self, iterable, total=None):
        """Yield the items of ``iterable`` with the gauge running; sample after each step's body."""
        if total is None and hasattr(iterable, "__len__"):
            total = len(iterable)
        return _Tracked(self, iterable, total)

    def __enter__(self):
        self.model.start()
        self.redraws, self._next_draw = 0, float("-inf")
        self.model.shown_title = _unique_title(self.model.title)
        view = self.mode
        if view == "auto":
            view = ("html" if display_settings.is_large() else "widget") if _in_kernel() else "text"
        try:
            self.view = {"widget": _WidgetView, "html": _HtmlView}[view](self.model) if view != "text" else None
        except BaseException as error:  # e.g. ipywidgets not installed: the meters must not stay installed
            self.model.stop(type(error), error, error.__traceback__)
            raise
        return self

    def sample(self, step=None, label=None):
        """Record the meters after a step (``step`` defaults to the last one plus one); redraw if due."""
        now = _now() if self.model.running else None
        due = now is not None and now >= self._next_draw
        self.model.sample(step, label, device=due)
        if due:
            self._next_draw = now + self.min_interval
            self._redraw()

    def __exit__(self, exc_type, exc, tb):
        self._finish(exc_type, exc, tb)
        return False

    def _finish(self, exc_type, exc, tb, left_early=False):
        try:
            self.model.stop(exc_type, exc, tb, left_early)
        finally:
            self._redraw()
            if not (isinstance(self.view, _HtmlView) and self.view.handle is not None):  # its last frame is the summary
                _show(self.summary())

    def _redraw(self):
        self.redraws += 1
        if self.view is not None:
            self.view.redraw()

    def summary(self):
        """The static summary of the last run: HTML table in a notebook, aligned text elsewhere."""
        return self.model.summary()

    def __repr__(self):
        return f"<MemoryGauge {self.title!r} {self.status}: {len(self.trace)} samples of {', '.join(self.meters)}>"


class GaugeSummary:
    """What a finished gauge leaves behind: readable in a saved notebook, on GitHub, in a terminal."""

    HEADER = ("meter", "last", "peak", "growth")

    def __init__(self, title, rows, status):
        self.title, self.rows, self.status = title, rows, status

    def __str__(self):
        table = [self.HEADER] + [row[:4] for row in self.rows]
        widths = [max(len(row[i]) for row in table) for i in range(4)]
        lines = [f"{self.title}: {self.status}"]
        lines += ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in table]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        head = "".join(f"<th>{cell}</th>" for cell in self.HEADER) + "<th>history</th>"
        body = "".join("<tr>" + "".join(f"<td style='text-align:{'left' if i == 0 else 'right'}'>"
                                        f"{cell if i == 4 else html.escape(cell)}</td>"
                                        for i, cell in enumerate(row)) + "</tr>" for row in self.rows)
        size = f" style='font-size:{display_settings.WIDGET_PX}px'" if display_settings.is_large() else ""
        return (f"<table class='amlab-gauge-summary'{size}><caption style='text-align:left'><b>{html.escape(self.title)}</b>: "
                f"{html.escape(self.status)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
