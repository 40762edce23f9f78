"""Checkers for notebook 06, which Laplacian: a Laplacian by hand, a chunk size that meets a budget.

>>> def my_laplacian(u, points):
...     raise NotImplementedError
>>> check_laplacian(my_laplacian).status
'not attempted'

Every checker builds its own small, seeded problem from :mod:`course_utils.problems.pinn` and measures it with
:mod:`course_utils.problems.laplacians`, so the learner's code and the checker see the same model and points.
"""
import torch

from autograd_memory import format_bytes

from ..problems import laplacians, pinn
from . import exercise, expect

__all__ = ["check_laplacian", "check_chunk_size", "chunk_problem", "CHUNK_CANDIDATES"]


def _laplacian_problem():
    model = pinn.HeatPINN(width=16, depth=2, seed=1).double()
    points = pinn.sample_points(64, seed=1, dtype=torch.float64).requires_grad_(True)
    return model, points


@exercise("Write the Laplacian u_xx + u_yy with autograd.grad on one (N, 3) input")
def check_laplacian(laplacian):
    """``laplacian(u, points) -> (N,)`` (or ``(N, 1)``), with ``points`` an ``(N, 3)`` leaf of
    (x, y, t) that requires grad and ``u = model(points)`` of shape ``(N, 1)``."""
    model, points = _laplacian_problem()
    u = model(points)
    answer = laplacian(u, points)
    expect(isinstance(answer, torch.Tensor), f"return a tensor, got {type(answer).__name__}")
    expect(answer.numel() == len(points), f"return one number per point ({len(points)}), got shape {tuple(answer.shape)}")
    answer = answer.reshape(-1)
    right = laplacians.laplacian_forward(model, points.detach(), pinn.SPACE)[2]
    close = lambda value: torch.allclose(answer.detach(), value.detach(), rtol=1e-8, atol=1e-8)
    with_time = laplacians.laplacian_forward_over_reverse(model, points.detach(), (0, 1, 2))[2]
    expect(not close(laplacians.laplacian_row_sums(model, points.detach(), pinn.SPACE)[2]),
           "these are Hessian ROW SUMS: with grad_outputs=ones on the whole (N, 3) gradient, backward adds up "
           "the derivatives of all three of its columns. Which column of the first gradient is u_x, and what would "
           "you differentiate so that only u_xx comes back?")
    expect(not close(with_time), "this includes u_tt: the heat equation's Laplacian is over space only (columns 0 and 1)")
    error = (answer.detach() - right).abs().max().item()
    expect(close(right), f"wrong values: largest difference from u_xx + u_yy is {error:.3g}")
    expect(answer.grad_fn is not None,
           "the values are right but carry no graph, so a residual built from them cannot train the network: "
           "pass create_graph=True to both autograd.grad calls")
    answer.pow(2).sum().backward()
    expect(all(p.grad is not None for p in model.parameters()),
           "the result does not reach every parameter: keep create_graph=True and do not detach")
    return f"matches the forward-mode Laplacian to {error:.1e} and sends gradient to every parameter."


CHUNK_CANDIDATES = (32, 64, 128, 256, 512, 1024)


def chunk_problem():
    """``(model, points, budget)`` for the chunk-size exercise: a 3 -> 32 x 3 -> 1 HeatPINN, 1,024
    points, and a peak-bytes budget for one residual + backward step (nested ``autograd.grad``).
    The budget lies halfway between the peaks of two candidate chunk sizes, so one answer is right."""
    model = pinn.HeatPINN(width=32, depth=3, seed=2)
    xyt = pinn.sample_points(1024, seed=2)
    low, high = (laplacians.step_memory(model, xyt, laplacians.laplacian_nested, size)[0] for size in (128, 256))
    return model, xyt, (low + high) // 2


@exercise("Choose the chunk size that meets a peak-bytes budget")
def check_chunk_size(choose):
    """``choose(model, points, budget) -> chunk size``: the largest of :data:`CHUNK_CANDIDATES` whose
    residual + backward step (nested autograd, :func:`chunk_problem`) peaks within ``budget`` bytes."""
    model, points, budget = chunk_problem()
    chunk_size = choose(model, points, budget)
    expect(chunk_size in CHUNK_CANDIDATES, f"pick one of {CHUNK_CANDIDATES}, got {chunk_size!r}")
    peak = laplacians.step_memory(model, points, laplacians.laplacian_nested, chunk_size)[0]
    expect(peak <= budget, f"chunks of {chunk_size} peak at {format_bytes(peak)}, over the budget of "
                           f"{format_bytes(budget)}: take smaller chunks")
    bigger = CHUNK_CANDIDATES.index(chunk_size) + 1
    if bigger < len(CHUNK_CANDIDATES):
        next_peak = laplacians.step_memory(model, points, laplacians.laplacian_nested, CHUNK_CANDIDATES[bigger])[0]
        expect(next_peak > budget, f"chunks of {CHUNK_CANDIDATES[bigger]} also fit ({format_bytes(next_peak)} <= "
                                   f"{format_bytes(budget)}): bigger chunks mean fewer, faster steps")
    return f"chunks of {chunk_size} peak at {format_bytes(peak)} <= budget {format_bytes(budget)}; the next size up does not fit."
