"""An explorer as one self-contained HTML block: no widget manager, no kernel, no network.

The ipywidgets panel of :mod:`course_utils.explorers` needs a widget manager, which RISE's slideshow (jupyterlab-rise
0.43.1), the offline decks and the static site do not have. :func:`static_explorer` measures the explorer's whole
capped grid once, in the kernel, with the explorer's own compute function (every setting of every control), and
returns HTML: a range input per control, the measured readout of the chosen setting, and a few lines of plain
JavaScript that show the frame for the inputs' positions. The readouts are the explorer's own ``html()``: the same
numbers and pictures the panel shows, all measured before the page is drawn.

>>> from course_utils import explorers
>>> view = static_explorer(explorers.euler_window(), max_frames=3)   # doctest: +SKIP
>>> explorer = explorers.trapezoid()
>>> view = static_explorer(explorer, only={"width": (8, 16), "layers": (1,)}, max_frames=10)
>>> len(view.frames), view.frames[("1,001", "16", "1")] == explorer.update(points=1001, width=16, layers=1).html()
(10, True)
>>> "<input type='range'" in view._repr_html_() and "http" not in view._repr_html_()
True
"""
import html
import itertools
import json
import uuid

__all__ = ["static_explorer", "StaticExplorer", "MAX_FRAMES"]

MAX_FRAMES = 60  # readouts measured for one page: each is a real measurement (well under a second at capped sizes)

_SCRIPT = """(function () {
  var root = document.getElementById(%(id)s), frames = %(frames)s, options = %(options)s;
  var inputs = root.querySelectorAll('input.amlab-static-input');
  function show() {
    var key = [];
    inputs.forEach(function (input, i) {
      var value = options[i][Number(input.value)];
      input.parentNode.querySelector('output').textContent = value;
      key.push(value);
    });
    root.querySelector('.amlab-explorer-readout').innerHTML = frames[key.join('|')];
  }
  inputs.forEach(function (input) { input.addEventListener('input', show); });
  show();
})();"""


def _label(option):
    return f"{option:,}" if isinstance(option, int) else str(option)


class StaticExplorer:
    """What :func:`static_explorer` returns: the measured ``frames`` (a tuple of the controls' labels -> readout
    HTML) and the page block (``_repr_html_``), which shows in a notebook, on a RISE slide, in a deck and on a site."""

    def __init__(self, title, controls, frames, start, cap):
        self.title, self.controls, self.frames, self.start, self.cap = title, controls, frames, start, cap

    def __repr__(self):
        return f"<StaticExplorer {self.title!r}: {len(self.frames)} measured settings>"

    def _repr_html_(self):
        block = f"amlab-static-{uuid.uuid4().hex[:12]}"
        rows = []
        for (name, (label, options)), value in zip(self.controls.items(), self.start):
            rows.append(f"<label style='display:block;margin:0.3em 0'>{html.escape(label)} "
                        f"<input type='range' class='amlab-static-input amlab-explorer-{name}' min='0' "
                        f"max='{len(options) - 1}' step='1' value='{options.index(value)}' style='width:12em'> "
                        f"<output></output></label>")
        options = [[_label(option) for option in options] for _, options in self.controls.values()]
        frames = {"|".join(key): readout for key, readout in self.frames.items()}
        script = _SCRIPT % {"id": json.dumps(block), "frames": json.dumps(frames), "options": json.dumps(options)}
        return (f"<div id='{block}' class='amlab-explorer amlab-static-explorer' style='display:flex;gap:1.5em;"
                f"flex-wrap:wrap'><div style='min-width:18em'><b>{html.escape(self.title)}</b>{''.join(rows)}"
                f"<small>measured in the kernel, every setting: {len(self.frames)} readouts. Cap: "
                f"{html.escape(self.cap)}</small></div><div class='amlab-explorer-readout'></div></div>"
                f"<script>{script}</script>")


def static_explorer(explorer, only=None, max_frames=MAX_FRAMES):
    """Measure every setting of ``explorer`` (an :class:`~course_utils.explorers.Explorer`) and return it as a
    :class:`StaticExplorer`. ``only``: ``{control: options}`` to measure fewer settings of some controls (each a
    subset of the explorer's own). Refuses a grid of more than ``max_frames`` settings, saying how to cut it."""
    only = only or {}
    controls = {}
    for name, (label, options, _) in explorer.controls.items():
        chosen = tuple(only.get(name, options))
        outside = [option for option in chosen if option not in options]
        if outside or not chosen:
            raise ValueError(f"{name}: {outside or 'no options'} outside the explorer's own {list(options)}")
        controls[name] = (label, chosen)
    unknown = set(only) - set(controls)
    if unknown:
        raise ValueError(f"{explorer.title!r} has no control(s) {sorted(unknown)}; its controls: {', '.join(controls)}")
    grid = list(itertools.product(*(options for _, options in controls.values())))
    if len(grid) > max_frames:
        raise ValueError(f"{explorer.title!r} has {len(grid)} settings, more than max_frames={max_frames}: pass "
                         f"only={{control: (a few options)}} for some of {', '.join(controls)}")
    kept = dict(explorer.settings)
    frames = {}
    try:
        for values in grid:
            settings = dict(zip(controls, values))
            frames[tuple(_label(value) for value in values)] = explorer.update(**settings).html()
    finally:
        explorer.update(**kept)  # the explorer's own panel keeps its reading
    start = tuple(kept[name] if kept[name] in options else options[0] for name, (_, options) in controls.items())
    return StaticExplorer(explorer.title, controls, frames, start, explorer.cap)
