"""Every way the course computes a Laplacian, and what each costs: the subject of notebook 06.

Seven methods, all with the signature ``method(model, points, dims) -> (u, gradient, laplacian)``
(shapes ``(N,)``, ``(N, d)``, ``(N,)``; ``dims`` are the input columns the Laplacian sums over) and all
differentiable to the parameters: :func:`laplacian_nested`, :func:`laplacian_separate`,
:func:`laplacian_vmap_hessian`, :func:`laplacian_forward_over_reverse`, :func:`laplacian_forward`,
:func:`laplacian_hutchinson`, and the pitfall :func:`laplacian_row_sums`, which is *wrong* on purpose.

:func:`step_memory` and :func:`compare_laplacians` measure them on one residual + backward step of the
heat problem (:mod:`course_utils.pinn`) for the notebook's tables and ``benchmarks/laplacian.py``;
:func:`load_benchmarks` reads what that script wrote to ``data/``.

>>> from course_utils.models import TanhMLP
>>> model = TanhMLP(3, width=16, hidden_layers=2)
>>> points = torch.rand(8, 3)
>>> u, gradient, laplacian = laplacian_forward(model, points, dims=(0, 1))
>>> reference = laplacian_nested(model, points, dims=(0, 1))[2]
>>> bool(torch.allclose(laplacian, reference, atol=1e-4))
True
"""
import copy
import functools
import json
import pathlib
import time
from typing import Callable, Optional

import torch

from autograd_memory.measurement import run_metered, time_call

__all__ = ["laplacian_nested", "laplacian_separate", "laplacian_row_sums", "laplacian_vmap_hessian",
           "laplacian_forward_over_reverse", "laplacian_forward", "laplacian_hutchinson", "hutchinson_variance",
           "METHODS", "STRATEGIES", "step_memory", "compare_laplacians", "load_benchmarks", "DATA"]


def _as_leaf(points):
    return points.detach().requires_grad_(True)


def laplacian_nested(model, points: torch.Tensor, dims) -> tuple:
    """Nested ``autograd.grad`` on one ``(N, d)`` input: one backward for the gradient, then one per
    Laplacian dimension, each keeping only the diagonal entry ``d(u_k)/d x_k``."""
    points = _as_leaf(points)
    u = model(points)[:, 0]
    gradient, = torch.autograd.grad(u.sum(), points, create_graph=True)
    laplacian = 0
    for k in dims:
        second, = torch.autograd.grad(gradient[:, k].sum(), points, create_graph=True)
        laplacian = laplacian + second[:, k]
    return u, gradient, laplacian


def laplacian_separate(model, points: torch.Tensor, dims) -> tuple:
    """Nested ``autograd.grad`` with one ``(N, 1)`` tensor per input column (x, y, t separately)."""
    columns = [_as_leaf(points[:, k:k + 1]) for k in range(points.shape[1])]
    u = model(torch.cat(columns, dim=1))[:, 0]
    firsts = torch.autograd.grad(u.sum(), columns, create_graph=True)
    laplacian = 0
    for k in dims:
        second, = torch.autograd.grad(firsts[k].sum(), columns[k], create_graph=True)
        laplacian = laplacian + second[:, 0]
    return u, torch.cat(firsts, dim=1), laplacian


def laplacian_row_sums(model, points: torch.Tensor, dims) -> tuple:
    """THE PITFALL: ``grad(u_x, x, grad_outputs=ones)`` on a multi-column ``x`` sums over the columns
    of ``u_x``, so it returns Hessian *row sums* ``sum_j d2u/dx_i dx_j``, not the diagonal ``d2u/dx_i^2``."""
    points = _as_leaf(points)
    u = model(points)[:, 0]
    gradient, = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)
    row_sums, = torch.autograd.grad(gradient, points, torch.ones_like(gradient), create_graph=True)
    return u, gradient, row_sums[:, list(dims)].sum(1)


def _point_function(model):
    """``model`` as a function of one point ``(d,) -> scalar`` for ``torch.func``."""
    return lambda point: model(point.unsqueeze(0))[0, 0]


def laplacian_vmap_hessian(model, points: torch.Tensor, dims) -> tuple:
    """``torch.func``: the full ``d x d`` Hessian at every point (``vmap(hessian)``), then its trace over ``dims``."""
    from torch.func import grad_and_value, jacfwd, vmap

    def gradient_twice(point):
        gradient, value = grad_and_value(_point_function(model))(point)
        return gradient, (gradient, value)

    hessians, (gradient, u) = vmap(jacfwd(gradient_twice, has_aux=True))(points)
    dims = list(dims)
    return u, gradient, hessians[:, dims, dims].sum(1)


def laplacian_forward_over_reverse(model, points: torch.Tensor, dims) -> tuple:
    """``torch.func``: a ``jvp`` of the gradient along each ``e_k`` in ``dims`` (one Hessian column each)."""
    from torch.func import grad, jvp, vmap

    point_gradient = grad(_point_function(model))
    directions = torch.eye(points.shape[1], dtype=points.dtype, device=points.device)[list(dims)]

    def one_point(point):
        column = lambda direction: jvp(point_gradient, (point,), (direction,))  # (gradient, H @ direction)
        gradient, hessian_columns = vmap(column)(directions)
        laplacian = hessian_columns.gather(1, torch.tensor(list(dims), device=points.device).unsqueeze(1)).sum()
        return _point_function(model)(point), gradient[0], laplacian

    return vmap(one_point)(points)


def laplacian_forward(model, points: torch.Tensor, dims) -> tuple:
    """Forward-mode Laplacian: one pass carrying value, gradient and Laplacian through the layers
    (the model's ``value_gradient_laplacian``; :class:`~course_utils.models.TanhMLP` and
    :class:`~course_utils.pinn.HeatPINN` have one)."""
    return model.value_gradient_laplacian(points, dims)


def laplacian_hutchinson(model, points: torch.Tensor, dims, probes: int = 1, seed: int = 0) -> tuple:
    """STOCHASTIC: ``E[v^T H v] = trace(H)`` for random signs ``v`` on ``dims`` (Hutchinson); each
    probe costs one Hessian-vector product. Unbiased, but every estimate has an error."""
    points = _as_leaf(points)
    u = model(points)[:, 0]
    gradient, = torch.autograd.grad(u.sum(), points, create_graph=True)
    generator = torch.Generator().manual_seed(seed)
    mask = torch.zeros(points.shape[1], dtype=points.dtype)
    mask[list(dims)] = 1
    estimate = 0
    for _ in range(probes):
        signs = torch.randint(0, 2, points.shape, generator=generator).to(points.dtype) * 2 - 1
        probe = (signs * mask).to(points.device)
        hvp, = torch.autograd.grad((gradient * probe).sum(), points, create_graph=True)
        estimate = estimate + (hvp * probe).sum(1)
    return u, gradient, estimate / probes


def hutchinson_variance(model, points: torch.Tensor, dims) -> torch.Tensor:
    """Per point, the variance of one probe's estimate ``v^T H v`` in :func:`laplacian_hutchinson`:
    ``2 * sum_{i != j} H_ij^2`` over ``dims`` (random signs: the diagonal is exact, the off-diagonal terms
    are the noise). ``P`` probes divide it by ``P``. The estimate is unbiased, its square is not: a loss
    built from it is too large by this variance on average (``E[r_hat^2] = r^2 + Var``). At d = 2 it is
    ``4 u_xy^2``: one probe's error is exactly ``+-2 u_xy``.

    >>> from course_utils.models import TanhMLP
    >>> model, points = TanhMLP(3, width=8, hidden_layers=2).double(), torch.rand(4, 3, dtype=torch.float64)
    >>> error = laplacian_hutchinson(model, points, (0, 1))[2] - laplacian_nested(model, points, (0, 1))[2]
    >>> bool(torch.allclose(error.abs(), hutchinson_variance(model, points, (0, 1)).sqrt()))
    True
    """
    points = _as_leaf(points)
    gradient, = torch.autograd.grad(model(points)[:, 0].sum(), points, create_graph=True)
    dims = list(dims)
    hessian = torch.stack([torch.autograd.grad(gradient[:, k].sum(), points, retain_graph=True)[0][:, dims]
                           for k in dims], dim=1)  # (N, d, d) over dims
    off_diagonal = hessian - torch.diag_embed(hessian.diagonal(dim1=1, dim2=2))
    return 2 * off_diagonal.pow(2).sum((1, 2))


METHODS = {
    "nested autograd.grad, one (N, d) input": laplacian_nested,
    "nested autograd.grad, separate columns": laplacian_separate,
    "torch.func vmap(hessian)": laplacian_vmap_hessian,
    "torch.func forward-over-reverse (jvp of grad)": laplacian_forward_over_reverse,
    "forward Laplacian (one pass)": laplacian_forward,
    "Hutchinson, 1 probe (stochastic)": laplacian_hutchinson,
}


# --- measuring the methods ------------------------------------------------------------------------

STRATEGIES = ("backward per chunk", "checkpointed chunks, one backward", "save_on_cpu")


def _step(model, points, method, chunk_size=None, strategy=STRATEGIES[0]):
    """One heat residual + backward step to the parameters, in chunks of points (one chunk: all of them):
    ``strategy`` is one of :data:`STRATEGIES` (see :func:`step_memory`)."""
    from .pinn import checkpointed_loss, chunked_backward  # pinn builds on this module's methods: imported here

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

    ``strategy``: ``"backward per chunk"`` (gradient accumulation, :func:`~course_utils.pinn.chunked_backward`);
    ``"checkpointed chunks, one backward"`` (:func:`~course_utils.pinn.checkpointed_loss`); ``"save_on_cpu"``
    (backward per chunk inside ``torch.autograd.graph.save_on_cpu()``, which moves saved tensors to host
    memory: on a CPU it moves nothing). Saved-tensor hooks do not nest: under checkpointing or
    ``save_on_cpu`` the graph meter sees only what *their* hooks pass on (checkpoint's inputs; nothing).

    >>> from course_utils.models import TanhMLP
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
    ``clock``: see :func:`~course_utils.measurement.time_call`.

    >>> from course_utils.models import TanhMLP
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


DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def load_benchmarks(data_dir: pathlib.Path = DATA) -> dict:
    """The ``benchmarks/laplacian.py`` results shipped in ``data/``: ``{device type: record}`` for every
    ``laplacian_<device>.json`` there (``cpu`` always; ``cuda`` once someone has run it on a GPU).

    >>> "cpu" in load_benchmarks()          # data/laplacian_cpu.json ships with the course
    True
    """
    return {path.stem.removeprefix("laplacian_"): json.loads(path.read_text())
            for path in sorted(pathlib.Path(data_dir).glob("laplacian_*.json"))}
