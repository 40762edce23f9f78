"""For your tests: a training step that must not leak.

>>> import torch
>>> from autograd_memory.testing import assert_no_leak
>>> w = torch.ones(100, requires_grad=True)
>>> def step():
...     (w * 2).sum().backward()
>>> _ = assert_no_leak(step)                          # flat: passes
>>> kept = []
>>> assert_no_leak(lambda: kept.append(w * 2))        # doctest: +ELLIPSIS
Traceback (most recent call last):
AssertionError: the step leaks: find_leaks: 5 steps after 1 warm-up: live tensors +400 B/step...
"""
from .diagnosing.leaks import find_leaks

__all__ = ["assert_no_leak"]


def assert_no_leak(step, steps: int = 5, warmup: int = 1):
    """Run ``step()`` under :func:`~autograd_memory.find_leaks`; raise ``AssertionError`` whose message is the
    report (the lines that grow, bytes per step) unless nothing grows. Returns the report."""
    report = find_leaks(step, steps=steps, warmup=warmup)
    if report.rows:
        raise AssertionError(f"the step leaks: {report}")
    return report
