"""Each explorer's recompute time over its whole range: what one move of a control costs a learner.

    python benchmarks/explorers.py

A move re-measures (``Explorer.update``) and redraws the readout (``reading.html()``: the graph
picture in 01, the figure over the reference data for the Laplacian methods). The course promises
well under a second per move on 2 CPU cores; this prints every explorer's slowest setting against
that. CPU seconds of this process and its children (graphviz's ``dot``) on one torch thread (as notebooks
03-06 run), so that other programs on a shared machine slow the wall clock but not the figures; one setting after another
(the first call of a Laplacian method includes its warm-up, as a learner's first move does).
"""
import itertools
import os

import torch

from course_utils import explorers

BUDGET = 1.0


def moves(explorer):
    """Every combination of the explorer's control values, in order."""
    names = list(explorer.controls)
    for values in itertools.product(*(options for _, options, _ in explorer.controls.values())):
        yield dict(zip(names, values))


def cpu_seconds():
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def slowest(explorer):
    worst, where = 0.0, None
    for settings in moves(explorer):
        start = cpu_seconds()
        explorer.update(**settings)
        explorer.reading.html()
        seconds = cpu_seconds() - start
        if seconds > worst:
            worst, where = seconds, settings
    return worst, where


def main():
    torch.set_num_threads(1)
    print(f"{'explorer':<22}{'slowest move':>14}  setting")
    for name, panel in explorers.PANELS.items():  # every notebook's explorer, found in course_utils/explorers/
        seconds, settings = slowest(panel())
        flag = "" if seconds < BUDGET else f"  OVER {BUDGET:.0f} s"
        print(f"{name:<22}{seconds * 1e3:>11.0f} ms  {settings}{flag}")


if __name__ == "__main__":
    main()
