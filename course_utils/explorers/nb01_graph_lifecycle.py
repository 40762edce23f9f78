"""Notebook 01's explorer: step a graph through forward, backward and ``del`` (plain, ``retain_graph=True``,
``create_graph=True``); the picture greys the freed nodes.

>>> explorer = graph_lifecycle()
>>> [explorer.update(variant="backward()", moment=moment).saved > 0 for moment in (1, 2)]
[True, False]
"""
import gc
import html
import warnings
from dataclasses import dataclass

import torch

from autograd_memory import GraphMemory, LiveTensors, format_bytes, lifecycle

from .panel import Explorer, bytes_html, rows_html

__all__ = ["VARIANTS", "Moment", "lifecycle_moments", "graph_lifecycle"]

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
        rows = [("saved for backward (GraphMemory)", bytes_html("saved", self.saved)),
                ("live tensors (LiveTensors)", bytes_html("live", self.live))]
        picture = self.view._repr_html_() if self.view is not None else "<p><i>output deleted: nothing to draw from it</i></p>"
        note = f"<p>{html.escape(self.note)}</p>" if self.note else ""
        return f"<div><h4>{html.escape(self.label)}</h4>{rows_html(rows)}{note}{picture}</div>"


def _small_model(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                                torch.nn.Linear(16, 1))
    return model, torch.randn(32, 2)


def lifecycle_moments(variant):
    """The four moments of one graph's life for ``variant`` (a key of ``VARIANTS``), measured.

    Notebook 01's small MLP (2 -> 16 -> 16 -> 1, a batch of 32) computes ``loss``; then backward
    runs as the variant says, and ``loss`` is deleted. Each moment reads ``GraphMemory`` and
    ``LiveTensors`` and draws the graph with :func:`~autograd_memory.lifecycle`.

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
            loss.backward(create_graph=True)  # noqa: AGM004 (the cycle the explorer shows, on purpose)
            take("each p.grad now has a grad_fn: the graph of the backward pass hangs on the parameters")
        del loss
        gc.collect()
        if variant == "backward(create_graph=True)":
            take("del loss freed nothing: param.grad -> graph -> param is a cycle the garbage collector cannot see")
            for p in model.parameters():
                p.grad = None
        take()
    return moments


def graph_lifecycle() -> Explorer:
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
