"""Worked solutions for notebook 05, the Laplacian PINN (for instructors).

Run ``python solutions/05_laplacian_pinn.py`` to see the checkers' verdicts.
"""
import torch

from course_utils import laplacians, pinn
from course_utils.checks import pinn as checks


def fixed_loop(model, optimizer, steps, grid):
    """Two leaks in the notebook's loop: ``losses.append(loss)`` kept each loss's graph leftovers
    (the points and their ``.grad``), and ``snapshots.append(model(grid))`` kept every picture's
    activations. Keep a float, and take the picture without a graph. New tensors go on
    ``grid.device``: the checker runs the loop on the CPU whatever device the notebook uses."""
    losses, snapshots = [], []
    for step in range(steps):
        points = pinn.sample_points(256, seed=step, device=grid.device)
        optimizer.zero_grad()
        loss = pinn.residual_loss(model, points)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % checks.SNAPSHOT_EVERY == 0:
            with torch.no_grad():
                snapshots.append(model(grid))
    return losses, snapshots


def laplacian_xy(u, points):
    """One backward for the whole gradient, then one per space column, keeping only the diagonal
    entry; ``create_graph=True`` both times so that the residual trains the network."""
    first, = torch.autograd.grad(u.sum(), points, create_graph=True)
    laplacian = 0
    for k in (0, 1):
        second, = torch.autograd.grad(first[:, k].sum(), points, create_graph=True)
        laplacian = laplacian + second[:, k]
    return laplacian


def choose_chunk_size(model, points, budget):
    """Measure the candidates from the largest down and keep the first that fits: the peak grows
    with the chunk, and large chunks are quick to measure (few chunks, few ops)."""
    for size in sorted(checks.CHUNK_CANDIDATES, reverse=True):
        if laplacians.step_memory(model, points, laplacians.laplacian_nested, size)[0] <= budget:
            return size


def run_checks():
    return [checks.check_fixed_loop(fixed_loop), checks.check_laplacian(laplacian_xy),
            checks.check_chunk_size(choose_chunk_size)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
