"""Pace a loop so that a person can watch its gauge move.

A live gauge redraws at most ten times a second, so a loop that finishes in 50 ms shows one frame:
the learner sees the end, never the growth. ``paced`` spreads a short loop over a few seconds
(each step sleeps for what it did not take of its share), and changes nothing else:
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

    Sized like the iterable it wraps, so ``gauge.track`` still knows the total. Every step takes at
    least its share, so the gauge redraws evenly; a step slower than its share makes the loop longer.
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
        share = self.seconds / max(1, len(self.iterable))
        for item in self.iterable:
            started = time.monotonic()  # after the item is made: a slow first item (a lazy import) is not paced
            yield item
            time.sleep(max(0.0, started + share - time.monotonic()))
