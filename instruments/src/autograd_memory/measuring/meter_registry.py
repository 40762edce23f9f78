"""The meters by name, in one place: what each is called, whether it is exact, how to read it and how to take its
peak. The gauge, the plots and ``%memory`` read this table, so a meter is named once.

>>> METERS["saved"].label, METERS["saved"].exact
('saved for backward', True)
>>> [name for name, meter in METERS.items() if not meter.exact]        # the device's counters
['rss', 'cuda_allocated', 'cuda_reserved']
>>> label("grad_norm")                                                  # a trace's series that is no meter
'grad_norm'
"""
from dataclasses import dataclass, field
from typing import Optional

from .meters import GraphMemory, LiveTensors

__all__ = ["Meter", "METERS", "EXACT", "label"]


@dataclass(frozen=True)
class Meter:
    """One meter. An exact one (``instrument``: its class) is entered around a run, read at every sample, and knows
    its own peak, between samples too. A device counter (``instrument`` None: a key of ``device_memory()``) costs a
    system call, so it is read when a view redraws, and its peak is the highest reading taken.

    >>> METERS["rss"].read({"rss": 5_000_000}), METERS["rss"].peak(None, highest=6_000_000)
    (5000000, 6000000)
    """

    name: str
    label: str
    instrument: Optional[type] = None
    exact: bool = field(init=False)  # read at every sample of a gauge: a plain attribute, not a property

    def __post_init__(self):
        object.__setattr__(self, "exact", self.instrument is not None)

    def read(self, source) -> Optional[int]:
        """Bytes now: the running exact meter's ``bytes``, or this counter of ``source``, a ``device_memory()``
        reading (None where this machine has no such counter)."""
        return source.bytes if self.exact else source.get(self.name)

    def peak(self, source, highest: Optional[int] = None) -> Optional[int]:
        """The peak: the running exact meter's own ``peak``; a device counter's ``highest`` reading."""
        return source.peak if self.exact else highest


METERS = {meter.name: meter for meter in (  # in the order a gauge shows them
    Meter("saved", "saved for backward", GraphMemory),
    Meter("live", "live tensors", LiveTensors),
    Meter("rss", "process RSS (OS view)"),
    Meter("cuda_allocated", "CUDA allocated"),
    Meter("cuda_reserved", "CUDA reserved"),
)}
EXACT = tuple(name for name, meter in METERS.items() if meter.exact)


def label(name: str) -> str:
    """What a series is called: its meter's label, or the name itself for a series that is no meter."""
    return METERS[name].label if name in METERS else name
