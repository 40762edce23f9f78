"""Checkers for notebook 06, which Laplacian: a Laplacian by hand, a chunk size that meets a budget.

>>> def my_laplacian(u, points):
...     raise NotImplementedError
>>> check_laplacian(my_laplacian).status
'not attempted'

Every checker builds its own small, seeded problem from :mod:`course_utils.problems.pinn` and measures it with
:mod:`course_utils.problems.laplacians`, so the learner's code and the checker see the same model and points.
"""
import functools

import torch

from autograd_memory import format_bytes

from ..problems import laplacians, pinn
from . import exercise, expect, fail

__all__ = ["check_laplacian", "check_chunk_size", "chunk_problem", "CHUNK_CANDIDATES"]


def _laplacian_problem():
    model = pinn.HeatPINN(width=16, depth=2, seed=1).double()
    points = pinn.sample_points(64, seed=1, dtype=torch.float64).requires_grad_(True)
    return model, points


_POSTED_BUG = "the posted PINN bug that notebook 05 analyses (its Part 1): second derivatives taken without create_graph=True"
_LAPLACIAN_ERRORS = {
    "backward through the graph a second time":
        f"{_POSTED_BUG}. The first of them freed the graph of the first derivative, which the next one needs; and with "
        "retain_graph=True instead, the Laplacian would carry no graph for the residual to train on. Pass "
        "create_graph=True to every autograd.grad of the Laplacian, the second derivatives too",
    "differentiated Tensors does not require grad":
        "autograd.grad was asked for derivatives with respect to a tensor that does not require grad. points.detach() "
        "is a new tensor (u was not computed from it), and points after requires_grad_(False) records nothing. "
        "Differentiate with respect to points itself, as the checker gives it; in your own set-up, give the points "
        "requires_grad=True before the forward pass (points.requires_grad_())",
    "does not require grad and does not have a grad_fn":
        "the first derivative carries no graph, so autograd.grad cannot differentiate it again: pass create_graph=True "
        "to the first autograd.grad. retain_graph=True only keeps u's graph alive; create_graph=True records the "
        "derivative's own graph, which the second one needs",
    "not have been used in the graph":
        "autograd.grad was asked for a derivative with respect to a tensor that what it differentiates was not computed "
        "from. A column slice points[:, k] is a new tensor that u never saw, and a first derivative that was detached "
        "(or computed without create_graph=True) no longer depends on points: differentiate with respect to points, "
        "keep create_graph=True, and take column k of the result",
}


@exercise("Write the Laplacian u_xx + u_yy with autograd.grad on one (N, 3) input", errors=_LAPLACIAN_ERRORS)
def check_laplacian(laplacian):
    """``laplacian(u, points) -> (N,)`` (or ``(N, 1)``), with ``points`` an ``(N, 3)`` leaf of
    (x, y, t) that requires grad and ``u = model(points)`` of shape ``(N, 1)``."""
    model, points = _laplacian_problem()
    u = model(points)
    answer = laplacian(u, points)
    expect(isinstance(answer, torch.Tensor), f"return a tensor, got {type(answer).__name__}")
    expect(tuple(answer.shape) != (len(points), 2),
           f"you returned shape {tuple(answer.shape)}: u_xx and u_yy side by side, it seems. The Laplacian is their sum: "
           "add the two columns, one number per point")
    expect(answer.numel() == len(points), f"return one number per point ({len(points)}), got shape {tuple(answer.shape)}")
    answer = answer.reshape(-1)
    at = points.detach()
    right = laplacians.laplacian_forward(model, at, pinn.SPACE)[2]
    close = lambda value: torch.allclose(answer.detach(), value.detach(), rtol=1e-8, atol=1e-8)
    near_misses = {  # what a plausible mistake computes -> the idea it misses
        "these are Hessian ROW SUMS: with grad_outputs=ones on the whole (N, 3) gradient, backward adds up the derivatives "
        "of all three of its columns. Which column of the first gradient is u_x, and what would you differentiate so "
        "that only u_xx comes back?": laplacians.laplacian_row_sums(model, at, pinn.SPACE)[2],
        "this includes u_tt: the heat equation's Laplacian is over space only (columns 0 and 1)":
            laplacians.laplacian_forward_over_reverse(model, at, (0, 1, 2))[2],
        "this is the Laplacian with the wrong sign: u_xx + u_yy, each second derivative added as it comes": -right,
        "this is only u_xx: the Laplacian adds u_yy (column 1 of the second derivative of u_y)":
            laplacians.laplacian_forward(model, at, (0,))[2],
        "this is only u_yy: the Laplacian adds u_xx (column 0 of the second derivative of u_x)":
            laplacians.laplacian_forward(model, at, (1,))[2],
        f"these are the second derivatives divided by N = {len(points)}: u.mean() scales every point's derivative by "
        "1/N. Differentiate u.sum() (or pass grad_outputs=torch.ones_like(u)): each point's u depends on its own point "
        "only, so the sum's derivative is each point's own": right / len(points),
    }
    for idea, value in near_misses.items():
        expect(not close(value), idea)
    error = (answer.detach() - right).abs().max().item()
    expect(close(right), f"wrong values: largest difference from u_xx + u_yy is {error:.3g}. Per point: the first "
                         "autograd.grad of u.sum() with respect to points gives (u_x, u_y, u_t); differentiate column 0 "
                         "again and keep column 0 (u_xx), the same for column 1 (u_yy), and add them.")
    expect(answer.grad_fn is not None,
           f"{_POSTED_BUG}: the values are right but carry no graph, so a residual built from them cannot train the "
           "network (05 shows it training to the wrong answer). Pass create_graph=True to every autograd.grad call")
    answer.pow(2).sum().backward()
    expect(all(p.grad is not None for p in model.parameters()),
           "the result does not reach every parameter: keep create_graph=True and do not detach")
    return f"matches the forward-mode Laplacian to {error:.1e} and sends gradient to every parameter."


CHUNK_CANDIDATES = (32, 64, 128, 256, 512, 1024)


def chunk_problem():
    """``(model, points, budgets)`` for the chunk-size exercise: a 3 -> 32 x 3 -> 1 HeatPINN, 1,024 points, and the
    peak-bytes budgets the checker tries for one residual + backward step (nested ``autograd.grad``), with the chunk
    size each allows: ``{budget: largest candidate that fits}``."""
    model, points, peaks = _chunk_peaks()
    return model, points, _budgets(peaks)


def _chunk_peaks():
    model = pinn.HeatPINN(width=32, depth=3, seed=2)
    points = pinn.sample_points(1024, seed=2)
    return model, points, dict(_reference_peaks())


@functools.cache
def _reference_peaks():
    """The peaks of chunks of 128, 256 and 512 on :func:`_chunk_peaks`' seeded problem: exact bytes, measured once."""
    model, points = pinn.HeatPINN(width=32, depth=3, seed=2), pinn.sample_points(1024, seed=2)
    return tuple((size, _peak(model, points, size)) for size in (128, 256, 512))


def _budgets(peaks):
    """One budget 1 kB short of chunks of 512's peak, one 1 kB above chunks of 128's (the peak grows with the chunk):
    no single answer fits both, and neither the graph's saved bytes, nor another Laplacian's step, nor one
    measurement scaled in proportion to the chunk picks the right size at both."""
    return {budget: max(size for size, peak in peaks.items() if peak <= budget)
            for budget in (peaks[512] - 1024, peaks[128] + 1024)}


def _peak(model, points, chunk_size):
    return laplacians.step_memory(model, points, laplacians.laplacian_nested, chunk_size)[0]


@exercise("Choose the chunk size that meets a peak-bytes budget")
def check_chunk_size(choose):
    """``choose(model, points, budget) -> chunk size``: the largest of :data:`CHUNK_CANDIDATES` whose
    residual + backward step (nested autograd, :func:`chunk_problem`) peaks within ``budget`` bytes; the checker
    asks for each of :func:`chunk_problem`'s budgets."""
    model, points, peaks = _chunk_peaks()
    found = []
    for budget, right in _budgets(peaks).items():
        chunk_size = choose(model, points, budget)
        expect(not isinstance(chunk_size, str), f"you returned text, not a number ({chunk_size!r}): return the chunk "
                                                "size as an int, one of CHUNK_CANDIDATES")
        expect(not (isinstance(chunk_size, (int, float)) and chunk_size > max(CHUNK_CANDIDATES)),
               f"{chunk_size!r} is a number of bytes, not a chunk size, it seems: return the chunk size (points per "
               f"chunk, one of {CHUNK_CANDIDATES}) whose step fits the budget, not the step's peak")
        expect(chunk_size in CHUNK_CANDIDATES, f"pick one of {CHUNK_CANDIDATES}, got {chunk_size!r}")
        if chunk_size == right:
            found.append(f"{format_bytes(budget)} -> chunks of {chunk_size}")
            continue
        peak = peaks.get(chunk_size) or _peak(model, points, chunk_size)
        expect(peak <= budget,
               f"a budget of {format_bytes(budget)}: chunks of {chunk_size} peak at {format_bytes(peak)}, over the "
               "budget: take smaller chunks. Measure what the budget counts, for each candidate: the peak of every live "
               "tensor (step_memory's first number; the graph's saved bytes, its second, are only part of it) in nested "
               "autograd.grad's step (not another Laplacian's). The peak is not proportional to the chunk either: the "
               "parameters, their .grad and the step's own tensors come on top of the chunk's graph.")
        fail(f"a budget of {format_bytes(budget)}: chunks of {right} also fit ({format_bytes(peaks[right])} <= "
             f"{format_bytes(budget)}): bigger chunks mean fewer, faster steps. Is {chunk_size} the answer for another "
             "budget? Measure at the budget you are given.")
    return "; ".join(found) + ": the largest candidate that fits, at each budget."
