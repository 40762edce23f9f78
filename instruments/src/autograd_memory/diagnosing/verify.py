"""A fix tried before it is given: a :func:`~autograd_memory.find_leaks` row's edit applied to a copy of the step's
script, compiled in memory (the file is not touched), and the copy's step measured again. The remedy then says "this
edit ends the growth (verified)", or that it is unverified and why, with its words and no edit: an edit that raises
(``.item()`` on a dict) or leaves the growth is never offered as a fix.

Only a step whose script can be run again is tried: a function of a script's top level, or a method of an object
the script makes at its top level (``trainer.step``). A step defined in a notebook cell, a closure or a lambda keeps
its remedy as it is (``verified`` None).
"""
import dataclasses
import io
import os
import sys
import types
from contextlib import redirect_stdout

from ..formats.units import format_bytes
from .fixes import DETACH_ENTRIES
from .steps import step_function

__all__ = ["try_fixes", "script_step"]

_TRIAL = "__fix_trial__"  # the copy's module name: its `if __name__ == "__main__":` block does not run


def script_step(step):
    """``(file, how to find the step in the script's namespace)`` of a step a copy of its script can run again, else
    None: ``how`` is a function of the copy's namespace that returns the copy's step.

    >>> script_step(lambda: None) is None
    True
    """
    function = step_function(step)
    if function is None or "<locals>" in function.__qualname__ or "<lambda>" in function.__qualname__:
        return None
    filename = function.__code__.co_filename
    if not (filename.endswith(".py") and os.path.isfile(filename)):
        return None
    owner = getattr(step, "__self__", None)
    if isinstance(step, types.FunctionType):
        parts = function.__qualname__.split(".")
        if len(parts) != 1 or function.__globals__.get(parts[0]) is not step:
            return None
        return filename, lambda namespace: namespace[parts[0]]
    if isinstance(step, types.MethodType) and owner is not None:
        names = [name for name, value in function.__globals__.items() if value is owner and not name.startswith("_")]
        if names:
            return filename, lambda namespace: getattr(namespace[names[0]], step.__name__)
        cls = function.__globals__.get(type(owner).__name__)
        if cls is type(owner):  # a new instance, as the command line's Class.method makes one
            return filename, lambda namespace: getattr(namespace[cls.__name__](), step.__name__)
    return None


def _edited(text, remedy):
    """``text`` with the remedy's line edits made, or None when a line is not in the script exactly once."""
    for old, new in remedy.edits:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    return text


def _run_copy(text, filename, find):
    """The copy's step: the edited script run as a module of its own (its printing silenced)."""
    module = types.ModuleType(_TRIAL)
    module.__file__ = filename
    sys.modules[_TRIAL] = module  # dataclasses and pickling look their module up while the script runs
    try:
        with redirect_stdout(io.StringIO()):
            exec(compile(text, filename, "exec"), module.__dict__)
        return find(module.__dict__), module
    finally:
        sys.modules.pop(_TRIAL, None)


def try_fixes(report, step, measure):
    """Try each distinct edit of ``report``'s leak rows on a copy of the step's script, alone; ``measure(step)`` is
    find_leaks as the report was made. Every row's ``remedy`` (and ``fix``) is replaced by the tried one."""
    found = script_step(step)
    if found is None:
        return report
    filename, find = found
    with open(filename, encoding="utf-8") as file:
        text = file.read()
    tried = {}
    for row in report.rows:
        remedy = row.remedy
        if remedy in tried or remedy.action == "nothing":
            continue
        tried[remedy] = _tried(remedy, [r for r in report.rows if r.remedy is remedy], text, filename, find, measure)
    for row in report.rows + report.bounded:
        if row.remedy in tried:
            row.remedy = tried[row.remedy]
            row.fix = row.remedy.text
    return report


def _tried(remedy, rows, text, filename, find, measure):
    if not remedy.edits:
        return dataclasses.replace(remedy, text=f"{remedy.text} (no edit to try: unverified)", verified=False)
    edited = _edited(text, remedy)
    if edited is None:
        return _unverified(remedy, "its lines are not each in the script once")
    try:
        step, module = _run_copy(edited, filename, find)
        after = measure(step)
    except BaseException as error:  # the copy's own error, whatever it is: the edit is not given
        if isinstance(error, KeyboardInterrupt):
            raise
        return _unverified(remedy, f"the edited copy raised {type(error).__name__}: {error}")
    holders = {row.kept_in for row in rows if row.kept_in}
    still = [row for row in after.rows if (row.kept_in in holders if holders else True)]
    del module
    if remedy.action == DETACH_ENTRIES:  # the entries are the data it keeps: their graphs must go, and only they
        grown = [row for row in still if row.nodes_per_step]
        kept = sum(row.bytes_per_step for row in still)
        graphs = any(row.nodes_per_step for row in rows)  # a graph that kept no bytes of its own still went
        if grown or not (graphs or kept < sum(row.bytes_per_step for row in rows)):
            return _unverified(remedy, "the edited copy still keeps each entry's graph")
        return dataclasses.replace(remedy, verified=True, text=(
            f"{remedy.text}; this edit ends the graph's growth (verified): what still grows, "
            f"{format_bytes(kept)}/step, is the entries themselves"))
    if still:
        return _unverified(remedy, f"the edited copy still grows: {still[0].grows()}, kept by {still[0].holder}")
    return dataclasses.replace(remedy, text=f"{remedy.text}; this edit ends the growth (verified)", verified=True)


def _unverified(remedy, why):
    return dataclasses.replace(remedy, text=f"{remedy.text} (unverified, so no edit is given: {why})", old="", new="",
                               more=(), verified=False)
