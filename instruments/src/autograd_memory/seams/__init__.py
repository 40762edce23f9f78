"""The seam with PyTorch: every PyTorch private the instruments use, and the guard that probes them.

``torch_internals`` holds each private with what it relies on and the test that guards it; ``drift`` holds the
tested torch range and a probe per private. Every layer above reaches torch's internals only through here, so
importing anything of this folder first runs the drift guard, once: one :class:`~.drift.UntestedTorchWarning`
naming the version and what will not work when this torch is outside the tested range or a probe fails.

>>> from autograd_memory.seams.drift import check
>>> check().ok                      # this torch is inside the tested range, and every probe passes
True
"""
from .drift import warn_if_untested

__all__ = []

warn_if_untested()
