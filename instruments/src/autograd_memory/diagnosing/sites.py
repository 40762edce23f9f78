"""Where in the learner's code a tensor or an op was made: the innermost frame outside ``torch`` and
the instruments (``autograd_memory`` and the libraries in ``LIBRARY_DIRS``), kept as a code object and a line
(cheap: no traceback objects, no source read), and shown as ``file, line L`` or, in a notebook, ``cell [N], line L``.

>>> import threading
>>> code, line, phase = creation_site(threading.get_ident())
>>> phase, source_location(code, line).startswith("<doctest")
('', True)
"""
import linecache
import os
import sys
from threading import get_ident

import torch

from ..optional.ipython_internals import cell_number as _cell_number
from ..seams.torch_internals import DISPATCH_WRAPPER_FILES
from . import LIBRARY_DIRS

__all__ = ["creation_site", "creation_site_and_caller", "python_stack", "frame_file", "source_location", "source_text",
           "PHASES"]

PHASES = ("", "backward", "optimizer")  # what the frames above the learner's line were doing

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_OPTIM_DIR = os.path.dirname(torch.optim.__file__) + os.sep
_BACKWARD_CODES = {torch.autograd.backward.__code__, torch.autograd.grad.__code__}
_USER, _INTERNAL, _BACKWARD, _OPTIMIZER = range(4)
# id(code object) -> one of the four above: each code object is classified once. Keyed by id (hashing a code object
# hashes its bytecode and constants, at every lookup); _classified keeps each code object alive, so its id stays its own.
_code_kind = {}
_classified = []


def _classify(code):
    if code in _BACKWARD_CODES:
        return _BACKWARD
    filename = code.co_filename
    if filename.startswith(_OPTIM_DIR):
        return _OPTIMIZER
    return _INTERNAL if filename.startswith((_TORCH_DIR, *LIBRARY_DIRS)) else _USER


def _user_frame(frame, kinds=_code_kind, user=_USER, internal=_INTERNAL, backward=_BACKWARD):
    """The innermost learner's frame from ``frame`` outward, and the phase of the frames inside it.
    (It runs for every new storage under ``find_leaks``: the defaults are fast local names, torch's frames go first.)"""
    phase = ""
    while frame is not None:
        kind = kinds.get(id(frame.f_code))
        if kind is None:
            code = frame.f_code
            _classified.append(code)
            kind = kinds[id(code)] = _classify(code)
        if kind == internal:
            frame = frame.f_back
            continue
        if kind == user:
            return frame, phase
        if kind == backward:
            phase = "backward"
        elif not phase:  # the optimizer's code
            phase = "optimizer"
        frame = frame.f_back
    return None, phase


def _frame_of(owner_thread):
    """The caller's caller's frame, or, on another thread (CUDA's autograd threads have no Python frames),
    the frames of ``owner_thread`` (waiting in ``backward()``)."""
    if get_ident() != owner_thread:
        return sys._current_frames().get(owner_thread)
    return sys._getframe(2)


def creation_site(owner_thread):
    """``(code, line, phase)`` of the innermost frame outside torch and the instruments, seen from the
    caller; ``phase`` is ``"backward"`` inside ``backward()``/``autograd.grad``, ``"optimizer"`` inside
    ``torch.optim``, else ``""``. CUDA runs backward on autograd's own threads, which have no Python
    frames: there the frames of ``owner_thread`` (waiting in ``backward()``) are read instead.
    """
    frame, phase = _user_frame(_frame_of(owner_thread))
    return (None, 0, phase) if frame is None else (frame.f_code, frame.f_lineno, phase)


def creation_site_and_caller(owner_thread, step_code=None):
    """``(code, line, phase, caller_code, caller_line)``: :func:`creation_site`, and the next learner's
    frame out from it (the line that called the helper, lambda or closure that made the tensor; ``None,
    0`` when there is none, or when the site is in ``step_code``, the step's own body: no helper to name).

    >>> import threading
    >>> len(creation_site_and_caller(threading.get_ident()))
    5
    """
    frame, phase = _user_frame(_frame_of(owner_thread))
    if frame is None:
        return None, 0, phase, None, 0
    code = frame.f_code
    if code is step_code:
        return code, frame.f_lineno, phase, None, 0
    caller, _ = _user_frame(frame.f_back)
    if caller is None:
        return code, frame.f_lineno, phase, None, 0
    return code, frame.f_lineno, phase, caller.f_code, caller.f_lineno


def python_stack(owner_thread):
    """``((code, line), ...)``: every Python frame from the caller outward, innermost first, less the instruments'
    own (``autograd_memory``'s); on autograd's CUDA threads, the frames of ``owner_thread`` (as
    :func:`creation_site`). The stack a memory snapshot shows for an allocation, kept as code objects (cheap).

    >>> import threading
    >>> code, line = python_stack(threading.get_ident())[0]
    >>> code.co_filename.startswith("<doctest")
    True
    """
    frame, stack, kinds = _frame_of(owner_thread), [], _stack_kind
    while frame is not None:  # the meter's dispatch mode, and torch's wrappers around it
        kind = kinds.get(id(frame.f_code)) or _stack_classify(frame.f_code)
        if kind == _SHOWN:
            break
        frame = frame.f_back
    while frame is not None:
        code = frame.f_code
        if (kinds.get(id(code)) or _stack_classify(code)) != _INSTRUMENTS:
            stack.append((code, frame.f_lineno))
        frame = frame.f_back
    return tuple(stack)


_SHOWN, _INSTRUMENTS, _WRAPPER = 1, 2, 3  # how python_stack treats a code object's frames
_stack_kind = {}  # id(code object) -> one of the three; the code object is kept in _classified, so its id stays its own


def _stack_classify(code):
    filename = code.co_filename
    kind = (_INSTRUMENTS if filename.startswith(LIBRARY_DIRS[0])  # autograd_memory/, always first
            else _WRAPPER if filename.startswith(DISPATCH_WRAPPER_FILES) else _SHOWN)
    _classified.append(code)
    _stack_kind[id(code)] = kind
    return kind


def frame_file(code):
    """A code object's file for people: ``cell [12]`` for a notebook cell, else its path.

    >>> frame_file(frame_file.__code__).endswith("sites.py")
    True
    """
    cell = _cell_number(code.co_filename)
    return code.co_filename if cell is None else f"cell [{cell}]"


_CLIMB = 2  # source_location names a file relative to the working folder when it climbs at most this many folders


def source_location(code, line):
    """Where a code object's line is, for people: ``cell [12], line 4`` for a notebook cell
    (ipykernel compiles each cell under a file name of its own, mapped to its execution count),
    else the file and line: relative to the working directory (a notebook's folder) when it is under it or under
    the folder one or two levels up (``../notebooks/clinic/step.py`` from a copy's folder beside ``notebooks/``), so
    that what a report prints does not depend on where the course was cloned; else its whole path.

    >>> source_location(source_location.__code__, 3).endswith("sites.py, line 3")
    True
    """
    if code is None:
        return "(no Python frame outside torch)"
    filename = code.co_filename
    cell = _cell_number(filename)
    if cell is not None:
        return f"cell [{cell}], line {line}"
    if os.path.isabs(filename):
        try:
            relative = os.path.relpath(filename)
        except ValueError:  # on another drive (Windows): no relative path
            relative = filename
        if relative.split(os.sep)[:_CLIMB + 1].count(os.pardir) <= _CLIMB:
            filename = relative
    return f"{filename}, line {line}"


def source_text(code, line):
    """The source line, stripped ("" when it cannot be read)."""
    return "" if code is None else linecache.getline(code.co_filename, line).strip()

