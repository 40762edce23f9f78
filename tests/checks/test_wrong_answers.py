"""Every exercise of every notebook refuses a plausible wrong answer, and says what to look at.

Each notebook's checker tests (``tests/checks/test_nbNN_<notebook>.py``, found in this folder) hold its rows in
``WRONG``: per checker, the mistake a learner is likely to make, and a fragment of the message that must explain it
(notebook 07's clinic: ``CLINIC``, a row per mystery script). ``test_every_exercise_has_a_row`` fails when a checker
(or a clinic script) is added without one. Those files hold more wrong answers; these rows are the floor.
"""
import importlib
import importlib.util
import inspect
import pathlib

import pytest

from course_utils.checks import NOTEBOOK_CHECKERS, ExerciseFailed, nb07_find_the_leak

HERE = pathlib.Path(__file__).resolve().parent


def _tests_of(module):
    """``module``'s checker tests, loaded from their file for their rows."""
    spec = importlib.util.spec_from_file_location(f"wrong_answers_of_{module}", HERE / f"test_{module}.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


TESTS = {module: _tests_of(module) for module in NOTEBOOK_CHECKERS}
WRONG = [(f"{module}.{checker}", hint, answer) for module, tests in TESTS.items()
         for checker, hint, answer in getattr(tests, "WRONG", [])]
CLINIC = TESTS["nb07_find_the_leak"].CLINIC


@pytest.mark.parametrize("name, hint, answer", WRONG, ids=[row[0] for row in WRONG])
def test_a_plausible_wrong_answer_is_refused_with_a_reason(name, hint, answer):
    module = importlib.import_module(f"course_utils.checks.{name.split('.')[0]}")
    with pytest.raises(ExerciseFailed) as caught:
        answer(module)
    assert str(caught.value).startswith("[FAIL] ") and hint in str(caught.value), str(caught.value)


@pytest.mark.parametrize("name, old, new, hint", CLINIC, ids=[row[0] for row in CLINIC])
def test_a_plausible_wrong_fix_is_refused_with_a_reason(name, old, new, hint):
    with pytest.raises(ExerciseFailed) as caught:
        nb07_find_the_leak.check_fix(name, lambda: (old, new))
    assert str(caught.value).startswith(f"[FAIL] Mystery {name!r}") and hint in str(caught.value), str(caught.value)


def test_every_exercise_has_a_row():
    checkers = {f"{module}.{name}" for module in NOTEBOOK_CHECKERS
                for name, _ in inspect.getmembers(importlib.import_module(f"course_utils.checks.{module}"), inspect.isfunction)
                if name.startswith("check_") and module != "nb07_find_the_leak"}
    assert checkers == {row[0] for row in WRONG}, "every checker needs a row in WRONG of its tests/checks/test_<module>.py"
    assert set(nb07_find_the_leak.MYSTERIES) == {row[0] for row in CLINIC}, (
        "every clinic script needs a row in CLINIC of tests/checks/test_nb07_find_the_leak.py")
