"""An explorer as one self-contained HTML block: no widget manager, no kernel, no network.

The ipywidgets panel of :mod:`course_utils.explorers` needs a widget manager, which RISE's slideshow (jupyterlab-rise
0.43.1), the offline decks and the static site do not have. :func:`static_explorer` measures the explorer's capped
grid once, in the kernel, with the explorer's own compute function, and returns HTML: a range input per control, the
measured readout of the chosen setting, and a few lines of plain JavaScript that show the frame for the inputs'
positions. A clicker's keys (arrows, Page Up/Down, Space) always move the deck, never a control: a control takes
keys only while it is dragged, and steps one option through its own visible - and + buttons. Every explorer's
display carries it (``Explorer._repr_mimebundle_``, over the explorer's ``grid``). The
readouts are the explorer's own ``html()``: the same numbers and pictures the panel shows, all measured before the
page is drawn, and drawn once the whole grid is measured (06's figure draws every point measured so far).

>>> from course_utils import explorers
>>> explorer = explorers.trapezoid()
>>> view = static_explorer(explorer, only={"width": (8, 16), "layers": (1,)}, max_frames=10)
>>> len(view.frames), view.frames[("1,001", "16", "1")] == explorer.update(points=1001, width=16, layers=1).html()
(10, True)
>>> "<input type='range'" in view._repr_html_() and "http" not in view._repr_html_()
True
>>> static_explorer(explorer, max_frames=10)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: 'Trapezoid through a network' has 100 settings, more than max_frames=10: pass only=... of points, width, layers
"""
import html
import itertools
import json
import uuid

__all__ = ["static_explorer", "StaticExplorer", "MAX_FRAMES"]

# Readouts measured for one page: each is a real measurement (well under a second at capped sizes). 03's whole grid,
# 5 x 5 x 4 settings, takes about 1.5 s and 90 kB.
MAX_FRAMES = 100

# The keys a presenter's clicker sends (and a lecturer's arrow keys) belong to the deck: reveal.js (RISE's slideshow and
# the decks) ignores keys typed into an input, so a focused control hands each of them back, unchanged, by leaving the
# focus. A control takes keys only while it is dragged; its steps are the visible - / + buttons, which take no focus.
DECK_KEYS = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "PageUp", "PageDown", " ", "Spacebar", "Home", "End")

_SCRIPT = """(function () {
  var root = document.getElementById(%(id)s), frames = %(frames)s, options = %(options)s, deckKeys = %(keys)s;
  var inputs = root.querySelectorAll('.amlab-static-input'), dragged = null;
  function show() {
    var key = [];
    inputs.forEach(function (input, i) {
      var value = options[i][Number(input.value)], output = input.parentNode.querySelector('output');
      if (output) output.textContent = value;
      key.push(value);
    });
    root.querySelector('.amlab-explorer-readout').innerHTML = frames[key.join('|')];
  }
  inputs.forEach(function (input) {
    input.addEventListener('input', show);
    if (input.tagName === 'SELECT') {  // a list picked from with the mouse gives the keys back once picked
      input.addEventListener('change', function () { show(); input.blur(); });
    } else {
      input.addEventListener('pointerdown', function () { dragged = input; });
    }
  });
  document.addEventListener('pointerup', function () { if (dragged) { dragged.blur(); dragged = null; } });
  document.addEventListener('pointercancel', function () { if (dragged) { dragged.blur(); dragged = null; } });
  root.addEventListener('keydown', function (event) {
    if (deckKeys.indexOf(event.key) < 0 || (dragged && event.target === dragged)) return;
    event.preventDefault();  // the control stays where it is ...
    if (event.target.blur) event.target.blur();  // ... and the deck, no longer behind an input, takes the key
  }, true);
  root.querySelectorAll('.amlab-static-step').forEach(function (button) {
    button.addEventListener('mousedown', function (event) { event.preventDefault(); });  // no focus taken
    button.addEventListener('click', function () {
      var input = button.parentNode.querySelector('.amlab-static-input');
      var next = Number(input.value) + Number(button.dataset.step);
      if (input.tagName === 'SELECT') {
        input.selectedIndex = Math.max(0, Math.min(input.options.length - 1, next));
      } else {
        input.value = String(Math.max(Number(input.min), Math.min(Number(input.max), next)));
      }
      show();
    });
  });
  show();
})();"""


def _label(option):
    return f"{option:,}" if isinstance(option, int) else str(option)


class StaticExplorer:
    """What :func:`static_explorer` returns: the measured ``frames`` (a tuple of the controls' labels -> readout
    HTML) and the page block (``_repr_html_``), which shows in a notebook, on a RISE slide, in a deck and on a site.
    ``note`` says what was measured; before its script runs (or where scripts do not), the block shows ``start``."""

    def __init__(self, title, controls, frames, start, note):
        self.title, self.controls, self.frames, self.start, self.note = title, controls, frames, start, note

    def __repr__(self):
        return f"<StaticExplorer {self.title!r}: {len(self.frames)} measured settings>"

    def _repr_html_(self):
        block = f"amlab-static-{uuid.uuid4().hex[:12]}"
        rows = [f"<label style='display:block;margin:0.3em 0'>{html.escape(label)} {_control(name, options, value)}</label>"
                for (name, (label, options)), value in zip(self.controls.items(), self.start)]
        options = [[_label(option) for option in options] for _, options in self.controls.values()]
        frames = {"|".join(key): readout for key, readout in self.frames.items()}
        script = _SCRIPT % {"id": _json(block), "frames": _json(frames), "options": _json(options),
                             "keys": _json(list(DECK_KEYS))}
        shown = self.frames[tuple(_label(value) for value in self.start)]
        return (f"<div id='{block}' class='amlab-explorer amlab-static-explorer' style='display:flex;gap:1.5em;"
                f"flex-wrap:wrap'><div style='flex:0 1 16em;min-width:12em'><b>{html.escape(self.title)}</b>"
                f"{''.join(rows)}<p style='color:#555'>{html.escape(self.note)}</p></div>"
                f"<div class='amlab-explorer-readout' style='flex:1 1 20em;min-width:0'>{shown}</div></div>"
                f"<script>{script}</script>")


def _control(name, options, value):
    """A range input over the options' positions (numbers), or a list to pick from (the others), at ``value``."""
    css, index = f"amlab-static-input amlab-explorer-{name}", options.index(value)
    if all(isinstance(option, int) for option in options):
        control = (f"<input type='range' class='{css}' min='0' max='{len(options) - 1}' step='1' value='{index}' "
                   f"style='width:9em;vertical-align:middle'>")
        shown = f" <output>{html.escape(_label(value))}</output>"
    else:
        items = "".join(f"<option value='{i}'{' selected' if i == index else ''}>{html.escape(_label(option))}</option>"
                        for i, option in enumerate(options))
        control, shown = f"<select class='{css}' style='font:inherit;max-width:9em'>{items}</select>", ""
    return f"{_step(-1)}{control}{_step(+1)}{shown}"


def _step(step):
    """A visible button that moves its control one option (what a clicker's keys never do)."""
    sign, label = ("-", "one option less") if step < 0 else ("+", "one option more")
    return (f"<button type='button' class='amlab-static-step' data-step='{step}' tabindex='-1' title='{label}' "
            f"style='font:inherit;min-width:1.6em;padding:0 0.2em;margin:0 0.2em'>{sign}</button>")


def _json(value):
    """``value`` as JavaScript inside a ``<script>``: a readout's ``</`` would end the script early."""
    return json.dumps(value).replace("</", "<\\/")


def static_explorer(explorer, only=None, max_frames=MAX_FRAMES):
    """Measure every setting of ``explorer`` (an :class:`~course_utils.explorers.Explorer`) and return it as a
    :class:`StaticExplorer`. ``only``: ``{control: options}`` to measure fewer settings of some controls (each a
    subset of the explorer's own). Refuses a grid of more than ``max_frames`` settings, saying how to cut it.
    The explorer keeps its own settings and reading."""
    only = only or {}
    controls, fewer = {}, []
    for name, (label, options, _) in explorer.controls.items():
        chosen = tuple(only.get(name, options))
        outside = [option for option in chosen if option not in options]
        if outside or not chosen:
            raise ValueError(f"{name}: {outside or 'no options'} outside the explorer's own {list(options)}")
        controls[name] = (label, chosen)
        if len(chosen) < len(options):
            shown = ", ".join(map(_label, chosen)) if all(isinstance(o, int) for o in chosen) else len(chosen)
            fewer.append(f"{label} {shown} of {len(options)}")
    unknown = set(only) - set(controls)
    if unknown:
        raise ValueError(f"{explorer.title!r} has no control(s) {sorted(unknown)}; its controls: {', '.join(controls)}")
    grid = list(itertools.product(*(options for _, options in controls.values())))
    if len(grid) > max_frames:
        raise ValueError(f"{explorer.title!r} has {len(grid)} settings, more than max_frames={max_frames}: pass "
                         f"only={{control: (a few options)}} for some of {', '.join(controls)}")
    readings = {tuple(map(_label, values)): explorer.measure(**dict(zip(controls, values))) for values in grid}
    frames = {key: reading.html() for key, reading in readings.items()}  # once all are measured (see the docstring)
    kept = explorer.settings
    start = tuple(kept[name] if kept[name] in options else options[0] for name, (_, options) in controls.items())
    grid_note = f"a grid of {', '.join(fewer)}; the notebook's panel measures any setting" if fewer else "every setting"
    note = f"{len(frames)} settings measured in the kernel ({grid_note}). Cap: {explorer.cap}"
    return StaticExplorer(explorer.title, controls, frames, start, note)
