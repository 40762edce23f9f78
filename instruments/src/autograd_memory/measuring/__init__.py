"""The measuring layer: exact meters, and what runs them over a call or a loop.

``meters`` (``LiveTensors``, ``GraphMemory``, ``device_memory``), ``meter_registry`` (``METERS``: each meter's name,
label and how to read it), ``measurement`` (``measure``, ``run_metered``, ``time_call``), ``trace`` (``Trace``: a
meter over steps, growth per step) and ``budget`` (``memory_budget``: stops a runaway demo). The views and the
diagnoses build on these.

>>> import torch
>>> from autograd_memory.measuring.meters import LiveTensors
>>> with LiveTensors() as live:
...     x = torch.zeros(1000)
>>> live.bytes
4000
"""
__all__ = []
