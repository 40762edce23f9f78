"""Worked solutions for notebook 05, the Laplacian PINN (for instructors).

Run ``python solutions/05_laplacian_pinn.py`` to see the checkers' verdicts.
"""
import course_utils as cu
from course_utils.checks import nb05_laplacian_pinn as checks


def diagnose(step, steps=6):
    """Run the step a few times under both meters. A growing graph meter means a graph that no backward()
    freed is kept (a picture taken with grad on); live growth alone means leftovers (a kept loss after its
    backward: its points and their .grad); neither, nothing. The first step creates Adam's state: skip it."""
    trace = cu.Trace("mystery step")
    with cu.LiveTensors() as live, cu.GraphMemory() as graph:
        for i in range(steps):
            step()
            trace.record(i, live=live.bytes, saved=graph.bytes)
    live_growth = trace.growth_per_step("live", skip=1)
    if trace.growth_per_step("saved", skip=1) > 0:
        return "graph", live_growth
    return ("tensors" if live_growth > 0 else "nothing"), live_growth


def kept_loss_bytes(n_points, laplacian):
    """Part 2's law: the loss's own 4 bytes, plus, with nested autograd, the (N, 3) float32 leaf of points and
    the .grad that backward() filled for it (2 x 3 x 4 bytes per point); the forward Laplacian's points need no grad."""
    return 4 + (2 * 3 * 4 * n_points if laplacian == "nested" else 0)


def run_checks():
    return [checks.check_diagnosis(diagnose), checks.check_leak_bytes(kept_loss_bytes)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
