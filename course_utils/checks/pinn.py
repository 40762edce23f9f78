"""Checkers for notebook 05, the Laplacian PINN: a leaky loop (notebook 06's exercises are in
:mod:`course_utils.checks.nb06_which_laplacian`).

>>> def fixed_loop(model, optimizer, steps, grid):
...     raise NotImplementedError
>>> check_fixed_loop(fixed_loop).status
'not attempted'

Every checker builds its own small, seeded problem from :mod:`course_utils.pinn`, so the learner's code and
the checker see the same model and points.
"""
import copy

import torch

from .. import pinn
from ..meters import LiveTensors
from ..units import format_bytes
from . import exercise, expect

SNAPSHOT_EVERY = 5  # the loops keep a picture of u every 5 steps


def loop_problem(seed=0):
    """``(model, optimizer, grid)`` for the leaky-loop exercise: a small :class:`~course_utils.pinn.HeatPINN`,
    Adam, and the grid where the loop takes its snapshots of ``u``."""
    model = pinn.HeatPINN(width=16, depth=2, seed=seed)
    return model, torch.optim.Adam(model.parameters(), lr=1e-2), pinn.grid_points(11, 3)


def _run_loop(loop, steps):
    """Run ``loop`` on a fresh problem; return (losses, snapshots, live bytes held after it, parameters moved)."""
    model, optimizer, grid = loop_problem()
    start = copy.deepcopy(model.state_dict())
    with LiveTensors() as live:
        losses, snapshots = loop(model, optimizer, steps, grid)
    moved = any(not torch.equal(start[name], value) for name, value in model.state_dict().items())
    del model, optimizer
    return losses, snapshots, live.bytes, moved


@exercise("Find the leak in a PINN training loop")
def check_fixed_loop(loop):
    """``loop(model, optimizer, steps, grid) -> (losses, snapshots)`` trains ``steps`` steps, keeps one
    loss per step and a picture ``u(grid)`` every :data:`SNAPSHOT_EVERY` steps. Fixed means: it still
    trains, and what it keeps grows by exactly the pictures' own bytes, nothing more."""
    losses, snapshots, held_short, moved = _run_loop(loop, SNAPSHOT_EVERY)
    expect(moved, "the parameters did not change: the loop must still call loss.backward() and optimizer.step()")
    expect(len(losses) == SNAPSHOT_EVERY, f"keep one loss per step: {SNAPSHOT_EVERY} steps gave {len(losses)} losses")
    tensors = [type(loss).__name__ for loss in losses if isinstance(loss, torch.Tensor)]
    expect(not tensors, "losses holds tensors; each one keeps its graph's leftovers (the points and their .grad) "
                        "alive. Keep loss.item(), a float.")
    with_graph = [i for i, u in enumerate(snapshots) if u.requires_grad]
    expect(not with_graph, f"snapshots {with_graph} still belong to a graph (requires_grad=True): every picture keeps "
                           "all the activations of model(grid). Take it under torch.no_grad() or with .detach().")
    short_pictures = len(snapshots)
    losses, snapshots, held_long, _ = _run_loop(loop, 3 * SNAPSHOT_EVERY)
    expect(len(snapshots) > short_pictures, f"keep a picture every {SNAPSHOT_EVERY} steps: "
                                            f"{3 * SNAPSHOT_EVERY} steps gave {len(snapshots)}")
    picture_bytes = snapshots[-1].untyped_storage().nbytes()
    extra_pictures = len(snapshots) - short_pictures
    growth = held_long - held_short - extra_pictures * picture_bytes
    expect(growth == 0, f"after {3 * SNAPSHOT_EVERY} steps the loop holds {format_bytes(growth)} more than after "
                        f"{SNAPSHOT_EVERY} steps beyond its extra pictures: something else is kept every step.")
    return (f"it trains, and {2 * SNAPSHOT_EVERY} more steps cost exactly {extra_pictures} more pictures "
            f"({format_bytes(picture_bytes)} each) and not a byte more.")
