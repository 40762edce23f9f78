"""What every explorer is: controls, a compute function that measures, and its last reading.

An explorer shows as an ipywidgets panel in a notebook (controls left, re-measured when a control is released,
``continuous_update=False``). Its display carries two fallbacks for a page with no widget manager: the
static HTML explorer of :mod:`~course_utils.explorers.static_html` (its ``grid`` measured in the kernel), which RISE's
slideshow, the decks and the site show, and its reading's text. ``compute(**settings)`` returns a reading with
``text()`` and ``html()``; the notebooks' explorers (``explorers/nbNN_<notebook>.py``) build on this.

>>> class Square:
...     def __init__(self, x):
...         self.x = x
...     def text(self):
...         return f"{self.x} squared is {self.x ** 2}"
...     def html(self):
...         return f"<b>{self.x ** 2}</b>"
>>> explorer = Explorer("Squares", {"x": ("x", (1, 2, 3), 1)}, Square, cap="three values")
>>> print(explorer.update(x=3).text())
3 squared is 9
>>> explorer.update(x=4)
Traceback (most recent call last):
ValueError: x=4 is outside this explorer's range [1, 2, 3] (three values)
>>> sorted(explorer._repr_mimebundle_())         # the widget, the static explorer, the reading's text
['application/vnd.jupyter.widget-view+json', 'text/html', 'text/plain']
"""
import html
import time

import torch

from autograd_memory import ShowsAsText, Table, format_bytes

from ..teaching import lecture
from .static_html import static_explorer

__all__ = ["Explorer", "rows_html", "bytes_html"]


# NOTE [ONE_THREAD]: every reading is taken on one torch thread. The tensors are tiny, and on a
# busy 2-core machine a second OpenMP thread spins waiting for the first: 04's window test took
# 38 s on two threads under load and 0.3 s on one. data/laplacian_cpu.json was measured on one too.


class Explorer(ShowsAsText):
    """Controls, a compute function and its last reading. Made by the notebooks' explorer functions.

    ``controls``: ``{name: (label, options, start value)}``; ``compute(**settings)`` returns a
    reading with ``text()`` and ``html()``. :meth:`update` re-measures headless (what the widget
    calls on every release); ``seconds`` is how long the last one took. ``grid``: ``{name: options}``
    for the controls whose static HTML explorer measures fewer options than the panel (default: all).
    """

    def __init__(self, title, controls, compute, cap, grid=None):
        self.title, self.controls, self._compute, self.cap, self.grid = title, controls, compute, cap, grid
        self.settings = {name: value for name, (_, _, value) in controls.items()}
        self.reading, self.seconds = None, None
        self.update()

    def update(self, **settings):
        """Re-measure with some settings changed; returns the new reading."""
        wanted = {**self.settings, **settings}
        start = time.perf_counter()
        self.reading = self.measure(**wanted)
        self.seconds = time.perf_counter() - start
        self.settings = wanted  # only once measured: settings and reading always belong together
        return self.reading

    def measure(self, **settings):
        """The reading at the current settings with ``settings`` changed, measured; the explorer keeps its own."""
        for name, value in settings.items():
            if name not in self.controls:
                raise ValueError(f"{self.title!r} has no control {name!r}; its controls: {', '.join(self.controls)}")
            options = self.controls[name][1]
            if value not in options:
                raise ValueError(f"{name}={value!r} is outside this explorer's range {list(options)} ({self.cap})")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # see ONE_THREAD
        try:
            return self._compute(**{**self.settings, **settings})
        finally:
            torch.set_num_threads(threads)

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
        """The panel; where no widget manager runs, a frontend falls back to the next mimetype it can show:
        JupyterLab (and RISE's slideshow in it) ranks a widget view above HTML, nbconvert's HTML exporters list
        it first, and the decks and the site drop it (tools/handouts.py), so all of them show the static HTML."""
        bundle = self.widget()._repr_mimebundle_()
        bundle["text/html"] = static_explorer(self, only=self.grid)._repr_html_()
        bundle["text/plain"] = str(self)
        return bundle


def rows_html(rows):
    """A readout's ``(label, value html)`` rows as a two-column table."""
    return Table(("", ""), rows, align="lr").html(raw=(1,))


def bytes_html(name, nbytes):
    """A byte count for the readout: readable text, the exact count in its title (what the browser test reads)."""
    return f"<span class='amlab-explorer-{name}' title='{nbytes:,} bytes'>{format_bytes(nbytes)}</span>"


