"""Exercise checkers: each says *why* an answer is wrong, not just that it is.

One module per notebook, named after it: ``checks.nb01_graph_lifecycle`` holds the checkers of
``notebooks/01_graph_lifecycle.ipynb`` and ``tests/checks/test_nb01_graph_lifecycle.py`` tests them (the same
for every ``nbNN_<notebook>.py`` in this folder, listed in ``NOTEBOOK_CHECKERS``). Every checker is built on :func:`exercise`:

* the learner's code still raises ``NotImplementedError`` -> "not attempted yet" (the notebook runs on);
* a wrong answer -> :class:`ExerciseFailed` (an ``AssertionError``) whose message starts with
  ``[FAIL] <title>:`` and explains the mistake; checkers fail only through :func:`fail` (or
  :func:`expect`, which calls it), so that every failure carries that prefix;
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
import importlib
import os
import pkgutil
from dataclasses import dataclass
from typing import Callable, NoReturn

from autograd_memory import ShowsAsText

__all__ = ["ExerciseFailed", "ExerciseResult", "exercise", "expect", "fail", "NOTEBOOK_CHECKERS"]


class ExerciseFailed(AssertionError):
    """A learner's answer is wrong; the message says what to look at."""


@dataclass
class ExerciseResult(ShowsAsText):
    title: str
    status: str  # "passed" or "not attempted"
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __str__(self):
        mark = {"passed": "[PASS]", "not attempted": "[TODO]"}[self.status]
        return f"{mark} {self.title}: {self.detail}"


def fail(explanation: str) -> NoReturn:
    """Fail the current exercise: ``explanation`` says what is wrong and what to do next."""
    raise ExerciseFailed(explanation)


def expect(condition: object, explanation: str) -> None:
    """:func:`fail` with ``explanation`` unless ``condition`` holds."""
    if not condition:
        fail(explanation)


def _is_placeholder(error):
    """True for the exercise's own bare ``raise NotImplementedError``, False when torch (or anything
    else) raised it with a message: that is a real error in the learner's code, shown as such."""
    frame = error.__traceback__
    while frame.tb_next is not None:
        frame = frame.tb_next
    return not error.args and f"{os.sep}torch{os.sep}" not in frame.tb_frame.f_code.co_filename


def exercise(title: str) -> Callable:
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


NOTEBOOK_CHECKERS = tuple(sorted(module.name for module in pkgutil.iter_modules(__path__) if module.name[:2] == "nb"))


def __getattr__(name):
    # checks.<notebook module> is imported on first use
    if name in NOTEBOOK_CHECKERS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
