"""The diagnoses: a training step run under the meters, and the learner's line that made what grows.

``leaks`` (``find_leaks``: what grows per step, the line that made it, what keeps it), ``memory_timeline``
(``timeline``: live bytes after every op, by kind), ``holders`` (the search for what keeps a tensor alive), ``sites``
(where in the learner's code a storage was made) and ``steps`` (what a step function must be).

>>> import torch
>>> from autograd_memory.diagnosing.leaks import find_leaks
>>> kept = []
>>> find_leaks(lambda: kept.append(torch.zeros(250)), steps=3).top.bytes_per_step    # 250 float32 kept a step
1000
"""
__all__ = []
