"""For your tests: a training step that must not leak, no instrument left installed, the truth a meter's net
change is compared with, and the floor a meter's overhead is measured against (:class:`ForwardingMode`).

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
import gc

import torch

from .diagnosing.leaks import find_leaks
from .seams import torch_internals as internals

__all__ = ["assert_no_leak", "allocated_bytes", "nothing_installed", "ForwardingMode"]


def assert_no_leak(step, steps: int = 5, warmup: int = 1, *, allow_uncounted: bool = False):
    """Run ``step()`` under :func:`~autograd_memory.find_leaks`; raise ``AssertionError`` whose message is the
    report (the lines that grow, bytes per step) unless nothing grows. It fails too when the steps keep tensors the
    meters cannot count exactly (a tensor subclass of its own, a strided nested tensor, mkldnn: a leak could hide in
    them), unless ``allow_uncounted=True``. Returns the report."""
    report = find_leaks(step, steps=steps, warmup=warmup)
    if report.rows:
        raise AssertionError(f"the step leaks: {report}")
    if report.uncounted and not allow_uncounted:
        raise AssertionError(f"cannot tell whether the step leaks: {report}\nPass allow_uncounted=True to accept "
                             "that these tensors are not counted.")
    return report


def allocated_bytes(device="cpu"):
    """The bytes of every tensor alive on ``device`` now: what a meter's change over a block is checked against.

    On CUDA it is ``torch.cuda.memory_allocated`` after a synchronize (blocks rounded up to 512 bytes, and cuBLAS's
    workspaces, which are no tensors). Elsewhere it is a census: ``gc.collect()``, then the distinct storages
    of every tensor the collector can see (frozen objects too), logical bytes. Tensors only C++ holds (a graph's
    saved tensors, without saved-tensor hooks) are not seen: read it where no graph is alive. Slow (it walks every
    object): for tests, not for a training loop.

    >>> before = allocated_bytes()
    >>> kept = torch.zeros(1000)
    >>> allocated_bytes() - before
    4000
    """
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        return torch.cuda.memory_allocated(device)
    gc.collect()  # what is frozen (gc.freeze()) was alive when frozen and is freed by reference counts still
    frozen = gc.get_freeze_count()
    gc.unfreeze()  # frozen objects are invisible to gc.get_objects()
    try:
        objects = gc.get_objects()
    finally:
        if frozen:
            gc.freeze()
    is_tensor, sizes = {}, {}
    for thing in objects:
        kind = type(thing)  # type(), not isinstance: a deprecated module's proxy warns when asked its __class__
        found = is_tensor.get(kind)
        if found is None:
            found = is_tensor[kind] = issubclass(kind, torch.Tensor)
        if not found:
            continue
        try:
            here = thing.device == device
        except RuntimeError:  # "tensor does not have a device": torch 2.8 and 2.9 leave such tensors to the collector
            continue          # after 07's input_gradient case; no storage of one can be read
        if here:
            for storage in internals.storages_of(thing):
                if storage.nbytes():
                    sizes[storage.data_ptr()] = storage.nbytes()
    return sum(sizes.values())


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
    return internals.current_dispatch_mode() is None and internals.top_saved_tensor_hooks() is None


class ForwardingMode(internals.TorchDispatchMode):
    """A dispatch mode that only forwards each op: the cost any meter built on a Python dispatch mode pays at least
    (benchmarks/ compare the meters' overhead with it).

    >>> with ForwardingMode():
    ...     y = torch.ones(3) * 2
    >>> y.tolist()
    [2.0, 2.0, 2.0]
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
