"""The trapezoid rule through a network: the integrand, the network, and chunked evaluation.

Notebook 03 integrates ``f(x) = x**2 + sin(x)`` over ``[0, pi]`` (exact value ``pi**3/3 + 2``)
and then a small tanh network ``f_theta``. What the graph saves for ``torch.trapezoid(f_theta(x), x)``
is ``activation_bytes(points, width, hidden_layers)``: each hidden layer keeps its tanh output
(``points x width`` numbers); besides these, only the grid ``x`` (the first layer's input) and the spacings
``diff(x)`` that trapezoid makes (``spacing_bytes(points)``) grow with the number of points.

>>> import torch
>>> x = torch.linspace(0, torch.pi, 1001, dtype=torch.float64)
>>> abs(torch.trapezoid(integrand(x), x).item() - EXACT_INTEGRAL) < 1e-5
True
>>> activation_bytes(points=100_000, width=256, hidden_layers=2)     # float32
204800000
"""
import math
from typing import Callable

import torch
from torch.utils.checkpoint import checkpoint

from .models import TanhMLP

__all__ = ["EXACT_INTEGRAL", "integrand", "grid", "ScalarNet", "activation_bytes", "spacing_bytes",
           "trapezoid_in_chunks"]

A, B = 0.0, math.pi
EXACT_INTEGRAL = math.pi ** 3 / 3 + 2  # integral of x**2 + sin x over [0, pi]


def integrand(x: torch.Tensor) -> torch.Tensor:
    """``f(x) = x**2 + sin(x)``, the notebook's function with a known integral."""
    return x ** 2 + torch.sin(x)


def grid(points: int, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``points`` equally spaced nodes on ``[0, pi]``, ends included."""
    return torch.linspace(A, B, points, device=device, dtype=dtype)


class ScalarNet(TanhMLP):
    """``f_theta``: one number to one number, applied pointwise to a 1-D tensor of nodes.

    ``ScalarNet(width=64, hidden_layers=2)`` is 1 -> 64 -> 64 -> 1.

    >>> ScalarNet(width=8)(torch.zeros(5)).shape
    torch.Size([5])
    """

    def __init__(self, width: int = 64, hidden_layers: int = 1, seed: int = 0):
        super().__init__(1, 1, width=width, hidden_layers=hidden_layers, seed=seed)

    def forward(self, x):
        return super().forward(x.unsqueeze(-1)).squeeze(-1)


def activation_bytes(points: int, width: int, hidden_layers: int = 1, dtype: torch.dtype = torch.float32) -> int:
    """Bytes the graph of ``trapezoid(ScalarNet(width, hidden_layers)(x), x)`` saves that grow with
    the points: one ``points x width`` tanh output per hidden layer (the next ``Linear`` saves the
    same tensor, so it counts once)."""
    return points * width * hidden_layers * torch.empty((), dtype=dtype).element_size()


def spacing_bytes(points: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of the spacings ``diff(x)`` that ``torch.trapezoid(y, x)`` makes and saves for backward:
    ``points - 1`` values. They are made inside a meter's block, so ``GraphMemory.by_kind`` files them
    under "activations" next to the network's own.

    >>> from course_utils import GraphMemory
    >>> x = grid(101)
    >>> with GraphMemory() as graph:
    ...     value = torch.trapezoid(ScalarNet(8)(x), x)
    >>> graph.by_kind["activations"] == activation_bytes(101, 8) + spacing_bytes(101)
    True
    """
    return (points - 1) * torch.empty((), dtype=dtype).element_size()


def trapezoid_in_chunks(f: Callable, x: torch.Tensor, chunk_size: int, use_checkpoint: bool = False) -> torch.Tensor:
    """The trapezoid integral of ``f`` over the nodes ``x``, evaluated ``chunk_size`` intervals at a time.

    Neighbouring chunks share their boundary node, so the sum of the pieces is the full trapezoid
    rule (up to rounding) while only one chunk's activations are alive at once. With
    ``use_checkpoint=True`` each chunk runs under ``torch.utils.checkpoint`` (non-reentrant): the
    graph keeps only the chunk's nodes and recomputes its activations during ``backward()``.

    >>> x = grid(101, dtype=torch.float64)
    >>> whole = torch.trapezoid(integrand(x), x)
    >>> torch.allclose(trapezoid_in_chunks(integrand, x, chunk_size=7), whole)
    True
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size counts intervals and must be at least 1, got {chunk_size}")

    def piece(nodes):
        return torch.trapezoid(f(nodes), nodes)

    total = None
    for start in range(0, x.numel() - 1, chunk_size):
        nodes = x[start:start + chunk_size + 1]
        part = checkpoint(piece, nodes, use_reentrant=False) if use_checkpoint else piece(nodes)
        total = part if total is None else total + part
    return total
