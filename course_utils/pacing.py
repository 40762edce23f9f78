"""Pace a loop so that a person can watch its gauge move.

A live gauge redraws at most ten times a second, so a loop that finishes in 50 ms shows one frame:
the learner sees the end, never the growth. ``paced`` spreads a short loop over a few seconds
(it sleeps after each step, by what the step itself did not take), and changes nothing else:
the meters count tensors, and sleeping creates none.

>>> import time
>>> start = time.monotonic()
>>> [step for step in paced(range(5), seconds=0.1)]
[0, 1, 2, 3, 4]
>>> time.monotonic() - start >= 0.1
True
"""
import time

__all__ = ["paced"]


class paced:
    """``for step in gauge.track(paced(range(20), seconds=3)):`` -- the 20 steps take about 3 s in all.

    Sized like the iterable it wraps, so ``gauge.track`` still knows the total. A step slower than
    its share is not made up for later: the loop then just takes longer.
    """

    def __init__(self, iterable, seconds):
        if not hasattr(iterable, "__len__"):
            raise TypeError(f"paced() spreads a known number of steps over time: give it a range or a list, "
                            f"not a {type(iterable).__name__}")
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds}")
        self.iterable, self.seconds = iterable, seconds

    def __len__(self):
        return len(self.iterable)

    def __iter__(self):
        start, share = time.monotonic(), self.seconds / max(1, len(self.iterable))
        for step, item in enumerate(self.iterable, start=1):
            yield item
            time.sleep(max(0.0, start + step * share - time.monotonic()))
