"""Each answer of a submission checked again in a fresh Python, where the student's other code cannot reach.

    python -m deploy.fresh_check < cells.json      print {test grade_id: {"passed": bool, "message": str}} as JSON

nbgrader grades a test cell by whether it raised, in the kernel where the student's own cells ran first: an answer
cell that rebinds the checker (``checks.check_fix = lambda *a, **k: ...``), patches ``course_utils`` or swallows
errors (``set_custom_exc``) would pass it. ``deploy/grading.py`` therefore asks this process too, and gives the points
only when both agree. It runs, in order, the notebook's cells as nbgrader restored them (``cells.json``: a list of
``{"kind": "locked" | "answer" | "test", "grade_id", "source"}``):

- a locked cell (the set-up, an exercise's context) as it is: the course's code;
- an answer cell's definitions only: ``def`` without decorators, ``import``, and a name bound to a literal. Any other
  statement (an assignment to ``checks.check_fix``, a call) is left out, and so is a definition of a name that a
  locked cell bound (``checks``, ``torch``);
- a test cell's checker call with the checker taken from what the locked cells bound, and each argument from the
  answers. The check passes when the checker returns a passed result, within ``--timeout`` seconds, and without
  having changed any function or value of the course's modules (``course_utils``, ``autograd_memory``) or Python's
  builtins while the answer ran.

What it cannot stop is stated in deploy/README.md ("What grading protects").
"""
import argparse
import ast
import builtins
import json
import os
import signal
import sys
import types

COURSE_MODULES = ("course_utils", "autograd_memory")


class TimeLimit(BaseException):
    """The check ran past its time limit (a BaseException: a checker's ``except Exception`` does not swallow it)."""


def definitions(source, protected):
    """The statements of an answer cell that only define: ``(kept source, what was left out)``.

    >>> definitions("import math\\nN = 3\\ndef f(x):\\n    return x\\nchecks.check_f = f\\nprint(1)", {"checks"})
    ('import math\\nN = 3\\ndef f(x):\\n    return x', ['line 5', 'line 6'])
    """
    kept, left_out = [], []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ok = (not node.decorator_list and node.name not in protected
                  and all(_literal(d) for d in node.args.defaults + [d for d in node.args.kw_defaults if d]))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            ok = not {(a.asname or a.name).split(".")[0] for a in node.names} & protected
        elif isinstance(node, ast.Assign):
            ok = (all(isinstance(t, ast.Name) and t.id not in protected for t in node.targets) and _literal(node.value))
        else:
            ok = False
        (kept.append(ast.get_source_segment(source, node)) if ok else left_out.append(f"line {node.lineno}"))
    return "\n".join(kept), left_out


def _literal(node):
    try:
        ast.literal_eval(node)
        return True
    except ValueError:
        return False


def fingerprint():
    """What the course's modules and the builtins hold: ``{(module, name): id(value)}`` of their functions, classes
    and modules, and of their public values (``ROUNDS``; a module's private state, a cache, may change)."""
    found = {("builtins", k): id(v) for k, v in vars(builtins).items()}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in COURSE_MODULES and module is not None:
            found.update({(name, k): id(v) for k, v in list(vars(module).items())
                          if callable(v) or isinstance(v, types.ModuleType) or not k.startswith("_")})
    return found


def changed(before):
    """The names of ``before`` that now hold something else, or are gone."""
    now = fingerprint()
    return sorted(f"{module}.{name}" for (module, name), value in before.items() if now.get((module, name)) != value)


def check(source, namespace, reference, timeout):
    """Run a test cell's checker call (its first ``checks.check_x(...)``) on the answers: (passed, message)."""
    call = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name) and n.func.attr.startswith("check_"))
    checker = getattr(reference[call.func.value.id], call.func.attr)
    try:
        args = [eval(compile(ast.Expression(a), "<test>", "eval"), namespace) for a in call.args]
    except NameError as e:
        return False, (f"the answer's function is not defined by its own cell ({e}); define it there, with what it "
                       "uses, in that cell")
    before = fingerprint()
    signal.signal(signal.SIGALRM, _time_is_up)
    signal.alarm(timeout)
    try:
        result = checker(*args)
    except TimeLimit:
        return False, f"the check ran longer than {timeout} s, the time limit of a cell, and was stopped"
    except AssertionError as e:
        return False, str(e)
    except Exception as e:  # noqa: BLE001 (the verdict is the message, whatever the answer raised)
        return False, f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
    tampered = changed(before)
    if tampered:
        return False, f"the answer changed the course's code while it was checked ({', '.join(tampered[:5])}): zero"
    return bool(getattr(result, "passed", False)) and type(result).__module__ == "course_utils.checks", str(result)


def _time_is_up(signum, frame):
    raise TimeLimit


def verdicts(cells, timeout):
    """``{test grade_id: (passed, message)}`` for the notebook's ``cells`` (see the module's docstring)."""
    namespace, reference, found = {"__name__": "__main__"}, {}, {}
    for cell in cells:
        if cell["kind"] == "locked":
            before = dict(namespace)
            exec(compile(cell["source"], f"<{cell['grade_id']}>", "exec"), namespace)
            reference.update({k: v for k, v in namespace.items() if k not in before or before[k] is not v})
        elif cell["kind"] == "answer":
            kept, _ = definitions(cell["source"], protected=set(reference))
            try:
                exec(compile(kept, f"<{cell['grade_id']}>", "exec"), namespace)
            except Exception:  # noqa: BLE001 (a broken import: its test fails on the missing name)
                pass
        elif cell["kind"] == "test":
            found[cell["grade_id"]] = check(cell["source"], namespace, reference, timeout)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=int, default=60, help="seconds for one check")
    args = parser.parse_args(argv)
    cells = json.load(sys.stdin)
    out = os.fdopen(os.dup(1), "w")              # the verdicts' channel; what the answers print goes to stderr
    os.dup2(2, 1)
    found = verdicts(cells, args.timeout)
    out.write(json.dumps({k: {"passed": p, "message": m} for k, (p, m) in found.items()}))
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
