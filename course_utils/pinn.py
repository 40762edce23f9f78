"""The worked problem of notebook 05: a physics-informed network for the 2D heat equation.

The problem: ``u_t = alpha * (u_xx + u_yy)`` on ``[0,1]^2 x [0,1]``, zero on the boundary,
``u(x, y, 0) = sin(pi x) sin(pi y)``; the exact solution is ``exp(-2 pi^2 alpha t) sin(pi x) sin(pi y)``.

What is here:

* the models: :class:`TanhMLP` (any number of inputs) and :class:`HeatPINN`, whose ansatz
  ``u = sin(pi x) sin(pi y) (1 + t * mlp(x, y, t))`` meets the boundary and initial conditions exactly;
* seven ways to get the gradient and the Laplacian of a model at N points, all with the signature
  ``method(model, points, dims) -> (u, gradient, laplacian)`` (shapes ``(N,)``, ``(N, d)``, ``(N,)``;
  ``dims`` are the input columns the Laplacian sums over) and all differentiable to the parameters:
  :func:`laplacian_nested`, :func:`laplacian_separate`, :func:`laplacian_vmap_hessian`,
  :func:`laplacian_forward_over_reverse`, :func:`laplacian_forward`, :func:`laplacian_hutchinson`,
  and the pitfall :func:`laplacian_row_sums`, which is *wrong* on purpose;
* the residual and loss (:func:`heat_residual`, :func:`residual_loss`), gradient accumulation over
  chunks of points (:func:`chunked_backward`), and the pattern as it is usually posted
  (:func:`usual_pattern`) so that tests and notebook examine the same code;
* :func:`compare_laplacians`: peak bytes, saved bytes, time and error of each method, for the notebook's
  table and ``benchmarks/laplacian.py``; :func:`load_benchmarks` reads what that script wrote to ``data/``.

>>> model = HeatPINN(width=16, depth=2)
>>> points = sample_points(8)
>>> u, gradient, laplacian = laplacian_forward(model, points, dims=(0, 1))
>>> reference = laplacian_nested(model, points, dims=(0, 1))[2]
>>> bool(torch.allclose(laplacian, reference, atol=1e-4))
True
"""
import copy
import functools
import gc
import json
import math
import pathlib
import time

import torch
from torch import nn

from . import models
from .measurement import run_metered

ALPHA = 0.05  # diffusivity: the solution decays to exp(-2 pi^2 0.05) = 37% by t = 1
SPACE = (0, 1)  # the columns x, y of a point (x, y, t)
TIME = 2


def exact_solution(points, alpha=ALPHA):
    """``exp(-2 pi^2 alpha t) sin(pi x) sin(pi y)`` at points ``(N, 3)``; returns shape ``(N,)``."""
    x, y, t = points.unbind(-1)
    return torch.exp(-2 * math.pi ** 2 * alpha * t) * torch.sin(math.pi * x) * torch.sin(math.pi * y)


def sample_points(n, seed=0, device=None, dtype=torch.float32):
    """``n`` collocation points uniform in ``[0,1]^3`` (columns x, y, t), reproducible from ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, generator=generator, dtype=dtype).to(device)


def grid_points(n_space=21, n_time=5, device=None, dtype=torch.float32):
    """A regular grid (held-out evaluation points): ``n_space**2 * n_time`` rows of (x, y, t)."""
    space = torch.linspace(0, 1, n_space, dtype=dtype)
    times = torch.linspace(0, 1, n_time, dtype=dtype)
    x, y, t = torch.meshgrid(space, space, times, indexing="ij")
    return torch.stack([x, y, t], dim=-1).reshape(-1, 3).to(device)


class TanhMLP(models.TanhMLP):
    """``in_dim -> width x depth (tanh) -> 1`` (:class:`course_utils.models.TanhMLP`) with a forward-mode Laplacian.

    ``model(points)`` has shape ``(N, 1)``; :meth:`value_gradient_laplacian` is the forward-mode
    Laplacian (see :func:`laplacian_forward`).
    """

    def __init__(self, in_dim=3, width=32, depth=3, seed=0):
        super().__init__(in_dim, 1, width=width, hidden_layers=depth, seed=seed)

    def value_gradient_laplacian(self, points, dims):
        """One forward pass carrying, for every unit, its value h, its gradient J (``d`` numbers per
        point) and its Laplacian L over ``dims``. A linear layer maps J and L linearly (the first
        one's J is its weight, its L is zero); tanh maps ``h -> tanh(h)``, ``J -> s J``,
        ``L -> s L + s' |J_dims|^2`` with ``s = 1 - tanh^2`` and ``s' = -2 tanh s``."""
        space = _index(dims)
        h, jac, lap = points, None, None
        linears = self.linears
        for i, layer in enumerate(linears):
            h = layer(h)
            if jac is None:  # (N, d, width): row k is d h / d x_k
                jac = layer.weight.T.expand(len(points), -1, -1)
            else:
                jac, lap = jac @ layer.weight.T, lap @ layer.weight.T
            if i < len(linears) - 1:
                h = torch.tanh(h)
                slope = 1 - h * h
                curvature = -2 * h * slope * jac[:, space, :].pow(2).sum(1)
                lap = curvature if lap is None else slope * lap + curvature
                jac = slope.unsqueeze(1) * jac
        return h[:, 0], jac[:, :, 0], lap[:, 0]


def _index(dims):
    """``dims`` as a slice when they are consecutive (a view, no copy), else as a list."""
    dims = list(dims)
    if dims == list(range(dims[0], dims[-1] + 1)):
        return slice(dims[0], dims[-1] + 1)
    return dims


class HeatPINN(nn.Module):
    """``u(x, y, t) = sin(pi x) sin(pi y) * (1 + t * mlp(x, y, t))``.

    The factor ``sin(pi x) sin(pi y)`` is zero on the boundary and ``t = 0`` leaves the initial
    condition, so the network only has to learn the physics: the loss is the PDE residual alone.
    """

    def __init__(self, width=32, depth=3, seed=0):
        super().__init__()
        self.mlp = TanhMLP(3, width, depth, seed)

    @staticmethod
    def _envelope(points):
        x, y = points[:, 0], points[:, 1]
        return torch.sin(math.pi * x) * torch.sin(math.pi * y)

    def forward(self, points):
        t = points[:, TIME:TIME + 1]
        return self._envelope(points).unsqueeze(1) * (1 + t * self.mlp(points))

    def value_gradient_laplacian(self, points, dims):
        """The MLP's forward-mode jet, then the product rule for ``g * s`` with ``s = 1 + t * mlp``."""
        dims = list(dims)
        if TIME in dims:
            raise ValueError("HeatPINN's forward Laplacian sums over space only (dims x=0, y=1)")
        v, jac_v, lap_v = self.mlp.value_gradient_laplacian(points, dims)
        x, y, t = points.unbind(1)
        g = self._envelope(points)
        zero = torch.zeros_like(x)
        jac_g = math.pi * torch.stack([torch.cos(math.pi * x) * torch.sin(math.pi * y),
                                       torch.sin(math.pi * x) * torch.cos(math.pi * y), zero], dim=1)
        lap_g = -(math.pi ** 2) * len(dims) * g  # each of sin(pi x), sin(pi y) is its own -pi^2 eigenfunction
        s = 1 + t * v
        jac_s = t.unsqueeze(1) * jac_v + torch.stack([zero, zero, v], dim=1)
        lap_s = t * lap_v
        u = g * s
        jac_u = g.unsqueeze(1) * jac_s + s.unsqueeze(1) * jac_g
        lap_u = g * lap_s + s * lap_g + 2 * (jac_g[:, dims] * jac_s[:, dims]).sum(1)
        return u, jac_u, lap_u


# --- seven ways to a Laplacian: method(model, points, dims) -> (u, gradient, laplacian) -----------

def _as_leaf(points):
    return points.detach().requires_grad_(True)


def laplacian_nested(model, points, dims):
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


def laplacian_separate(model, points, dims):
    """Nested ``autograd.grad`` with one ``(N, 1)`` tensor per input column (x, y, t separately)."""
    columns = [_as_leaf(points[:, k:k + 1]) for k in range(points.shape[1])]
    u = model(torch.cat(columns, dim=1))[:, 0]
    firsts = torch.autograd.grad(u.sum(), columns, create_graph=True)
    laplacian = 0
    for k in dims:
        second, = torch.autograd.grad(firsts[k].sum(), columns[k], create_graph=True)
        laplacian = laplacian + second[:, 0]
    return u, torch.cat(firsts, dim=1), laplacian


def laplacian_row_sums(model, points, dims):
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


def laplacian_vmap_hessian(model, points, dims):
    """``torch.func``: the full ``d x d`` Hessian at every point (``vmap(hessian)``), then its trace over ``dims``."""
    from torch.func import grad_and_value, jacfwd, vmap

    def gradient_twice(point):
        gradient, value = grad_and_value(_point_function(model))(point)
        return gradient, (gradient, value)

    hessians, (gradient, u) = vmap(jacfwd(gradient_twice, has_aux=True))(points)
    dims = list(dims)
    return u, gradient, hessians[:, dims, dims].sum(1)


def laplacian_forward_over_reverse(model, points, dims):
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


def laplacian_forward(model, points, dims):
    """Forward-mode Laplacian: one pass carrying value, gradient and Laplacian through the layers
    (the model's ``value_gradient_laplacian``; :class:`TanhMLP` and :class:`HeatPINN` have one)."""
    return model.value_gradient_laplacian(points, dims)


def laplacian_hutchinson(model, points, dims, probes=1, seed=0):
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


METHODS = {
    "nested autograd.grad, one (N, d) input": laplacian_nested,
    "nested autograd.grad, separate columns": laplacian_separate,
    "torch.func vmap(hessian)": laplacian_vmap_hessian,
    "torch.func forward-over-reverse (jvp of grad)": laplacian_forward_over_reverse,
    "forward Laplacian (course_utils.pinn)": laplacian_forward,
    "Hutchinson, 1 probe (stochastic)": laplacian_hutchinson,
}


# --- the heat-equation loss ----------------------------------------------------------------------

def heat_residual(model, points, alpha=ALPHA, method=laplacian_nested):
    """``u_t - alpha * laplacian(u)`` at each point, differentiable to the parameters. The last
    column of ``points`` is time, the others are space (x, y for the heat problem; any number for
    a generic MLP)."""
    space = range(points.shape[1] - 1)
    _, gradient, laplacian = method(model, points, space)
    return gradient[:, -1] - alpha * laplacian


def residual_loss(model, points, alpha=ALPHA, method=laplacian_nested):
    """Mean squared PDE residual: the whole loss for :class:`HeatPINN` (its ansatz fixes the rest)."""
    return heat_residual(model, points, alpha, method).pow(2).mean()


def chunked_backward(model, points, chunk_size, alpha=ALPHA, method=laplacian_nested):
    """``residual_loss(...).backward()`` in chunks of ``chunk_size`` points: each chunk's loss is
    weighted by its share of the points, so the accumulated ``.grad`` equals the unchunked one while
    only one chunk's graph is alive at a time. Returns the loss as a float."""
    total = 0.0
    for start in range(0, len(points), chunk_size):
        chunk = points[start:start + chunk_size]
        loss = residual_loss(model, chunk, alpha, method) * (len(chunk) / len(points))
        loss.backward()
        total += loss.item()
    return total


def train_step(model, optimizer, points, alpha=ALPHA, method=laplacian_forward):
    """One step of the fixed training loop; returns the loss as a float, never the tensor.

    Nothing outlives the step but the parameters, their ``.grad`` and the optimizer's state, so
    memory stays flat from the second step on (the first allocates the optimizer's state).
    """
    optimizer.zero_grad(set_to_none=True)
    loss = residual_loss(model, points, alpha, method)
    loss.backward()
    optimizer.step()
    return loss.item()


def relative_l2_error(model, points, alpha=ALPHA):
    """``||u - u_exact|| / ||u_exact||`` on ``points`` (no graph is built)."""
    with torch.no_grad():
        exact = exact_solution(points, alpha)
        return ((model(points)[:, 0] - exact).norm() / exact.norm()).item()


def usual_pattern(model, points, alpha=ALPHA, detach=True, last_retain_graph=True, mark=None):
    """The residual as it is often posted with "memory fixes" applied; ``mark(label)`` is called after
    each line so that a meter can read it. Returns ``(u, u_t, residual)``.

    ``detach=True``: the Laplacian and ``u_t`` are detached, cloned and made ``requires_grad_(True)``
    (the residual then reaches no parameter). ``last_retain_graph=False``: the last second derivative
    frees the graph (a later backward through ``u`` or ``u_t`` raises).
    """
    mark = mark or (lambda label: None)
    x, y, t = (_as_leaf(points[:, k:k + 1]) for k in range(3))
    u = model(torch.cat([x, y, t], dim=1))
    mark("u = model(x, y, t)")
    ones = torch.ones_like(u)
    with torch.no_grad():  # "so that autograd.grad does not build a graph"
        u_t = torch.autograd.grad(u, t, ones, create_graph=True, retain_graph=True)[0]
        mark("u_t = grad(u, t)")
        u_x = torch.autograd.grad(u, x, ones, create_graph=True, retain_graph=True)[0]
        mark("u_x = grad(u, x)")
        u_y = torch.autograd.grad(u, y, ones, create_graph=True, retain_graph=True)[0]
        mark("u_y = grad(u, y)")
        u_xx = torch.autograd.grad(u_x, x, ones, create_graph=True, retain_graph=True)[0]
        mark("u_xx = grad(u_x, x)")
        u_yy = torch.autograd.grad(u_y, y, ones, create_graph=True, retain_graph=last_retain_graph)[0]
        mark(f"u_yy = grad(u_y, y, retain_graph={last_retain_graph})")
    laplacian = u_xx + u_yy
    mark("laplacian = u_xx + u_yy")
    if detach:
        laplacian = laplacian.detach().clone().requires_grad_(True)
        u_t = u_t.detach().clone().requires_grad_(True)
        mark("detach().clone().requires_grad_(True)")
    residual = u_t - alpha * laplacian
    mark("residual = u_t - alpha * laplacian")
    del u_x, u_y, u_xx, u_yy
    mark("del u_x, u_y, u_xx, u_yy")
    gc.collect()
    mark("gc.collect()")
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    mark("torch.cuda.empty_cache()")
    return u, u_t, residual


# --- measuring the methods ------------------------------------------------------------------------

def time_call(fn, repeats=5, clock=time.perf_counter):
    """Fastest time of ``fn()`` in seconds over ``repeats`` runs, after one warm-up run (noise from
    other programs only ever adds time). Wall time, or ``clock=time.process_time`` for this
    process's CPU time, which other programs on a shared machine inflate less (use it with one
    torch thread)."""
    def synchronize():
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    fn()
    times = []
    for _ in range(repeats):
        synchronize()
        start = clock()
        fn()
        synchronize()
        times.append(clock() - start)
    return min(times)


def _step(model, points, method, chunk_size=None):
    """One residual + backward step to the parameters, optionally in chunks of points."""
    model.zero_grad(set_to_none=True)
    chunked_backward(model, points, chunk_size or len(points), method=method)


def step_memory(model, points, method, chunk_size=None):
    """``(peak live bytes, peak saved bytes or None)`` of one residual + backward step.

    The live peak counts every tensor created during the step (the parameters' ``.grad`` included);
    the saved peak is the most the graph held at once (one chunk's graph when chunked). ``None``
    for ``torch.func`` methods, which refuse the graph meter.
    """
    model.zero_grad(set_to_none=True)
    live, graph, _result, _seconds = run_metered(_step, model, points, method, chunk_size)
    return live.peak, (graph.peak if graph else None)


def compare_laplacians(model, points, methods=None, repeats=5, reference_method=laplacian_nested,
                       clock=time.perf_counter):
    """One row per method: peak live bytes, peak saved bytes, milliseconds per residual + backward
    step, and the largest Laplacian error against ``reference_method`` run on a float64 copy on the
    CPU (MPS has no float64).

    ``methods``: ``{name: method}`` (default :data:`METHODS`); a value ``(method, chunk_size)`` runs
    the step in chunks of points with gradient accumulation. The last column of ``points`` is time.
    ``clock``: see :func:`time_call`.

    >>> rows = compare_laplacians(TanhMLP(3, 8, 2), sample_points(16), repeats=1)
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


DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def load_benchmarks(data_dir=DATA):
    """The ``benchmarks/laplacian.py`` results shipped in ``data/``: ``{device type: record}`` for every
    ``laplacian_<device>.json`` there (``cpu`` always; ``cuda`` once someone has run it on a GPU).

    >>> "cpu" in load_benchmarks()          # data/laplacian_cpu.json ships with the course
    True
    """
    return {path.stem.removeprefix("laplacian_"): json.loads(path.read_text())
            for path in sorted(pathlib.Path(data_dir).glob("laplacian_*.json"))}


def _float64_cpu_copy(model):
    return copy.deepcopy(model).to("cpu", torch.float64)
