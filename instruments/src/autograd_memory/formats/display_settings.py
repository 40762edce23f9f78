"""Display settings the instruments read: text sizes, rows a table shows, legend entries, the gauge's text.

Two sets: the everyday one, and a large one for a projector (``use_large()``; the course's
``lecture_style()`` switches it on). Plots, gauges and tables read :func:`is_large` when they draw.

>>> use_large(); is_large(), points(16, dpi=72)
(True, 16.0)
>>> use_large(False); is_large()
False
"""
import math

__all__ = ["use_large", "is_large", "points", "MIN_PX", "SIZES_PX", "MAX_LEGEND_ENTRIES", "TABLE_ROWS", "REPORT_ROWS",
           "WIDGET_PX"]

MIN_PX = 16  # the smallest text on a projected slide, in pixels as displayed
SIZES_PX = {  # matplotlib text roles -> pixels in the large set (the defaults are 10 pt = 13.9 px at 100 dpi)
    "font.size": 18, "axes.titlesize": 22, "axes.labelsize": 20, "xtick.labelsize": 18, "ytick.labelsize": 18,
    "legend.fontsize": 18, "legend.title_fontsize": 18, "figure.titlesize": 24, "figure.labelsize": 20,
}
MAX_LEGEND_ENTRIES = 4  # a legend's entries in the large set; the others are drawn grey and named
TABLE_ROWS = 12  # rows a table displays in the large set unless it names its key rows
REPORT_ROWS = 2  # rows of a leak report in the large set (each is a paragraph): the largest, the others named by count
# the gauges' text in the large set: the slides' floor (the course's tools/rise.css gives every other text >= 24 px)
WIDGET_PX = 24
_large = False


def use_large(on: bool = True) -> None:
    """Switch the large (projector) set on or off."""
    global _large
    _large = bool(on)


def is_large() -> bool:
    """True while the large set is on."""
    return _large


def points(px: float, dpi: float = None) -> float:
    """The font size in points that is ``px`` pixels high at ``dpi`` (default: ``rcParams["figure.dpi"]``).

    >>> points(16, dpi=72), points(18, dpi=100)
    (16.0, 12.96)
    """
    if dpi is None:
        import matplotlib
        dpi = matplotlib.rcParams["figure.dpi"]
    return math.ceil(px * 72 / dpi * 100) / 100  # rounded up: never under px
