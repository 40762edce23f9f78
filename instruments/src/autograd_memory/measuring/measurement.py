"""Measuring a function: its memory under both meters (:func:`measure`, :class:`Report`,
:func:`run_metered`), and its time (:func:`time_call`: the fastest of a few runs, with the device
synchronised around each).

Memory is measured exactly by the meters; time is noisy, so the course only ever compares times
taken in one run on one machine (notebook 06's tables, ``benchmarks/``), never in tests.

>>> import torch
>>> print(measure(lambda: torch.ones(1000, requires_grad=True).exp().sum()).rows()[0])
('peak of live tensors', '8.00 kB')
>>> seconds = time_call(lambda: sum(range(1000)), repeats=3)
>>> 0 < seconds < 1
True
"""
import gc
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import torch

from ..formats.tables import ShowsAsText
from ..formats.units import format_bytes
from ..seams import torch_internals as internals
from .meters import GraphMemory, GraphMemoryUnsupported, LiveTensors, device_memory

__all__ = ["measure", "Report", "run_metered", "Metered", "time_call"]


@dataclass
class Report(ShowsAsText):
    """What :func:`measure` found. All sizes in bytes; ``None`` where a reading was not possible."""

    name: str
    peak_bytes: int
    held_bytes: int
    saved_bytes: int = None
    saved_by_kind: dict = None
    leftover_bytes: int = None
    seconds: float = 0.0
    device: dict = field(default_factory=dict)
    result: object = None
    note: str = ""

    def rows(self):
        """(label, value as text) pairs, in reading order."""
        rows = [
            ("peak of live tensors", format_bytes(self.peak_bytes)),
            ("held while result lives", format_bytes(self.held_bytes)),
            ("saved for backward", format_bytes(self.saved_bytes) if self.saved_bytes is not None else "n/a (torch.func)"),
        ]
        if self.saved_by_kind:
            rows += [(f"  of which {kind}", format_bytes(n)) for kind, n in self.saved_by_kind.items() if n]
        left = format_bytes(self.leftover_bytes) if self.leftover_bytes is not None else "n/a (result kept)"
        rows.append(("left after result dropped", left))
        rows.append(("time", f"{self.seconds * 1e3:.1f} ms"))
        rows += [(key, format_bytes(value)) for key, value in self.device.items()]
        return rows

    def __str__(self):
        rows = self.rows()
        width = max(len(label) for label, _ in rows)
        lines = [f"measure({self.name})"] + [f"  {label:<{width}}  {value:>10}" for label, value in rows]
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)

    def _repr_html_(self):
        body = "".join(f"<tr><td style='text-align:left'>{label}</td><td style='text-align:right'>{value}</td></tr>"
                       for label, value in self.rows())
        note = f"<caption style='caption-side:bottom'>{self.note}</caption>" if self.note else ""
        return f"<table><thead><tr><th colspan=2>measure({self.name})</th></tr></thead>{body}{note}</table>"


class Metered(NamedTuple):
    """What :func:`run_metered` returns: the two meters (``graph`` is None where ``torch.func`` refused
    it), ``fn``'s result and its wall-clock seconds."""

    live: LiveTensors
    graph: GraphMemory
    result: object
    seconds: float


def run_metered(fn, *args, **kwargs):
    """Run ``fn`` under fresh :class:`LiveTensors` and :class:`GraphMemory` meters: a :class:`Metered`
    ``(live, graph, result, seconds)``.

    Where ``fn`` uses ``torch.func`` (which refuses the graph meter), or ``run_metered`` itself runs
    inside a ``torch.func`` transform, ``fn`` runs (again) under ``LiveTensors`` alone and ``graph`` is
    ``None``; a retry runs outside the failed attempt's ``except`` block, so that attempt's tensors are
    freed first.

    >>> import torch
    >>> metered = run_metered(lambda: torch.zeros(10))
    >>> metered.live.bytes, metered.graph.bytes
    (40, 0)
    """
    gc.collect()
    if not internals.in_functorch_transform():
        try:
            with LiveTensors() as live, GraphMemory() as graph:
                start = time.perf_counter()
                result = fn(*args, **kwargs)
                seconds = time.perf_counter() - start
            return Metered(live, graph, result, seconds)
        except GraphMemoryUnsupported:
            pass
        gc.collect()
    with LiveTensors() as live:
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        seconds = time.perf_counter() - start
    return Metered(live, None, result, seconds)


def measure(fn, *args, keep_result=False, **kwargs):
    """Run ``fn(*args, **kwargs)`` under :class:`LiveTensors` and :class:`GraphMemory` and report.

    The report has the peak, the bytes held while the result lives, the saved bytes, and the bytes
    still alive after the result is dropped and garbage collected: a leak (say, a loss kept in a
    list) shows there. To measure that, ``measure`` drops the result; pass ``keep_result=True`` to
    get it back in ``report.result`` instead (``leftover_bytes`` is then ``None``).

    If ``fn`` uses ``torch.func`` (which refuses the graph meter), ``fn`` runs a second time under
    ``LiveTensors`` alone and ``saved_bytes`` is ``None``; inside a ``torch.func`` transform it runs once,
    under ``LiveTensors`` alone. ``peak_bytes`` is the peak of live tensors (see :class:`LiveTensors`:
    scratch memory inside one op is not seen).

    >>> import torch
    >>> report = measure(lambda: torch.ones(1000, requires_grad=True).exp().sum())
    >>> report.saved_bytes, report.leftover_bytes
    (4000, 0)
    """
    name = getattr(fn, "__name__", type(fn).__name__)
    live, graph, result, seconds = run_metered(fn, *args, **kwargs)
    note = "" if graph else "torch.func refuses the graph meter: measured under LiveTensors alone"
    gc.collect()  # create_graph=True can leave reference cycles
    report = Report(
        name=name,
        peak_bytes=live.peak,
        held_bytes=live.bytes,
        saved_bytes=graph.bytes if graph else None,
        saved_by_kind=dict(graph.by_kind) if graph else None,
        seconds=seconds,
        device=device_memory(),
        note=note,
    )
    if keep_result:
        report.result = result
    else:
        del result
        gc.collect()
        report.leftover_bytes = live.bytes
    return report


def _synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def time_call(fn: Callable[[], object], repeats: int = 5, clock: Callable[[], float] = time.perf_counter) -> float:
    """Fastest time of ``fn()`` in seconds over ``repeats`` runs, after one warm-up run (noise from
    other programs only ever adds time). Wall time, or ``clock=time.process_time`` for this
    process's CPU time, which other programs on a shared machine inflate less (use it with one
    torch thread)."""
    fn()
    times = []
    for _ in range(repeats):
        _synchronize()
        start = clock()
        fn()
        _synchronize()
        times.append(clock() - start)
    return min(times)
