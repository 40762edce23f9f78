"""The command line: the instruments on a script of your own, from a terminal or CI.

    python -m autograd_memory leaks FILE[:FUNCTION] [--steps N] [--warmup W] [--json]
    python -m autograd_memory timeline FILE[:FUNCTION] [--model NAME] [--optimizer NAME] [--plot OUT.png]
    python -m autograd_memory check [--brief]
    python -m autograd_memory lint PATH... [--format text|json]

``FILE`` is loaded as a module (its ``if __name__ == "__main__":`` block does not run) and ``FUNCTION``
(default ``step``) is called with no arguments as one training step: a function, ``trainer.step`` (a method of an
object the script makes) or ``Trainer.step`` (called on the script's one ``Trainer``, else on ``Trainer()``; a class
whose constructor needs arguments is refused with what to write). ``leaks`` exits 1 when something grows
from step to step and 0 when the step is flat, so it can gate CI; every command exits 2, with a message saying
what to do, for a missing file or function, a function that needs arguments, or a script that raises; ``leaks``
exits 2 too for fewer than 3 steps, no warm-up on a fresh model, and a step that exits (``sys.exit``, whatever its
code) or is interrupted, naming the call ("the step exited (SystemExit: 0) on call 3 of 6"): no step can make the
command read "flat".
``check`` prints the drift guard's probes (:mod:`autograd_memory.seams.drift`) and exits 1 if one fails.
``lint`` reads Python files and notebooks (folders: every .py and .ipynb in them) without running them, prints each
line that keeps a graph alive (:mod:`autograd_memory.diagnosing.lint`) and exits 1 when it found one.
"""
import argparse
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback

from .diagnosing.steps import check_step

__all__ = ["main", "load_step", "UsageError"]

FLAT, GROWS, USAGE, UNCOUNTED = 0, 1, 2, 3  # exit codes
_LEAKS = """\
Run the step (FILE's step, or FUNCTION) WARMUP + STEPS times and name what grows from step to step.

exit codes (a step cannot choose its own: its sys.exit is exit 2):
  0  flat: nothing grows from step to step
  1  something grows: the report names the line, what keeps it and the fix
  2  no answer: bad input (a missing file or function, too few steps, no warm-up on a fresh model), or the
     script or the step raised, exited (sys.exit) or was interrupted (Ctrl-C); the message says which call
  3  nothing counted grows, but the steps keep tensors the meters cannot count exactly (a tensor subclass
     of their own, a strided nested tensor, mkldnn): a leak could hide there; --allow-uncounted makes it 0
"""


class UsageError(Exception):
    """Bad input on the command line: the message says what to do; the command exits 2."""


def _script_traceback(error, path):
    """The traceback of ``error`` from the script's first frame on (the loader's frames are noise to its author)."""
    frames = traceback.extract_tb(error.__traceback__)
    start = next((i for i, frame in enumerate(frames) if os.path.abspath(frame.filename) == path), 0)
    return "".join(traceback.format_list(frames[start:]) + traceback.format_exception_only(error))


def _split(target, default):
    """``FILE[:NAME[.NAME...]]`` -> (file, dotted name)."""
    path, colon, name = target.rpartition(":")
    if colon and name and all(part.isidentifier() for part in name.split(".")):
        return path, name
    return target, default


def load_step(target: str, default: str = "step"):
    """``(module, function)`` for ``FILE[:FUNCTION]``, ``FILE:object.method`` or ``FILE:Class.method``: the script
    loaded as a module named for its file, the step checked to be callable with no arguments (a class's method is
    bound to the script's one instance of that class, else to a new one made with no arguments). Raises
    :class:`UsageError` saying what is wrong."""
    given, name = _split(target, default)
    path = os.path.abspath(given)
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {given} (looked in {os.path.dirname(path)}); give the script's path, "
                         "e.g. train.py:step or train.py:Trainer.step")
    module_name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))  # its own imports of modules beside it work, as under `python FILE`
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        raise UsageError(f"{os.path.relpath(path)} raised while it was loaded (before any step ran):\n"
                         f"{_script_traceback(error, path)}") from None
    function = _resolve(module, name, given)
    if not callable(function):
        defined = sorted(key for key, value in vars(module).items()
                         if inspect.isfunction(value) and value.__module__ == module_name)
        raise UsageError(f"{os.path.relpath(path)} has no function {name!r}; it defines: "
                         f"{', '.join(defined) or 'no functions'}. Name one after a colon: {target.partition(':')[0]}:NAME")
    try:
        check_step(function, "the command", f"{given}:step")
    except TypeError as error:
        if "no arguments" not in str(error):  # a generator, a coroutine, a model: the check's own words
            raise UsageError(str(error)) from None
        raise UsageError(f"{name}{inspect.signature(function)} needs arguments, and the command calls it with none: "
                         f"add a function that calls it, e.g.\n    def one_step():\n        {name}(model, batch)\n"
                         f"and run {given}:one_step") from None
    return module, function


def _resolve(module, name, given):
    """The object ``name`` (dotted) names in the script; ``Class.method`` is bound to an instance (see load_step)."""
    value = module
    for part in name.split("."):
        if isinstance(value, type):  # Class.method: called on an instance
            value = _instance(module, value, part, given)
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _instance(module, cls, method, given):
    """The script's one instance of ``cls``, else ``cls()``; UsageError when it needs arguments."""
    made = [value for key, value in vars(module).items() if isinstance(value, cls) and not key.startswith("_")]
    if len(made) == 1:
        return made[0]
    try:
        inspect.signature(cls).bind()
    except TypeError:
        variable = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        variable = variable if variable != cls.__name__ else f"my_{variable}"
        raise UsageError(
            f"{cls.__name__}.{method} is a method, so the command needs a {cls.__name__} to call it on; "
            f"{cls.__name__}{inspect.signature(cls)} needs arguments to be made, and the script makes "
            f"{'several' if made else 'no'} {cls.__name__} at module level for the command to use. Make the one to "
            f"measure in the script, e.g.\n    {variable} = {cls.__name__}(...)\nand run {given}:{variable}.{method}") from None
    except ValueError:
        pass
    try:
        return cls()
    except Exception as error:
        raise UsageError(f"{cls.__name__}() raised while the command made one to call {method} on:\n"
                         f"{_script_traceback(error, os.path.abspath(given))}") from None


def _call_safely(run, path):
    """Run ``run()``; a step that raises is bad input too (exit 2 with its traceback)."""
    try:
        return run()
    except Exception as error:
        raise UsageError(f"the step raised:\n{_script_traceback(error, path)}") from None


def _leaks(args):
    """The leaks command; a step that exits or is interrupted (or a Ctrl-C anywhere) is no answer: exit 2."""
    try:
        return _leaks_report(args)
    except (SystemExit, KeyboardInterrupt) as stop:
        from .diagnosing.steps import stopped_note

        what = stopped_note(stop, "find_leaks") or (
            "interrupted (KeyboardInterrupt) before the steps ran, or between them" if isinstance(stop, KeyboardInterrupt)
            else f"exited ({type(stop).__name__}) outside the step")
        raise UsageError(f"{what}; no report: a run that stops before its last step measured nothing to compare. "
                         "Let the step run to the end (a max-steps guard that exits belongs outside the step, e.g. "
                         "in the script's __main__ block)") from None


def _leaks_report(args):
    from .diagnosing.leaks import find_leaks, refusal

    module, step = load_step(args.target)
    why = refusal(step, args.steps, args.warmup, spell=lambda name, value: f"--{name} {value}")
    if why:
        raise UsageError(why)
    report = _call_safely(lambda: find_leaks(step, steps=args.steps, warmup=args.warmup, verify=args.verify),
                          module.__file__)
    if args.json:
        def row_json(row):
            return {"where": row.where, "code": row.code, "holder": row.holder, "fix": row.fix, "bounded": row.bounded,
                    "bytes_per_step": row.bytes_per_step, "tensors_per_step": row.tensors_per_step,
                    "nodes_per_step": row.nodes_per_step, "hooks_per_step": row.hooks_per_step, "phases": row.phases,
                    "remedy": row.remedy.as_dict()}

        print(json.dumps({
            "leaks": bool(report.rows), "steps": report.steps, "warmup": report.warmup,
            "bytes_per_step": report.bytes_per_step, "nodes_per_step": report.nodes_per_step,
            "rss_per_step": report.rss_per_step,
            "uncounted": report.uncounted, "rows": [row_json(row) for row in report.rows],
            "bounded": [row_json(row) for row in report.bounded]}, indent=2))
    else:
        print(report)
    return GROWS if report.rows else UNCOUNTED if report.uncounted and not args.allow_uncounted else FLAT


def _named(module, name, kind, option):
    """The global ``name`` of the script, else the one global of ``kind`` (None when there is none or several)."""
    if name is not None:
        value = getattr(module, name, None)
        if not isinstance(value, kind):
            raise UsageError(f"{option} {name}: the script has no {kind.__name__} called {name!r}")
        return value
    found = [value for key, value in vars(module).items() if isinstance(value, kind) and not key.startswith("_")]
    return found[0] if len(found) == 1 else None


def _timeline(args):
    import torch

    from .diagnosing.memory_timeline import timeline

    module, step = load_step(args.target)
    model = _named(module, args.model, torch.nn.Module, "--model")
    optimizer = _named(module, args.optimizer, torch.optim.Optimizer, "--optimizer")
    result = _call_safely(lambda: timeline(step, model=model, optimizer=optimizer), module.__file__)
    print(result)
    if model is None and optimizer is None:
        print("  (no model or optimizer named or found: parameters, gradients and optimizer state count as 'other';"
              " name them with --model and --optimizer)")
    if args.plot:
        from .optional.extras import require

        require("matplotlib", "--plot")
        result.plot().savefig(args.plot)
        print(f"  plot: {args.plot}")
    return FLAT


def _check(args):
    import warnings

    with warnings.catch_warnings():  # the report below says it all, line by line: not the guard's warning on import
        warnings.filterwarnings("ignore", message="autograd_memory is tested on torch")
        from .seams.drift import check

        report = check()
    print(str(report).splitlines()[0] if args.brief and report.ok else report)
    return FLAT if report.ok else GROWS


def _lint(args):
    from .diagnosing.lint import LintError, as_json, as_text, check_paths

    try:
        findings = check_paths(args.paths)
    except LintError as error:
        raise UsageError(str(error)) from None
    if args.format == "json" or findings:
        print(as_json(findings) if args.format == "json" else as_text(findings))
    return GROWS if findings else FLAT


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograd_memory", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    leaks = commands.add_parser("leaks", help="run a step a few times and name what grows (exit 1) or say it is flat (0)",
                                description=_LEAKS, formatter_class=argparse.RawDescriptionHelpFormatter)
    leaks.add_argument("target", metavar="FILE[:FUNCTION]", help="the script, and its step function (default: step)")
    leaks.add_argument("--steps", type=int, default=5, help="steps measured after the warm-up (default 5)")
    leaks.add_argument("--warmup", type=int, default=1, help="steps run first and not counted (default 1)")
    leaks.add_argument("--json", action="store_true", help="print the report as JSON")
    leaks.add_argument("--verify", action="store_true",
                       help="try each fix on a copy of the script first: keep the edits that end the growth")
    leaks.add_argument("--allow-uncounted", action="store_true",
                       help="exit 0, not 3, when only tensors the meters cannot count exactly are kept")
    tl = commands.add_parser("timeline", help="run a step once and show live bytes op by op, by kind")
    tl.add_argument("target", metavar="FILE[:FUNCTION]", help="the script, and its step function (default: step)")
    tl.add_argument("--model", metavar="NAME", help="the script's nn.Module (default: its only one)")
    tl.add_argument("--optimizer", metavar="NAME", help="the script's optimizer (default: its only one)")
    tl.add_argument("--plot", metavar="OUT.png", help="also save the timeline's picture (needs matplotlib)")
    check = commands.add_parser("check", help="print the probes of the PyTorch privates the instruments rely on")
    check.add_argument("--brief", action="store_true", help="one line when every probe passes (the probes when one fails)")
    lint = commands.add_parser("lint", help="read code without running it; name each line that keeps a graph alive")
    lint.add_argument("paths", nargs="+", metavar="PATH", help="Python files, notebooks, or folders of them")
    lint.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or JSON for CI")
    args = parser.parse_args(argv)
    try:
        return {"leaks": _leaks, "timeline": _timeline, "check": _check, "lint": _lint}[args.command](args)
    except UsageError as error:
        print(f"{parser.prog} {args.command}: {error}", file=sys.stderr)
        return USAGE
