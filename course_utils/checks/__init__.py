"""Exercise checkers: each says *why* an answer is wrong, not just that it is.

One module per notebook (``course_utils.checks.lifecycle`` for 01, ``no_grad`` for 02,
``integration`` for 03, ``euler`` for 04, ``pinn`` for 05, ``nb07_find_the_leak`` for 07). Every checker is built on :func:`exercise`:

* the learner's code still raises ``NotImplementedError`` -> "not attempted yet" (the notebook runs on);
* a wrong answer -> :class:`ExerciseFailed` (an ``AssertionError``) whose message explains the mistake;
* a right answer -> a short confirmation, usually with the number that proved it.

>>> @exercise("Double it")
... def check_double(fn):
...     expect(fn(2) == 4, f"double(2) should be 4, got {fn(2)}")
...     return "double(2) == 4"
>>> def double(x):
...     raise NotImplementedError
>>> check_double(double).status
'not attempted'
>>> check_double(lambda x: 2 * x).status
'passed'
"""
import functools
import os
from dataclasses import dataclass


class ExerciseFailed(AssertionError):
    """A learner's answer is wrong; the message says what to look at."""


@dataclass
class ExerciseResult:
    title: str
    status: str  # "passed" or "not attempted"
    detail: str = ""

    @property
    def passed(self):
        return self.status == "passed"

    def __str__(self):
        mark = {"passed": "[PASS]", "not attempted": "[TODO]"}[self.status]
        return f"{mark} {self.title}: {self.detail}"

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def expect(condition, explanation):
    """Fail the current exercise with ``explanation`` unless ``condition`` holds."""
    if not condition:
        raise ExerciseFailed(explanation)


def _is_placeholder(error):
    """True for the exercise's own bare ``raise NotImplementedError``, False when torch (or anything
    else) raised it with a message: that is a real error in the learner's code, shown as such."""
    frame = error.__traceback__
    while frame.tb_next is not None:
        frame = frame.tb_next
    return not error.args and f"{os.sep}torch{os.sep}" not in frame.tb_frame.f_code.co_filename


def exercise(title):
    """Decorator turning ``check(answer, ...) -> detail`` into a checker with the three outcomes above."""

    def wrap(check):
        @functools.wraps(check)
        def run(*args, **kwargs):
            try:
                detail = check(*args, **kwargs)
            except NotImplementedError as error:
                if not _is_placeholder(error):
                    raise
                return ExerciseResult(title, "not attempted",
                                      "not attempted yet: replace `raise NotImplementedError` with your answer and re-run.")
            except ExerciseFailed as failure:
                raise ExerciseFailed(f"[FAIL] {title}: {failure}") from None
            return ExerciseResult(title, "passed", detail or "correct.")

        return run

    return wrap


def __getattr__(name):
    # checks.<notebook module> is imported on first use
    import importlib

    if name in {"lifecycle", "no_grad", "integration", "euler", "pinn", "nb07_find_the_leak"}:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
