"""The course's one network: a small tanh MLP, reproducible from a seed, that counts what it evaluates.

Notebooks 03 (the integrand), 04 (the vector field), 05 (the PINN and the Laplacian methods), the selftest
and the benchmarks all build on it, so a byte count derived for one is derived for all: each hidden layer
saves one ``points x width`` tanh output. It also carries its own forward-mode Laplacian
(:meth:`TanhMLP.value_gradient_laplacian`), which :func:`course_utils.problems.laplacians.laplacian_forward` calls.

>>> import torch
>>> net = TanhMLP(inputs=2, outputs=2, width=8)
>>> net(torch.zeros(5, 2)).shape, net.calls, net.points_seen
(torch.Size([5, 2]), 1, 5)
>>> [tuple(layer.weight.shape) for layer in TanhMLP(3, width=4, hidden_layers=2).linears]
[(4, 3), (4, 4), (1, 4)]
"""
import torch

__all__ = ["TanhMLP", "mlp_problem"]


class TanhMLP(torch.nn.Module):
    """``inputs -> width (x hidden_layers, tanh) -> outputs``; the same weights for the same ``seed``.

    ``calls`` and ``points_seen`` count forward passes and the rows they evaluated, so a checkpoint's
    recomputation can be counted instead of timed. ``linears`` lists the ``nn.Linear`` layers in order.
    """

    def __init__(self, inputs: int, outputs: int = 1, *, width: int = 64, hidden_layers: int = 1, seed: int = 0):
        super().__init__()
        if hidden_layers < 1:
            raise ValueError(f"a TanhMLP needs at least one hidden layer, got hidden_layers={hidden_layers}")
        with torch.random.fork_rng(devices=[]):  # the same weights for a seed, the global RNG untouched
            torch.manual_seed(seed)
            layers = [torch.nn.Linear(inputs, width), torch.nn.Tanh()]
            for _ in range(hidden_layers - 1):
                layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
            layers.append(torch.nn.Linear(width, outputs))
            self.layers = torch.nn.Sequential(*layers)
        self.width, self.hidden_layers = width, hidden_layers
        self.calls = self.points_seen = 0

    def __getitem__(self, index):
        """The layers, as in an ``nn.Sequential``: ``net[-1]`` is the output layer, ``net[:-1]`` the body."""
        return self.layers[index]

    @property
    def linears(self) -> list:
        return [layer for layer in self.layers if isinstance(layer, torch.nn.Linear)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        self.points_seen += x.shape[:-1].numel()
        return self.layers(x)

    def value_gradient_laplacian(self, points: torch.Tensor, dims) -> tuple:
        """The forward-mode Laplacian of the first output: ``(u, gradient, laplacian)`` with shapes
        ``(N,)``, ``(N, inputs)``, ``(N,)``, the Laplacian summed over the input columns ``dims``.

        One forward pass carries, for every unit, its value h, its gradient J (one number per input
        and point) and its Laplacian L. A linear layer maps J and L linearly (the first one's J is its
        weight, its L is zero); tanh maps ``h -> tanh(h)``, ``J -> s J``, ``L -> s L + s' |J_dims|^2``
        with ``s = 1 - tanh^2`` and ``s' = -2 tanh s``. Differentiable to the parameters; the points
        need no grad.

        >>> net = TanhMLP(2, width=8, hidden_layers=2).double()
        >>> x = torch.rand(4, 2, dtype=torch.float64)
        >>> u, gradient, laplacian = net.value_gradient_laplacian(x, dims=(0, 1))
        >>> hessian = torch.func.hessian(lambda p: net(p.unsqueeze(0))[0, 0])(x[0])
        >>> bool(torch.isclose(laplacian[0], hessian.trace()))
        True
        """
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



def mlp_problem(seed: int = 0, width: int = 64, batch: int = 512, n_batches: int = 4) -> tuple:
    """The small regression problem of notebooks 01 and 02: ``(model, batches)``, a 2 -> width -> width -> 1
    :class:`TanhMLP` (``model[-1]`` is the head, the rest the body) and ``n_batches`` batches ``(x, y)`` of
    ``y = sin(x0) * cos(x1)``, all from ``seed`` (the global RNG untouched).

    >>> model, batches = mlp_problem(batch=8, n_batches=2)
    >>> model[-1], [tuple(x.shape) for x, y in batches]
    (Linear(in_features=64, out_features=1, bias=True), [(8, 2), (8, 2)])
    """
    generator = torch.Generator().manual_seed(seed)
    model = TanhMLP(2, 1, width=width, hidden_layers=2, seed=seed)
    batches = []
    for _ in range(n_batches):
        x = torch.rand(batch, 2, generator=generator) * 6 - 3
        batches.append((x, x[:, :1].sin() * x[:, 1:].cos()))
    return model, batches


def _index(dims):
    """``dims`` as a slice when they are consecutive (a view, no copy), else as a list."""
    dims = list(dims)
    if dims == list(range(dims[0], dims[-1] + 1)):
        return slice(dims[0], dims[-1] + 1)
    return dims
