"""Explicit Euler through a learned vector field, and the ways to backpropagate through its steps.

Notebook 04 steps ``dx/dt = f_theta(x)`` with ``x_next = x + dt * f_theta(x)``. Each step's graph
saves the state it started from and one ``batch x width`` tanh output; how many steps' graphs are
alive at once is the whole story:

* :func:`full_backprop_gradient` keeps all of them (memory grows with the steps);
* :func:`truncated_gradient` keeps ``window`` of them (``window=1`` is a per-step ``detach()``);
* :func:`checkpointed_gradient` keeps only segment boundaries and recomputes the rest during backward.

>>> field = VectorField(width=8)
>>> x0, targets = make_problem(batch=4, steps=6)
>>> full = full_backprop_gradient(field, x0, targets, dt=0.1)
>>> torch.allclose(checkpointed_gradient(field, x0, targets, dt=0.1, segment=3), full)
True
>>> bool(torch.allclose(truncated_gradient(field, x0, targets, dt=0.1, window=6), full))
True
"""
import math
from typing import Callable

import torch
from torch.utils.checkpoint import checkpoint

from autograd_memory.measuring.meters import GraphMemory

from .models import TanhMLP

__all__ = ["harmonic_oscillator", "harmonic_solution", "euler", "VectorField", "step_bytes", "make_problem", "step_loss",
           "full_backprop_gradient", "truncated_gradient", "checkpointed_gradient", "cosine_similarity", "window_tradeoff",
           "DT", "euler_problem"]

ROTATION = torch.tensor([[0.0, 1.0], [-1.0, 0.0]])  # harmonic oscillator: position' = velocity, velocity' = -position


def harmonic_oscillator(x: torch.Tensor) -> torch.Tensor:
    """The field ``(position, velocity) -> (velocity, -position)`` of a unit harmonic oscillator."""
    return x @ ROTATION.to(x).T


def harmonic_solution(x0: torch.Tensor, t) -> torch.Tensor:
    """Exact state at time ``t`` starting from ``x0``: a rotation by angle ``t``."""
    c, s = math.cos(t), math.sin(t)
    position, velocity = x0[..., 0], x0[..., 1]
    return torch.stack([c * position + s * velocity, -s * position + c * velocity], dim=-1)


def euler(field: Callable, x0: torch.Tensor, dt: float, steps: int, detach: bool = False) -> list:
    """The Euler trajectory ``[x0, x1, ..., x_steps]``. ``detach=True`` cuts the graph between steps.

    >>> x = euler(harmonic_oscillator, torch.tensor([1.0, 0.0]), dt=0.5, steps=2)
    >>> x[-1]
    tensor([ 0.7500, -1.0000])
    """
    states = [x0]
    for _ in range(steps):
        x = states[-1].detach() if detach else states[-1]
        states.append(x + dt * field(x))
    return states


def VectorField(width: int = 64, hidden_layers: int = 1, seed: int = 0) -> TanhMLP:
    """A learned field ``f_theta``: a ``2 -> width -> 2`` tanh MLP (:class:`~course_utils.problems.models.TanhMLP`).

    Per Euler step with grad, the graph saves the incoming state (``batch x 2``) and the tanh output
    (``batch x width``): ``step_bytes(batch, width)`` in float32.
    """
    return TanhMLP(2, 2, width=width, hidden_layers=hidden_layers, seed=seed)


def step_bytes(batch: int, width: int, hidden_layers: int = 1, dtype: torch.dtype = torch.float32) -> int:
    """Bytes one Euler step of :class:`VectorField` saves for backward, once the state has a history."""
    return batch * (2 + width * hidden_layers) * torch.empty((), dtype=dtype).element_size()


def make_problem(batch: int = 32, steps: int = 50, dt: float = 0.05, seed: int = 0, device=None) -> tuple:
    """Start states and per-step targets: the harmonic oscillator's exact trajectory from random starts.

    ``targets[k]`` is the true state after ``k + 1`` steps of size ``dt``; the per-step loss is
    ``((x_{k+1} - targets[k]) ** 2).mean()``.
    """
    generator = torch.Generator().manual_seed(seed)
    x0 = torch.randn(batch, 2, generator=generator).to(device)
    targets = torch.stack([harmonic_solution(x0, dt * (k + 1)) for k in range(steps)])
    return x0, targets


def step_loss(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return ((x - target) ** 2).mean()


def _gradient(field):
    grads = [p.grad.flatten() if p.grad is not None else torch.zeros_like(p).flatten() for p in field.parameters()]
    field.zero_grad(set_to_none=True)
    return torch.cat(grads)


def full_backprop_gradient(field: torch.nn.Module, x0: torch.Tensor, targets: torch.Tensor, dt: float) -> torch.Tensor:
    """Gradient of the summed per-step losses through every step (one ``backward()`` at the end)."""
    return truncated_gradient(field, x0, targets, dt, window=len(targets))


def truncated_gradient(field: torch.nn.Module, x0: torch.Tensor, targets: torch.Tensor, dt: float, window: int) -> torch.Tensor:
    """Truncated backpropagation: ``backward()`` every ``window`` steps, then ``detach()`` the state.

    At most ``window`` steps' graphs are alive; gradients that would flow further back are dropped,
    so the result is biased unless ``window`` covers all steps.
    """
    field.zero_grad(set_to_none=True)
    x, total = x0, 0.0
    for k, target in enumerate(targets, start=1):
        x = x + dt * field(x)
        total = total + step_loss(x, target)
        if k % window == 0 or k == len(targets):
            total.backward()
            x, total = x.detach(), 0.0
    return _gradient(field)


def checkpointed_gradient(field: torch.nn.Module, x0: torch.Tensor, targets: torch.Tensor, dt: float,
                          segment: int) -> torch.Tensor:
    """The exact full-backprop gradient, keeping only every ``segment``-th state: each segment runs
    under ``torch.utils.checkpoint`` (non-reentrant) and is recomputed during ``backward()``."""

    def run_segment(x, segment_targets):
        loss = 0.0
        for target in segment_targets:
            x = x + dt * field(x)
            loss = loss + step_loss(x, target)
        return x, loss

    field.zero_grad(set_to_none=True)
    x, total = x0, 0.0
    for start in range(0, len(targets), segment):
        x, loss = checkpoint(run_segment, x, targets[start:start + segment], use_reentrant=False)
        total = total + loss
    total.backward()
    return _gradient(field)


def cosine_similarity(a: torch.Tensor, b: torch.Tensor) -> float:
    """Cosine of the angle between two flat gradients (1.0: same direction)."""
    return torch.nn.functional.cosine_similarity(a, b, dim=0).item()


def window_tradeoff(field: torch.nn.Module, x0: torch.Tensor, targets: torch.Tensor, dt: float, windows) -> dict:
    """For each truncation window: the peak bytes the graph saved, and the cosine between its gradient
    and full backpropagation's. Returns ``{window: (peak_saved_bytes, cosine)}``.

    >>> field, (x0, targets) = VectorField(width=8), make_problem(batch=4, steps=6)
    >>> table = window_tradeoff(field, x0, targets, dt=0.1, windows=[1, 6])
    >>> table[1][0] < table[6][0], round(table[6][1], 4)
    (True, 1.0)
    """
    full = full_backprop_gradient(field, x0, targets, dt)
    table = {}
    for window in windows:
        with GraphMemory() as graph:
            gradient = truncated_gradient(field, x0, targets, dt, window)
        table[window] = (graph.peak, cosine_similarity(gradient, full))
    return table


DT = 0.05  # notebook 04's step


def euler_problem(batch: int = 64, steps: int = 60, width: int = 64) -> tuple:
    """Notebook 04's set-up, which its checkers and its explorer share: ``(field, x0, targets)`` with fixed seeds.

    >>> field, x0, targets = euler_problem(batch=4, steps=3, width=8)
    >>> tuple(x0.shape), len(targets)
    ((4, 2), 3)
    """
    return (VectorField(width), *make_problem(batch, steps, DT))
