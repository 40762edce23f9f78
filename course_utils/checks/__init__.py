"""Exercise checkers: each says *why* an answer is wrong, not just that it is.

One module per notebook, named after it: ``checks.nb01_graph_lifecycle`` holds the checkers of
``notebooks/01_graph_lifecycle.ipynb`` and ``tests/checks/test_nb01_graph_lifecycle.py`` tests them (the same
for every ``nbNN_<notebook>.py`` in this folder, listed in ``NOTEBOOK_CHECKERS``). Every checker is built on :func:`exercise`:

* the learner's code still raises ``NotImplementedError`` -> "not attempted yet" (the notebook runs on);
* a wrong answer -> :class:`ExerciseFailed` (an ``AssertionError``) whose message starts with
  ``[FAIL] <title>:`` and explains the mistake; checkers fail only through :func:`fail` (or
  :func:`expect`, which calls it), so that every failure carries that prefix;
* an error raised while the answer runs (a torch error in the learner's code, or one their answer causes) ->
  :class:`ExerciseFailed` too: the error's first line, the learner's line that raised it, and the idea a known torch
  error reveals (:data:`TORCH_ERRORS`, which an exercise can refine with ``errors=``: an exercise whose answer runs
  training steps passes :data:`LOOP_ERRORS`, and no other gets a training loop's advice); an answer that is the right
  number of bytes in another unit is told so (:func:`unit_mistake`);
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
>>> check_double(lambda x: x.double())                  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
course_utils.checks.ExerciseFailed: [FAIL] Double it: running your answer raised AttributeError: 'int' object has no ...
  at <doctest ...>, line 1: check_double(lambda x: x.double())...
"""
import functools
import importlib
import linecache
import os
import pathlib
import pkgutil
import sysconfig
from dataclasses import dataclass
from typing import Callable, NoReturn, Optional

import torch

import autograd_memory
from autograd_memory import ShowsAsText

__all__ = ["ExerciseFailed", "ExerciseResult", "exercise", "expect", "fail", "NOTEBOOK_CHECKERS", "TORCH_ERRORS",
           "LOOP_ERRORS", "explain_error", "unit_mistake"]


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


# A torch error's words -> the idea it reveals (the first match explains; an exercise's own ``errors`` come first).
TORCH_ERRORS = (
    ("does not require grad and does not have a grad_fn",
     "you differentiate a tensor that carries no graph: it was made under no_grad, detached, or by an autograd.grad "
     "without create_graph=True (retain_graph=True keeps the old graph alive; only create_graph=True records a graph "
     "of the derivative itself)"),
    ("backward through the graph a second time",
     "a backward() or autograd.grad reached a graph that an earlier one had already freed: each frees the graph it "
     "runs through unless told to keep it. A derivative you differentiate again needs create_graph=True where it is "
     "taken; retain_graph=True keeps a graph for one more pass, and records nothing new"),
    ("differentiated Tensors does not require grad",
     "you ask for a derivative with respect to a tensor that does not require grad: a .detach()-ed copy (a new tensor "
     "the output was not computed from), or one made without requires_grad=True. Differentiate with respect to the "
     "tensor the forward pass used, and give it requires_grad=True (x.requires_grad_()) before the forward pass"),
    ("appears to not have been used in the graph",
     "you ask for a derivative with respect to a tensor the output was not computed from: a slice such as points[:, 0], "
     "or a detached copy, is a new tensor. Differentiate with respect to the tensor the forward pass used, then take "
     "the column you need; and keep create_graph=True on every derivative you differentiate again"),
    ("grad can be implicitly created only for scalar outputs",
     "backward() and autograd.grad start from one number: for a tensor of many, pass grad_outputs=torch.ones_like(u) "
     "(or differentiate u.sum(), which is the same)"),
    ("modified by an inplace operation",
     "a tensor autograd saved for backward was changed in place afterwards: compute a new tensor instead of writing "
     "into that one"),
    ("only change requires_grad flags of leaf variables",
     "requires_grad_(False) works only on a leaf; a computed tensor keeps its history whatever its flag: x.detach() "
     "returns the same values without it"),
    ("leaf Variable that requires grad is being used in an in-place operation",
     "a parameter or input that requires grad cannot be changed in place while autograd records: do it under "
     "torch.no_grad(), or compute a new tensor"),
    ("numpy() on Tensor that requires grad",
     "a tensor with a graph cannot become a NumPy array: .detach() it first (or .item() for one number)"),
    ("can only be converted to Python scalars",
     ".item() and float() take a tensor of one number: reduce it first (.sum(), .mean(), ...)"),
    ("cannot be converted to Scalar",
     ".item() and float() take a tensor of one number: reduce it first (.sum(), .mean(), ...)"),
    ("'NoneType' object",
     "a value you use is None: a .grad that no backward() reached (a tensor that does not require grad, or one the "
     "loss does not depend on), or an autograd.grad with allow_unused=True for an input the output does not depend on, "
     "or a function that returns nothing"),
    *((found, "your answer ran out of memory: the allocator can't allocate memory for it (a memory limit, or a tensor "
               "kept every step): keep numbers, not tensors, and make no more than the exercise needs")
      for found in ("can't allocate memory", "alloc_cpu.cpp", "out of memory")),
    ("Expected all tensors to be on the same device",
     "the tensors of one operation must be on one device: move them with .to(device)"),
)

# What the same torch error means where a training loop carries something from one step to the next (an exercise whose
# answer runs steps passes these as its ``errors``): without a loop, this advice would misdirect.
LOOP_ERRORS = {
    "backward through the graph a second time":
        "a backward() reached a graph that an earlier backward() had already freed: something carried from one step to "
        "the next (a state, a running total) still hangs on the old graph. Carry its value, .detach() or .item(), where "
        "it is carried; retain_graph=True only silences the error by keeping every step's graph alive",
}

# A number of bytes given in another unit: (what it was given in, bytes per unit).
_UNITS = (("kB", 1000), ("KiB", 1024), ("MB", 1000 ** 2), ("MiB", 1024 ** 2), ("float32 numbers, 4 bytes each", 4))


def unit_mistake(answer, right) -> Optional[str]:
    """What an answer that should be ``right`` bytes says when it is the same size in another unit (kB, KiB, MB, MiB,
    float32 numbers; within the 1 % of a number read off a printed size) or the text a size prints as; None otherwise.

    >>> unit_mistake(1.5, 1536)
    'that is the size in KiB (1.5 x 1024 = 1536): the exercise asks for bytes, a whole number (multiply by 1024)'
    >>> unit_mistake("1.54 kB", 1536)
    "that is a size as text ('1.54 kB'), not a number: return the bytes, an int (format_bytes writes sizes for people)"
    >>> unit_mistake(1536, 1536) is None and unit_mistake(7, 1536) is None
    True
    """
    if isinstance(answer, str) and any(ch.isdigit() for ch in answer):
        return (f"that is a size as text ({answer!r}), not a number: return the bytes, an int (format_bytes writes "
                "sizes for people)")
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not right or answer == right:
        return None
    unit, size = min(_UNITS, key=lambda found: abs(answer * found[1] - right))
    if abs(answer * size - right) > 0.01 * abs(right):
        return None
    return (f"that is the size in {unit} ({answer:g} x {size} = {answer * size:g}): the exercise asks for bytes, a "
            f"whole number (multiply by {size})")


_LIBRARIES = tuple(str(path) + os.sep for path in (pathlib.Path(torch.__file__).parent,
                                                   pathlib.Path(autograd_memory.__file__).parent,
                                                   pathlib.Path(__file__).resolve().parents[1],
                                                   *{pathlib.Path(sysconfig.get_paths()[kind])
                                                     for kind in ("stdlib", "purelib", "platlib")}))


_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _place(filename):
    """Where a line is, for a person: "your cell" for a notebook cell, a path inside the course relative to it."""
    if "ipykernel_" in filename or filename.startswith("<ipython-input"):
        return "your cell"
    return filename.removeprefix(str(_ROOT) + os.sep)


def _learner_line(error):
    """``(place, line number, source)`` of the deepest frame that runs the learner's code (not torch's, the course's
    or Python's own), or of the deepest frame at all if none does."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    own = [(name, number) for name, number in frames if not name.startswith(_LIBRARIES)]
    name, number = (own or frames)[-1]
    return _place(name), number, linecache.getline(name, number).strip()


def explain_error(error: BaseException, errors: Optional[dict] = None) -> str:
    """What an error raised while an answer ran means: its first line, where it was raised and, for a known torch
    error, the idea it reveals (``errors``: an exercise's own ``{words: idea}``, tried before :data:`TORCH_ERRORS`).

    >>> try:
    ...     torch.ones(2, requires_grad=True).exp().backward()
    ... except RuntimeError as error:
    ...     print(explain_error(error).splitlines()[-1])  # doctest: +ELLIPSIS
    backward() and autograd.grad start from one number: for a tensor of many, pass grad_outputs=torch.ones_like(u) ...
    """
    text = str(error).strip().splitlines()
    first = text[0].split(". ")[0] if text else ""  # torch's advice after its first sentence is not this course's
    name, number, source = _learner_line(error)
    where = f"  at {name}, line {number}" + (f": {source}" if source else "")
    idea = next((idea for words, idea in [*(errors or {}).items(), *TORCH_ERRORS] if words in str(error)), None)
    if idea is None:
        idea = ("Look at that line: what did it receive, and what does it expect? (Run your function on its own to see "
                "the whole traceback.)")
    return f"running your answer raised {type(error).__name__}: {first}\n{where}\n{idea}"


def exercise(title: str, errors: Optional[dict] = None) -> Callable:
    """Decorator turning ``check(answer, ...) -> detail`` into a checker with the outcomes above; ``errors``:
    ``{words of an error: the idea it reveals in this exercise}``, tried before :data:`TORCH_ERRORS`."""

    def wrap(check):
        @functools.wraps(check)
        def run(*args, **kwargs):
            try:
                detail = check(*args, **kwargs)
            except NotImplementedError as error:
                if not _is_placeholder(error):
                    raise ExerciseFailed(f"[FAIL] {title}: {explain_error(error, errors)}") from None
                return ExerciseResult(title, "not attempted",
                                      "not attempted yet: replace `raise NotImplementedError` with your answer and re-run.")
            except ExerciseFailed as failure:
                raise ExerciseFailed(f"[FAIL] {title}: {failure}") from None
            except Exception as error:  # noqa: BLE001 - the learner sees what went wrong, never a raw traceback
                raise ExerciseFailed(f"[FAIL] {title}: {explain_error(error, errors)}") from None
            return ExerciseResult(title, "passed", detail or "correct.")

        return run

    return wrap


NOTEBOOK_CHECKERS = tuple(sorted(module.name for module in pkgutil.iter_modules(__path__) if module.name[:2] == "nb"))


def __getattr__(name):
    # checks.<notebook module> is imported on first use
    if name in NOTEBOOK_CHECKERS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
