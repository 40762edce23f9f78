"""Timing a call: the fastest of a few runs, with the device synchronised around each.

Memory is measured exactly by the meters; time is noisy, so the course only ever compares times
taken in one run on one machine (notebook 05's tables, ``benchmarks/``), never in tests.

>>> seconds = time_call(lambda: sum(range(1000)), repeats=3)
>>> 0 < seconds < 1
True
"""
import time
from typing import Callable

import torch

__all__ = ["time_call"]


def _synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def time_call(fn: Callable[[], object], repeats: int = 5, clock: Callable[[], float] = time.perf_counter) -> float:
    """Fastest time of ``fn()`` in seconds over ``repeats`` runs, after one warm-up run (noise from
    other programs only ever adds time). Wall time, or ``clock=time.process_time`` for this
    process's CPU time, which other programs on a shared machine inflate less (use it with one
    torch thread)."""
    fn()
    times = []
    for _ in range(repeats):
        _synchronize()
        start = clock()
        fn()
        _synchronize()
        times.append(clock() - start)
    return min(times)
