"""The worked problem of notebook 05: a physics-informed network for the 2D heat equation, its leaks and fixes.

The problem: ``u_t = alpha * (u_xx + u_yy)`` on ``[0,1]^2 x [0,1]``, zero on the boundary,
``u(x, y, 0) = sin(pi x) sin(pi y)``; the exact solution is ``exp(-2 pi^2 alpha t) sin(pi x) sin(pi y)``.

What is here:

* the model :class:`HeatPINN`, whose ansatz ``u = sin(pi x) sin(pi y) (1 + t * mlp(x, y, t))`` meets the
  boundary and initial conditions exactly (the MLP is :class:`course_utils.problems.models.TanhMLP`);
* the residual and loss (:func:`heat_residual`, :func:`residual_loss`) with any Laplacian method of
  :mod:`course_utils.problems.laplacians`, gradient accumulation over chunks of points (:func:`chunked_backward`),
  the whole loss with each chunk's residual checkpointed, for one backward (:func:`checkpointed_loss`),
  the fixed training step (:func:`train_step`) and its error (:func:`relative_l2_error`);
* the pattern as it is usually posted, "memory fixes" included (:func:`usual_pattern`), so that tests and
  notebook examine the same code.

>>> from course_utils.problems.laplacians import laplacian_forward, laplacian_nested
>>> model = HeatPINN(width=16, depth=2)
>>> points = sample_points(8)
>>> u, gradient, laplacian = laplacian_forward(model, points, dims=SPACE)
>>> reference = laplacian_nested(model, points, dims=SPACE)[2]
>>> bool(torch.allclose(laplacian, reference, atol=1e-4))
True
"""
import gc
import math
from typing import Callable, Optional

import torch
from torch import nn

from .laplacian_methods import laplacian_forward, laplacian_nested
from .models import TanhMLP

__all__ = ["ALPHA", "SPACE", "TIME", "exact_solution", "sample_points", "grid_points", "HeatPINN",
           "heat_residual", "residual_loss", "chunked_backward", "checkpointed_loss", "train_step", "relative_l2_error",
           "usual_pattern"]

ALPHA = 0.05  # diffusivity: the solution decays to exp(-2 pi^2 0.05) = 37% by t = 1
SPACE = (0, 1)  # the columns x, y of a point (x, y, t)
TIME = 2


def exact_solution(points: torch.Tensor, alpha: float = ALPHA) -> torch.Tensor:
    """``exp(-2 pi^2 alpha t) sin(pi x) sin(pi y)`` at points ``(N, 3)``; returns shape ``(N,)``."""
    x, y, t = points.unbind(-1)
    return torch.exp(-2 * math.pi ** 2 * alpha * t) * torch.sin(math.pi * x) * torch.sin(math.pi * y)


def sample_points(n: int, seed: int = 0, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``n`` collocation points uniform in ``[0,1]^3`` (columns x, y, t), reproducible from ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(n, 3, generator=generator, dtype=dtype).to(device)


def grid_points(n_space: int = 21, n_time: int = 5, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A regular grid (held-out evaluation points): ``n_space**2 * n_time`` rows of (x, y, t)."""
    space = torch.linspace(0, 1, n_space, dtype=dtype)
    times = torch.linspace(0, 1, n_time, dtype=dtype)
    x, y, t = torch.meshgrid(space, space, times, indexing="ij")
    return torch.stack([x, y, t], dim=-1).reshape(-1, 3).to(device)


class HeatPINN(nn.Module):
    """``u(x, y, t) = sin(pi x) sin(pi y) * (1 + t * mlp(x, y, t))``.

    The factor ``sin(pi x) sin(pi y)`` is zero on the boundary and ``t = 0`` leaves the initial
    condition, so the network only has to learn the physics: the loss is the PDE residual alone.
    """

    def __init__(self, width: int = 32, depth: int = 3, seed: int = 0):
        super().__init__()
        self.mlp = TanhMLP(3, width=width, hidden_layers=depth, seed=seed)

    @staticmethod
    def _envelope(points):
        x, y = points[:, 0], points[:, 1]
        return torch.sin(math.pi * x) * torch.sin(math.pi * y)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        t = points[:, TIME:TIME + 1]
        return self._envelope(points).unsqueeze(1) * (1 + t * self.mlp(points))

    def value_gradient_laplacian(self, points: torch.Tensor, dims) -> tuple:
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


# --- the heat-equation loss ----------------------------------------------------------------------

def heat_residual(model: Callable, points: torch.Tensor, alpha: float = ALPHA,
                  method: Callable = laplacian_nested) -> torch.Tensor:
    """``u_t - alpha * laplacian(u)`` at each point, differentiable to the parameters. The last
    column of ``points`` is time, the others are space (x, y for the heat problem; any number for
    a generic MLP)."""
    space = range(points.shape[1] - 1)
    _, gradient, laplacian = method(model, points, space)
    return gradient[:, -1] - alpha * laplacian


def residual_loss(model: Callable, points: torch.Tensor, alpha: float = ALPHA,
                  method: Callable = laplacian_nested) -> torch.Tensor:
    """Mean squared PDE residual: the whole loss for :class:`HeatPINN` (its ansatz fixes the rest)."""
    return heat_residual(model, points, alpha, method).pow(2).mean()


def chunked_backward(model: nn.Module, points: torch.Tensor, chunk_size: int, alpha: float = ALPHA,
                     method: Callable = laplacian_nested) -> float:
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


def checkpointed_loss(model: nn.Module, points: torch.Tensor, chunk_size: int, alpha: float = ALPHA,
                      method: Callable = laplacian_nested) -> torch.Tensor:
    """The loss over all points as ONE tensor, each chunk's whole residual (network, derivatives and
    square) run under non-reentrant ``torch.utils.checkpoint``: the forward keeps only each chunk's
    points, and one ``backward()`` recomputes one chunk's graph at a time. The gradient is the
    unchunked one; unlike :func:`chunked_backward` the loss need not be a sum over chunks (anything
    built from this tensor can be backpropagated once).

    >>> model, points = HeatPINN(width=8, depth=2), sample_points(32)
    >>> loss = checkpointed_loss(model, points, chunk_size=8)
    >>> abs(loss.item() - residual_loss(model, points).item()) < 1e-6
    True
    """
    from torch.utils.checkpoint import checkpoint

    def chunk_loss(chunk):
        return residual_loss(model, chunk, alpha, method) * (len(chunk) / len(points))

    return sum(checkpoint(chunk_loss, points[start:start + chunk_size], use_reentrant=False)
               for start in range(0, len(points), chunk_size))


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, points: torch.Tensor, alpha: float = ALPHA,
               method: Callable = laplacian_forward) -> float:
    """One step of the fixed training loop; returns the loss as a float, never the tensor.

    Nothing outlives the step but the parameters, their ``.grad`` and the optimizer's state, so
    memory stays flat from the second step on (the first allocates the optimizer's state).
    """
    optimizer.zero_grad(set_to_none=True)
    loss = residual_loss(model, points, alpha, method)
    loss.backward()
    optimizer.step()
    return loss.item()


def relative_l2_error(model: Callable, points: torch.Tensor, alpha: float = ALPHA) -> float:
    """``||u - u_exact|| / ||u_exact||`` on ``points`` (no graph is built)."""
    with torch.no_grad():
        exact = exact_solution(points, alpha)
        return ((model(points)[:, 0] - exact).norm() / exact.norm()).item()


def usual_pattern(model: nn.Module, points: torch.Tensor, alpha: float = ALPHA, detach: bool = True,
                  last_retain_graph: bool = True, second_create_graph: bool = False,
                  mark: Optional[Callable[[str], None]] = None) -> tuple:
    """The residual as it is often posted with "memory fixes" applied; ``mark(label)`` is called after
    each line so that a meter can read it. Returns ``(u, u_t, residual)``.

    ``detach=True``: the Laplacian and ``u_t`` are detached, cloned and made ``requires_grad_(True)``
    (the residual then reaches no parameter). ``last_retain_graph=False``: the last second derivative
    frees the graph (a later backward through ``u`` or ``u_t`` raises). ``second_create_graph=False``, as
    posted: the second derivatives record no graph, so the Laplacian is a constant to the parameters even
    without the detach. The correct residual is ``detach=False, second_create_graph=True``.
    """
    mark = mark or (lambda label: None)
    x, y, t = (points[:, k:k + 1].detach().requires_grad_(True) for k in range(3))
    u = model(torch.cat([x, y, t], dim=1))
    mark("u = model(x, y, t)")
    ones = torch.ones_like(u)
    with torch.no_grad():  # "so that autograd.grad does not build a graph"
        u_t = torch.autograd.grad(u, t, ones, create_graph=True, retain_graph=True)[0]  # noqa: AGM005 (the posted pattern, measured)
        mark("u_t = grad(u, t)")
        u_x = torch.autograd.grad(u, x, ones, create_graph=True, retain_graph=True)[0]  # noqa: AGM005 (as posted)
        mark("u_x = grad(u, x)")
        u_y = torch.autograd.grad(u, y, ones, create_graph=True, retain_graph=True)[0]  # noqa: AGM005 (as posted)
        mark("u_y = grad(u, y)")
        u_xx = torch.autograd.grad(u_x, x, ones, create_graph=second_create_graph, retain_graph=True)[0]  # noqa: AGM005 (as posted)
        mark("u_xx = grad(u_x, x)")
        u_yy = torch.autograd.grad(u_y, y, ones, create_graph=second_create_graph, retain_graph=last_retain_graph)[0]  # noqa: AGM005 (as posted)
        mark(f"u_yy = grad(u_y, y, retain_graph={last_retain_graph})")
    laplacian = u_xx + u_yy
    mark("laplacian = u_xx + u_yy")
    if detach:
        laplacian = laplacian.detach().clone().requires_grad_(True)  # noqa: AGM006 (the posted fix, measured)
        u_t = u_t.detach().clone().requires_grad_(True)  # noqa: AGM006 (as posted)
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
