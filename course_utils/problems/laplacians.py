"""Every way the course computes a Laplacian, and what each costs: the subject of notebook 06.

The eight methods live in :mod:`course_utils.problems.laplacian_methods` and are named here too
(``laplacians.laplacian_forward``, ``laplacians.METHODS``). :func:`step_memory` and :func:`compare_laplacians` measure
them on one residual + backward step of the heat problem (:mod:`course_utils.problems.pinn`) for the notebook's tables
and ``benchmarks/laplacian.py``; :func:`load_benchmarks` reads what that script wrote to ``data/``.

>>> METHODS["forward Laplacian (one pass)"] is laplacian_forward     # the methods, named here too
True
"""
import copy
import functools
import json
import pathlib
import time
from typing import Callable, Optional

import torch

from autograd_memory import format_bytes, run_metered, time_call

from .laplacian_methods import (
    METHODS,
    finite_difference_step,
    hutchinson_variance,
    laplacian_finite_difference,
    laplacian_forward,
    laplacian_forward_over_reverse,
    laplacian_hutchinson,
    laplacian_nested,
    laplacian_row_sums,
    laplacian_separate,
    laplacian_vmap_hessian,
)
from .pinn import checkpointed_loss, chunked_backward

__all__ = ["laplacian_nested", "laplacian_separate", "laplacian_row_sums", "laplacian_vmap_hessian",
           "laplacian_forward_over_reverse", "laplacian_forward", "laplacian_hutchinson", "hutchinson_variance",
           "laplacian_finite_difference", "finite_difference_step", "METHODS", "STRATEGIES", "step_memory",
           "compare_laplacians", "ranking", "finite_difference_errors", "load_benchmarks", "DATA"]


# --- measuring the methods ------------------------------------------------------------------------

STRATEGIES = ("backward per chunk", "checkpointed chunks, one backward", "save_on_cpu")


def _step(model, points, method, chunk_size=None, strategy=STRATEGIES[0]):
    """One heat residual + backward step to the parameters, in chunks of points (one chunk: all of them):
    ``strategy`` is one of :data:`STRATEGIES` (see :func:`step_memory`)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")
    model.zero_grad(set_to_none=True)
    chunk_size = chunk_size or len(points)
    if strategy == "checkpointed chunks, one backward":
        checkpointed_loss(model, points, chunk_size, method=method).backward()
    elif strategy == "save_on_cpu":
        with torch.autograd.graph.save_on_cpu():
            chunked_backward(model, points, chunk_size, method=method)
    else:
        chunked_backward(model, points, chunk_size, method=method)


def step_memory(model, points: torch.Tensor, method: Callable, chunk_size: Optional[int] = None,
                strategy: str = STRATEGIES[0]) -> tuple:
    """``(peak live bytes, peak saved bytes or None)`` of one heat residual + backward step.

    The live peak counts every tensor created during the step (the parameters' ``.grad`` included);
    the saved peak is the most the graph held at once (one chunk's graph when chunked). ``None``
    for ``torch.func`` methods, which refuse the graph meter.

    ``strategy``: ``"backward per chunk"`` (gradient accumulation, :func:`~course_utils.problems.pinn.chunked_backward`);
    ``"checkpointed chunks, one backward"`` (:func:`~course_utils.problems.pinn.checkpointed_loss`); ``"save_on_cpu"``
    (backward per chunk inside ``torch.autograd.graph.save_on_cpu()``, which moves saved tensors to host
    memory: on a CPU it moves nothing). Saved-tensor hooks do not nest: under checkpointing or
    ``save_on_cpu`` the graph meter sees only what *their* hooks pass on (checkpoint's inputs; nothing).

    >>> from course_utils.problems.models import TanhMLP
    >>> peak, saved = step_memory(TanhMLP(3, width=8), torch.rand(16, 3), laplacian_nested)
    >>> peak > saved > 0
    True
    """
    model.zero_grad(set_to_none=True)
    live, graph, _result, _seconds = run_metered(_step, model, points, method, chunk_size, strategy)
    return live.peak, (graph.peak if graph else None)


def compare_laplacians(model, points: torch.Tensor, methods: Optional[dict] = None, repeats: int = 5,
                       reference_method: Callable = laplacian_nested,
                       clock: Callable[[], float] = time.perf_counter) -> list:
    """One row per method: peak live bytes, peak saved bytes, milliseconds per residual + backward
    step, and the largest Laplacian error against ``reference_method`` run on a float64 copy on the
    CPU (MPS has no float64).

    ``methods``: ``{name: method}`` (default :data:`METHODS`); a value ``(method, chunk_size)`` runs
    the step in chunks of points with gradient accumulation. The last column of ``points`` is time.
    ``clock``: see :func:`~autograd_memory.time_call`.

    >>> from course_utils.problems.models import TanhMLP
    >>> rows = compare_laplacians(TanhMLP(3, width=8, hidden_layers=2), torch.rand(16, 3), repeats=1)
    >>> sorted(rows[0])
    ['max_error', 'method', 'ms', 'peak_bytes', 'saved_bytes']
    """
    methods = METHODS if methods is None else methods
    space = range(points.shape[1] - 1)
    reference = reference_method(_float64_cpu_copy(model), points.detach().cpu().double(), space)[2].detach()
    rows = []
    for name, method in methods.items():
        method, chunk_size = method if isinstance(method, tuple) else (method, None)
        peak, saved = step_memory(model, points, method, chunk_size)
        laplacian = method(model, points, space)[2].detach()
        seconds = time_call(functools.partial(_step, model, points, method, chunk_size), repeats, clock)
        rows.append({"method": name, "peak_bytes": peak, "saved_bytes": saved, "ms": seconds * 1e3,
                     "max_error": (laplacian.cpu().double() - reference).abs().max().item()})
    model.zero_grad(set_to_none=True)
    return rows


def _float64_cpu_copy(model):
    return copy.deepcopy(model).to("cpu", torch.float64)


_RANKED = (("peak_bytes", "peak live", format_bytes), ("saved_bytes", "saved", format_bytes),
           ("max_error", "max error", "{:.1e}".format))


def ranking(rows: list) -> list:
    """The ranking of a :func:`compare_laplacians` table, read from it: per column (peak live, saved, max error;
    not the milliseconds, which a shared CPU makes noisy at these sizes), the method with the least and the one with
    the most, with their numbers. A notebook prints these rather than typing a ranking that a new measurement could
    contradict.

    >>> rows = [{"method": "A", "peak_bytes": 2000, "saved_bytes": None, "max_error": 1e-6},
    ...         {"method": "B", "peak_bytes": 1000, "saved_bytes": 500, "max_error": 0.5}]
    >>> print("\\n".join(ranking(rows)))
    peak live: least B (1.00 kB), most A (2.00 kB)
    saved: least B (500 B), most B (500 B); not measured: A
    max error: least A (1.0e-06), most B (5.0e-01)
    """
    sentences = []
    for key, label, shown in _RANKED:
        measured = [row for row in rows if row[key] is not None]
        if not measured:
            continue
        least, most = min(measured, key=lambda row: row[key]), max(measured, key=lambda row: row[key])
        unseen = [row["method"] for row in rows if row[key] is None]
        sentences.append(f"{label}: least {least['method']} ({shown(least[key])}), most {most['method']} "
                         f"({shown(most[key])})" + (f"; not measured: {', '.join(unseen)}" if unseen else ""))
    return sentences


def finite_difference_errors(model, points: torch.Tensor, steps, dims=None) -> dict:
    """``{h: largest error}`` of :func:`laplacian_finite_difference` at each step ``h`` of ``steps``, against nested
    autograd on a float64 copy on the CPU (``dims``: the Laplacian's columns, default all but the last, time). Small
    ``h``: cancellation, the error grows as ``eps / h**2``; large ``h``: truncation, as ``h**2``.

    >>> from course_utils.problems.models import TanhMLP
    >>> errors = finite_difference_errors(TanhMLP(3, width=8), torch.rand(16, 3), [1e-4, 2e-2, 1.0])
    >>> errors[2e-2] < min(errors[1e-4], errors[1.0])
    True
    """
    dims = range(points.shape[1] - 1) if dims is None else dims
    reference = laplacian_nested(_float64_cpu_copy(model), points.detach().cpu().double(), dims)[2].detach()
    with torch.no_grad():  # no autograd anywhere in a finite difference: its error needs no graph
        return {h: (laplacian_finite_difference(model, points, dims, h)[2].cpu().double() - reference).abs().max().item()
                for h in steps}


DATA = pathlib.Path(__file__).resolve().parents[2] / "data"


def load_benchmarks(data_dir: pathlib.Path = DATA) -> dict:
    """The ``benchmarks/laplacian.py`` results shipped in ``data/``: ``{device type: record}`` for every
    ``laplacian_<device>.json`` there (``cpu`` always; ``cuda`` once someone has run it on a GPU).

    >>> "cpu" in load_benchmarks()          # data/laplacian_cpu.json ships with the course
    True
    """
    return {path.stem.removeprefix("laplacian_"): json.loads(path.read_text())
            for path in sorted(pathlib.Path(data_dir).glob("laplacian_*.json"))}
