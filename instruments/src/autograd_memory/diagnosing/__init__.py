"""The diagnoses: a training step run under the meters, and the learner's line that made what grows.

``leaks`` (``find_leaks``: what grows per step, the line that made it, what keeps it), ``memory_timeline``
(``timeline``: live bytes after every op, by kind), ``holders`` (the search for what keeps a tensor alive), ``sites``
(where in the learner's code a storage was made) and ``steps`` (what a step function must be); before any step
runs, ``lint`` reads the code without running it and names the patterns that keep a graph alive (``lint_rules``).

:data:`LIBRARY_DIRS` is the one setting of this layer: code under these folders is the instruments' own, so
``find_leaks`` and ``timeline`` name the first line outside them (and torch). A library built on the instruments says
so with :func:`look_past` (the course does for ``course_utils/``); it imports nothing more.

>>> import torch
>>> from autograd_memory.diagnosing.leaks import find_leaks
>>> kept = []
>>> find_leaks(lambda: kept.append(torch.zeros(250)), steps=3).top.bytes_per_step    # 250 float32 kept a step
1000
"""
import os

__all__ = ["LIBRARY_DIRS", "look_past"]

LIBRARY_DIRS = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep]  # autograd_memory/


def look_past(folder):
    """Treat the code under ``folder`` as the instruments' own: ``find_leaks`` and ``timeline`` name the first line
    outside it (and outside torch), the learner's. For a library built on the instruments, called once when it is
    imported; calling it again changes nothing. Returns :data:`LIBRARY_DIRS`.

    >>> before = list(LIBRARY_DIRS)
    >>> look_past(LIBRARY_DIRS[0]) == before
    True
    """
    path = os.path.join(os.path.abspath(folder), "")
    if path not in LIBRARY_DIRS:
        LIBRARY_DIRS.append(path)
    return LIBRARY_DIRS
