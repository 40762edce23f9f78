"""Lecture mode: plots, gauges and tables readable from the back row of a lecture hall.

One switch, :func:`lecture_style`. ``make present`` sets ``AMLAB_LECTURE=1``, and ``import course_utils``
then switches it on in every kernel, so the notebooks need no change. While it is on:

* every matplotlib text is at least :data:`MIN_PX` pixels high at the figure's dpi (``points * dpi / 72``),
  ticks and legends included; figures made with pyplot get :func:`lecture_layout`, which also keeps at most
  :data:`MAX_LEGEND_ENTRIES` entries per legend (the first ones, in the order the plot gave them; the others
  are drawn grey and named in the legend's title) and lays the figure out again with the larger text;
* a live gauge in a kernel is HTML replaced in place, which stays live in the RISE slideshow, where ipywidgets
  do not load, with :data:`WIDGET_PX` pixel text (``gauges.py``); the explorers' text and figure grow too;
* a :class:`~autograd_memory.Table` displays its key rows, or its first :data:`TABLE_ROWS`, and a line
  "… N more rows" (``tables.py``).

The sizes are the instruments' large display set (``autograd_memory.display_settings``), which
:func:`lecture_style` switches on; this module adds what a lecture hall needs of matplotlib itself.

>>> import matplotlib
>>> lecture_style()                                  # on (again: it can be re-run)
>>> is_on(), matplotlib.rcParams["xtick.labelsize"] * matplotlib.rcParams["figure.dpi"] / 72 >= MIN_PX
(True, True)
>>> lecture_style(False)                             # the settings from before, back
>>> is_on()
False
"""
import textwrap

from autograd_memory import display_settings

# the instruments' large display set (a projector's sizes): what lecture mode switches on
MIN_PX, SIZES_PX, MAX_LEGEND_ENTRIES = display_settings.MIN_PX, display_settings.SIZES_PX, display_settings.MAX_LEGEND_ENTRIES
TABLE_ROWS, WIDGET_PX, points = display_settings.TABLE_ROWS, display_settings.WIDGET_PX, display_settings.points

__all__ = ["lecture_style", "is_on", "readable", "points", "lecture_layout", "ENV_VAR", "MIN_PX", "SIZES_PX",
           "MAX_LEGEND_ENTRIES", "TABLE_ROWS", "WIDGET_PX"]

ENV_VAR = "AMLAB_LECTURE"  # "1" (``make present``): ``import course_utils`` switches lecture mode on
GREY = "#b0b0b0"  # series left out of a capped legend
_HOOK = f"{__name__}:_lecture_figure"  # rcParams["figure.hooks"] entry: every new pyplot figure
_saved = None  # the rcParams lecture_style changed, as they were before; None while lecture mode is off


def is_on() -> bool:
    """True while lecture mode is on."""
    return _saved is not None


def lecture_style(on: bool = True) -> None:
    """Switch lecture mode on (``lecture_style()``) or off (``lecture_style(False)``, which restores the
    matplotlib settings it changed). Re-running it with the same argument changes nothing more."""
    global _saved
    import matplotlib

    rc = matplotlib.rcParams
    display_settings.use_large(on)
    if not on:
        if _saved is not None:
            rc.update(_saved)
            _saved = None
        return
    if _saved is None:
        _saved = {key: rc[key] for key in (*SIZES_PX, "figure.hooks")}
    rc.update({key: points(px) for key, px in SIZES_PX.items()})
    rc["figure.hooks"] = [hook for hook in _saved["figure.hooks"] if hook != _HOOK] + [_HOOK]


def _floor_pt(dpi):
    return MIN_PX * 72 / dpi


def readable(figure, dpi: float = None) -> None:
    """Make ``figure`` projector-readable in place: legends capped at :data:`MAX_LEGEND_ENTRIES` (the rest
    grey, named in the legend's title), then every text raised to at least :data:`MIN_PX` pixels at ``dpi``
    (default: the figure's). Running it again changes nothing. Pyplot figures get it at every draw while
    lecture mode is on (:func:`lecture_layout`); call it yourself on a ``Figure`` made without pyplot.

    >>> from matplotlib.figure import Figure
    >>> figure = Figure(dpi=100)
    >>> ax = figure.subplots()
    >>> for k in range(6):
    ...     _ = ax.plot([0, 1], [k, k], label=f"run {k}")
    >>> _ = ax.legend(fontsize=8)
    >>> readable(figure)
    >>> [text.get_text() for text in ax.get_legend().get_texts()], ax.get_legend().get_title().get_text()
    (['run 0', 'run 1', 'run 2', 'run 3'], 'grey: run 4, run 5')
    >>> ax.get_legend().get_texts()[0].get_fontsize() * 100 / 72 >= MIN_PX
    True
    """
    from matplotlib.text import Text

    floor = _floor_pt(dpi or figure.dpi)
    for legend in [ax.get_legend() for ax in figure.axes] + list(figure.legends):
        if legend is not None and len(legend.texts) > MAX_LEGEND_ENTRIES:
            _cap(figure, legend)
    for ax in figure.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            for which, ticks in (("major", axis.get_major_ticks()), ("minor", axis.get_minor_ticks())):
                if ticks and ticks[0].label1.get_fontsize() < floor:
                    ax.tick_params(axis=name, which=which, labelsize=floor)  # also for ticks made later
    for text in figure.findobj(Text):
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)


def _cap(figure, legend):
    """Keep a legend's first entries; grey the others' series and name them in the legend's title."""
    labels = [text.get_text() for text in legend.texts]
    kept, dropped = labels[:MAX_LEGEND_ENTRIES], labels[MAX_LEGEND_ENTRIES:]
    title = legend.get_title().get_text()
    # Legend has no public way to drop entries: rebuild its box in place, so that it keeps its place, columns
    # and style (tests/test_lecture_style.py guards this against a matplotlib that changes _init_legend_box).
    legend._init_legend_box(legend.legend_handles[:MAX_LEGEND_ENTRIES], kept)
    legend._set_loc(legend._loc)  # the new box is placed as the old one was
    note = textwrap.fill("grey: " + ", ".join(dropped), width=48)
    legend.set_title(f"{title}\n{note}" if title else note)
    for ax in figure.axes:
        for artist in [*ax.lines, *ax.collections]:
            if artist.get_label() in dropped:
                artist.set_color(GREY)
                artist.set_zorder(artist.get_zorder() - 0.5)


_ENGINE = None  # the layout engine's class, made on first use (matplotlib is imported only then)


def lecture_layout(inner=None):
    """A matplotlib layout engine that makes the figure readable (:func:`readable`) at each draw while lecture mode
    is on, then runs the layout engine it wraps (``inner``; tight by default: larger text needs the room).
    Lecture mode gives one to every new pyplot figure.

    >>> import matplotlib.pyplot as plt
    >>> figure = plt.figure(layout=lecture_layout())
    >>> type(figure.get_layout_engine().inner).__name__
    'TightLayoutEngine'
    >>> plt.close(figure)
    """
    return _engine_class()(inner)


def _engine_class():
    global _ENGINE
    if _ENGINE is None:
        from matplotlib.layout_engine import LayoutEngine, TightLayoutEngine

        class LectureLayout(LayoutEngine):
            def __init__(self, inner=None):
                super().__init__()
                self.wrap(inner or TightLayoutEngine())

            def wrap(self, inner):
                self.inner = inner
                self._adjust_compatible, self._colorbar_gridspec = inner.adjust_compatible, inner.colorbar_gridspec

            def set(self, **kwargs):
                self.inner.set(**kwargs)

            def get(self):
                return self.inner.get()

            def execute(self, fig):
                if is_on():
                    readable(fig)
                self.inner.execute(fig)
                if is_on() and isinstance(self.inner, TightLayoutEngine) and _room_for_figure_legends(fig, self.inner):
                    self.inner.execute(fig)

        _ENGINE = LectureLayout
    return _ENGINE


def _room_for_figure_legends(figure, tight):
    """Tight layout leaves figure legends out: when one below (above) the axes overlaps them, move the bottom (top)
    of the layout's rect past it. Returns whether the rect changed."""
    if not figure.legends or not figure.axes:
        return False
    to_figure = figure.transFigure.inverted()
    axes = [ax.get_tightbbox().transformed(to_figure) for ax in figure.axes if ax.get_visible()]
    low, high = min(box.y0 for box in axes), max(box.y1 for box in axes)
    left, bottom, right, top = tight.get()["rect"]
    pad = 0.01
    for legend in figure.legends:
        box = legend.get_window_extent().transformed(to_figure)
        if box.y1 + box.y0 < low + high and box.y1 > low:  # below the middle, reaching into the axes
            bottom = max(bottom, box.y1 + pad)
        elif box.y1 + box.y0 > low + high and box.y0 < high:
            top = min(top, box.y0 - pad)
    if (bottom, top) == tuple(tight.get()["rect"])[1::2] or bottom >= top:
        return False
    tight.set(rect=(left, bottom, right, top))
    return True


def _lecture_figure(figure):
    """``rcParams["figure.hooks"]`` while lecture mode is on: a new pyplot figure gets :func:`lecture_layout` around
    its own layout engine, and its ``tight_layout()`` (which by design drops any engine) re-wraps a tight one."""
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import TightLayoutEngine

    engine = figure.get_layout_engine()
    if not isinstance(engine, _engine_class()):
        engine = lecture_layout(engine)
        figure.set_layout_engine(engine)

    def tight_layout(**kwargs):
        if figure.get_layout_engine() is not engine:  # replaced since: the plain method
            return Figure.tight_layout(figure, **kwargs)
        engine.wrap(TightLayoutEngine(**kwargs))
        engine.execute(figure)

    figure.tight_layout = tight_layout
