"""Pictures a click enlarges: a graph that a slide draws small opens at a size whose labels can be read.

A slideshow fits a tall picture to the window, and its labels shrink with it. :func:`zoomable` wraps an SVG
picture (a graphviz drawing: :func:`~autograd_memory.views.graphs.show_graph`'s, torchviz's) in HTML with a few lines of
plain JavaScript. Where the picture is drawn smaller than its own size and its smallest label under
:data:`~autograd_memory.formats.display_settings.MIN_PX` pixels, a click shows it over the whole window, as large as the
window allows but never with labels under ``MIN_PX``; the wheel, the arrow keys or a drag move it, and Esc or a
click closes it. Drawn at its own size (a notebook, a site page) the picture is left alone. No network, nothing
to install: it works in JupyterLab (trusted output), on a RISE slide, in nbconvert's decks and on a static site.

>>> picture = zoomable('<svg width="80pt" height="40pt"><text font-size="10">x</text></svg>')
>>> picture._repr_html_().startswith("<div class='amlab-zoomable'><svg")
True
"""
import re

from ..formats import display_settings
from ..formats.display_settings import MIN_PX

__all__ = ["zoomable", "ZoomablePicture", "zoomable_html"]

_SCRIPT = """(function () {
  if (window.amlabZoom) return;  // one listener per page, for every zoomable picture (also those drawn later)
  window.amlabZoom = true;
  var MIN_PX = %(min_px)s;
  function labelPx(svg) {  // the smallest label as drawn now, in px
    var px = Infinity;
    svg.querySelectorAll('text').forEach(function (text) {
      var m = text.getScreenCTM();
      if (m) px = Math.min(px, parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b));
    });
    return px;
  }
  function shrunk(picture) {  // drawn smaller than its own size, with labels under MIN_PX: worth enlarging
    var svg = picture.querySelector('svg');
    return svg && svg.getBoundingClientRect().width < 0.99 * svg.width.baseVal.value && labelPx(svg) < MIN_PX;
  }
  function open(svg) {
    var w = svg.width.baseVal.value, h = svg.height.baseVal.value;
    var natural = labelPx(svg) * w / svg.getBoundingClientRect().width;
    var k = Math.max(MIN_PX / natural, Math.min((innerWidth - 20) / w, (innerHeight - 20) / h));
    var overlay = document.createElement('div'), copy = svg.cloneNode(true), drag = null, moved = false;
    overlay.className = 'amlab-zoom';
    overlay.tabIndex = -1;
    overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:#fff;overflow:auto;' +
      'cursor:zoom-out;user-select:none;padding:10px;box-sizing:border-box;outline:none';
    copy.setAttribute('width', w * k);
    copy.setAttribute('height', h * k);
    copy.style.cssText = 'display:block;margin:0 auto;max-width:none;max-height:none';
    overlay.appendChild(copy);
    function close() { overlay.remove(); window.removeEventListener('keydown', key, true); }
    function key(event) {  // the slideshow behind gets no key while the picture is open; Esc closes it
      event.stopPropagation();
      if (event.key === 'Escape') { event.preventDefault(); close(); }
    }
    overlay.addEventListener('pointerdown', function (e) {
      drag = {x: e.clientX, y: e.clientY, left: overlay.scrollLeft, top: overlay.scrollTop}; moved = false;
    });
    overlay.addEventListener('pointermove', function (e) {
      if (!drag) return;
      moved = moved || Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 4;
      overlay.scrollLeft = drag.left - (e.clientX - drag.x);
      overlay.scrollTop = drag.top - (e.clientY - drag.y);
    });
    overlay.addEventListener('pointerup', function () { drag = null; });
    overlay.addEventListener('click', function () { if (!moved) close(); });
    window.addEventListener('keydown', key, true);
    document.body.appendChild(overlay);
    overlay.focus();
  }
  window.addEventListener('click', function (event) {
    var picture = event.target.closest && event.target.closest('.amlab-zoomable');
    if (!picture || !shrunk(picture)) return;
    event.stopPropagation();
    event.preventDefault();
    open(picture.querySelector('svg'));
  }, true);
  window.addEventListener('pointerover', function (event) {
    var picture = event.target.closest && event.target.closest('.amlab-zoomable');
    if (picture) picture.style.cursor = shrunk(picture) ? 'zoom-in' : '';
  }, true);
})();"""


def zoomable_html(svg):
    """``svg`` (SVG text) in the block a click enlarges where it is drawn small, with the script that does it."""
    return f"<div class='amlab-zoomable'>{svg}</div><script>{_SCRIPT % {'min_px': MIN_PX}}</script>"


class ZoomablePicture:
    """What :func:`zoomable` returns: the picture's ``.svg``, shown as zoomable HTML in a notebook."""

    def __init__(self, svg):
        self.svg = svg

    def _repr_html_(self):
        return zoomable_html(self.svg)


def zoomable(picture: object) -> ZoomablePicture:
    """``picture`` (SVG text, or a graphviz drawing such as ``torchviz.make_dot``'s) as a :class:`ZoomablePicture`.
    In the large display set (a projector) a picture whose labels are under ``MIN_PX`` at its size is drawn larger,
    as :func:`~autograd_memory.views.graphs.show_graph` draws its own: then a slide that has to draw it smaller makes it
    zoomable, and one with room shows it readable.

    >>> svg = '<svg width="90pt" height="60pt"><text font-size="10.00">x</text></svg>'
    >>> zoomable(svg).svg == svg
    True
    >>> display_settings.use_large()
    >>> zoomable(svg).svg.split(">")[0]             # labels of 10 pt = 13.3 px at 1:1: drawn 1.2 times larger
    '<svg width="108.00pt" height="72.00pt"'
    >>> display_settings.use_large(False)
    """
    svg = picture if isinstance(picture, str) else picture.pipe(format="svg", encoding="utf-8")
    svg = svg[svg.index("<svg"):]  # no XML prolog: the SVG goes inline in HTML
    return ZoomablePicture(_labels_min_px(svg) if display_settings.is_large() else svg)


def _labels_min_px(svg):
    """``svg`` (graphviz's: sizes in points, 96 px an inch) drawn larger where its smallest label is under MIN_PX."""
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
    factor = MIN_PX / (min(sizes) * 96 / 72) if sizes else 1
    if factor <= 1:
        return svg
    tag, rest = svg.split(">", 1)  # the <svg ...> tag: its width and height (the viewBox keeps the drawing's units)
    tag = re.sub(r'\b(width|height)="([\d.]+)pt"', lambda size: f'{size[1]}="{float(size[2]) * factor:.2f}pt"', tag)
    return f"{tag}>{rest}"
