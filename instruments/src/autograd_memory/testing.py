"""For your tests: a training step that must not leak, and no instrument left installed.

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
from .seams import torch_internals

__all__ = ["assert_no_leak", "nothing_installed"]


def assert_no_leak(step, steps: int = 5, warmup: int = 1):
    """Run ``step()`` under :func:`~autograd_memory.find_leaks`; raise ``AssertionError`` whose message is the
    report (the lines that grow, bytes per step) unless nothing grows. Returns the report."""
    report = find_leaks(step, steps=steps, warmup=warmup)
    if report.rows:
        raise AssertionError(f"the step leaks: {report}")
    return report


def nothing_installed() -> bool:
    """True when no dispatch mode and no saved-tensor hooks are installed: what every meter leaves behind once it
    exits, however it exits (a test's check after an exception).

    >>> from autograd_memory import GraphMemory
    >>> with GraphMemory():
    ...     nothing_installed()
    False
    >>> nothing_installed()
    True
    """
    return torch_internals.current_dispatch_mode() is None and torch_internals.top_saved_tensor_hooks() is None
