"""Every way the course computes a Laplacian: eight methods, all with the signature
``method(model, points, dims) -> (u, gradient, laplacian)`` (shapes ``(N,)``, ``(N, d)``, ``(N,)``; ``dims`` are the
input columns the Laplacian sums over) and all differentiable to the parameters: :func:`laplacian_nested`,
:func:`laplacian_separate`, :func:`laplacian_vmap_hessian`, :func:`laplacian_forward_over_reverse`,
:func:`laplacian_forward`, :func:`laplacian_hutchinson`, :func:`laplacian_finite_difference` (approximate: its error
depends on its step ``h``), and the pitfall :func:`laplacian_row_sums`, which is *wrong* on purpose.
:mod:`course_utils.problems.laplacians` measures what each costs (and names them all too).

>>> from course_utils.problems.models import TanhMLP
>>> model = TanhMLP(3, width=16, hidden_layers=2)
>>> points = torch.rand(8, 3)
>>> u, gradient, laplacian = laplacian_forward(model, points, dims=(0, 1))
>>> reference = laplacian_nested(model, points, dims=(0, 1))[2]
>>> bool(torch.allclose(laplacian, reference, atol=1e-4))
True
"""
import torch

__all__ = ["laplacian_nested", "laplacian_separate", "laplacian_row_sums", "laplacian_vmap_hessian",
           "laplacian_forward_over_reverse", "laplacian_forward", "laplacian_hutchinson", "hutchinson_variance",
           "laplacian_finite_difference", "finite_difference_step", "METHODS"]

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
    (the model's ``value_gradient_laplacian``; :class:`~course_utils.problems.models.TanhMLP` and
    :class:`~course_utils.problems.pinn.HeatPINN` have one)."""
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

    >>> from course_utils.problems.models import TanhMLP
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


def finite_difference_step(dtype: torch.dtype = torch.float32) -> float:
    """The step ``h`` at which a central second difference's two errors meet, by their orders: truncation grows as
    ``h**2``, cancellation (two nearly equal values subtracted, then divided by ``h**2``) as ``eps / h**2``, so their
    sum is least near ``eps ** (1/4)`` (the constants in front, the function's fourth derivative and its size, move
    it by their fourth root only).

    >>> round(finite_difference_step(torch.float32), 3), round(finite_difference_step(torch.float64), 5)
    (0.019, 0.00012)
    """
    return torch.finfo(dtype).eps ** 0.25


def laplacian_finite_difference(model, points: torch.Tensor, dims, h: float = None) -> tuple:
    """APPROXIMATE: central differences, ``u_kk ~ (u(x + h e_k) - 2 u(x) + u(x - h e_k)) / h**2`` and
    ``u_k ~ (u(x + h e_k) - u(x - h e_k)) / 2h``: ``2d + 1`` network evaluations per point (``d`` input columns), in
    one batch, and no derivative taken by autograd, so no ``create_graph``: the graph is the forward pass's only.
    Its error is truncation (``~ h**2``) plus cancellation (``~ eps / h**2``); ``h`` defaults to
    :func:`finite_difference_step` of the points' dtype.

    >>> from course_utils.problems.models import TanhMLP
    >>> model, points = TanhMLP(3, width=8, hidden_layers=2).double(), torch.rand(4, 3, dtype=torch.float64)
    >>> approximate = laplacian_finite_difference(model, points, (0, 1))[2]
    >>> bool(torch.allclose(approximate, laplacian_nested(model, points, (0, 1))[2], atol=1e-6))
    True
    """
    h = finite_difference_step(points.dtype) if h is None else h
    n, d = points.shape
    steps = h * torch.eye(d, dtype=points.dtype, device=points.device).unsqueeze(1)   # (d, 1, d): h e_k
    shifted = torch.cat([points.unsqueeze(0), points + steps, points - steps])        # (2d + 1, N, d)
    values = model(shifted.reshape(-1, d))[:, 0].reshape(2 * d + 1, n)
    u, plus, minus = values[0], values[1:d + 1], values[d + 1:]
    gradient = ((plus - minus) / (2 * h)).T
    second = (plus - 2 * u + minus) / h ** 2
    return u, gradient, second[list(dims)].sum(0)


METHODS = {
    "nested autograd.grad, one (N, d) input": laplacian_nested,
    "nested autograd.grad, separate columns": laplacian_separate,
    "torch.func vmap(hessian)": laplacian_vmap_hessian,
    "torch.func forward-over-reverse (jvp of grad)": laplacian_forward_over_reverse,
    "forward Laplacian (one pass)": laplacian_forward,
    "Hutchinson, 1 probe (stochastic)": laplacian_hutchinson,
}
