"""IPython and Jupyter: ``%load_ext autograd_memory`` gives three magics.

* ``%%find_leaks [--steps N] [--warmup W] [--snapshot PATH]``: the cell's body is the step, run in your namespace
  (as the cell would run, ``warmup + steps`` times); shows the :func:`~autograd_memory.find_leaks` report, whose rows
  name ``cell [N], line L`` with the cell's own line numbers. ``--snapshot`` runs the step once more under
  :func:`~autograd_memory.timeline` and writes that step's memory: ``PATH.html`` the offline
  viewer, ``PATH.pickle`` the snapshot (for pytorch.org/memory_viz).
* ``%%timeline [--model NAME] [--optimizer NAME] [--snapshot PATH]``: the same for
  :func:`~autograd_memory.timeline` (run once; ``--snapshot`` writes that run's).
* ``%memory``: the readings now: process RSS (and its peak), the device's counters, and the bytes of the
  tensors Python objects hold.

Only public IPython API is used (``register_magic_function``, ``transform_cell``, ``compile.cache``).
"""
import argparse
import gc
import os
import shlex
import types

from .optional.ipython_internals import running_cell_number

__all__ = ["register", "find_leaks_magic", "timeline_magic", "memory_magic"]


def _usage_error(message):
    """IPython shows a UsageError as its message, without a traceback (IPython is imported only in a shell)."""
    from IPython.core.error import UsageError

    return UsageError(message)


def _parse(parser, line):
    try:
        return parser.parse_args(shlex.split(line))
    except SystemExit:  # argparse printed the usage; IPython shows this one line instead of a traceback
        raise _usage_error(f"usage: {parser.format_usage().strip().removeprefix('usage: ')}") from None


def _step_from_cell(shell, cell):
    """The cell's body as a function of no arguments whose globals are the user's namespace; its lines are the
    cell's lines (the ``%%`` line is line 1), filed under this execution count as a cell's code is."""
    source = "\n" + shell.transform_cell(cell)
    filename = shell.compile.cache(source, running_cell_number())
    return types.FunctionType(compile(source, filename, "exec"), shell.user_ns, "cell_step")


def _parser(name, description):
    return argparse.ArgumentParser(prog=f"%%{name}", description=description, add_help=False)


_LEAKS = _parser("find_leaks", "the cell's body is the step")
_LEAKS.add_argument("--steps", type=int, default=5)
_LEAKS.add_argument("--warmup", type=int, default=1)
_TIMELINE = _parser("timeline", "the cell's body is the step, run once")
_TIMELINE.add_argument("--model", metavar="NAME")
_TIMELINE.add_argument("--optimizer", metavar="NAME")
for _magic in (_LEAKS, _TIMELINE):
    _magic.add_argument("--snapshot", metavar="PATH", help="write the step's memory: PATH.html (viewer) or PATH.pickle")
_WRITERS = {".html": "save_html", ".pickle": "save_snapshot"}  # the Timeline method that writes each


def _snapshot_writer(path):
    """The Timeline method that writes ``path``, checked before anything runs."""
    suffix = os.path.splitext(path)[1] if path is not None else None
    if path is not None and suffix not in _WRITERS:
        raise _usage_error(f"--snapshot {path}: name a .html file (the Active Memory Timeline, offline) or a .pickle "
                           "file (the snapshot, for pytorch.org/memory_viz)")
    return _WRITERS.get(suffix)


def _write(memory, writer, path):
    from .formats.units import format_bytes

    getattr(memory, writer)(path)
    what = "the Active Memory Timeline, offline" if writer == "save_html" else "the memory snapshot, for pytorch.org/memory_viz"
    print(f"{path}: {what}, of one step: allocations {memory.allocations}, peak {format_bytes(memory.peak)}")


def find_leaks_magic(line, cell):
    from IPython import get_ipython

    from .diagnosing.leaks import find_leaks

    args = _parse(_LEAKS, line)
    writer = _snapshot_writer(args.snapshot)
    step = _step_from_cell(get_ipython(), cell)
    report = find_leaks(step, steps=args.steps, warmup=args.warmup)
    if writer is not None:
        from .diagnosing.memory_timeline import timeline

        _write(timeline(step), writer, args.snapshot)
    return report


def timeline_magic(line, cell):
    from IPython import get_ipython

    from .diagnosing.memory_timeline import timeline

    shell = get_ipython()
    args = _parse(_TIMELINE, line)
    writer = _snapshot_writer(args.snapshot)
    named = {}
    for option in ("model", "optimizer"):
        name = getattr(args, option)
        if name is not None and name not in shell.user_ns:
            raise _usage_error(f"--{option} {name}: no such variable in this notebook")
        named[option] = shell.user_ns[name] if name is not None else None
    memory = timeline(_step_from_cell(shell, cell), **named)
    if writer is not None:
        _write(memory, writer, args.snapshot)
    return memory


def memory_magic(line=""):
    import torch

    from .formats.tables import Table
    from .formats.units import format_bytes
    from .measuring.meter_registry import label
    from .measuring.meters import device_memory
    from .seams.torch_internals import storages_of

    storages = {}
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor):
            storages.update((id(storage), storage) for storage in storages_of(obj))
    held = sum(storage.nbytes() for storage in storages.values())
    rows = [(label(key), format_bytes(value)) for key, value in device_memory().items()]
    rows.append((f"tensors Python objects hold ({len(storages)} storages)", format_bytes(held)))
    return Table(("reading", "bytes"), rows, align="lr",
                 caption="tensors only autograd holds (saved for backward) are not in the last row: GraphMemory sees them")


def register(shell):
    """Register the three magics with an IPython shell (``%load_ext autograd_memory`` calls this)."""
    shell.register_magic_function(find_leaks_magic, "cell", "find_leaks")
    shell.register_magic_function(timeline_magic, "cell", "timeline")
    shell.register_magic_function(memory_magic, "line", "memory")
