"""The instructors' worked solutions pass the same checkers the learners run, so neither can rot.

Each ``solutions/NN_topic.py`` defines ``run_checks()`` that calls every checker of its notebook
with the worked answer and returns the list of ``ExerciseResult``.
"""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.py"))


def _load(path):
    spec = importlib.util.spec_from_file_location(f"solutions_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_worked_solutions_pass_their_checkers(path):
    results = _load(path).run_checks()
    assert len(results) >= 2, f"{path.name} should check at least two exercises"
    not_passed = [str(r) for r in results if not r.passed]
    assert not not_passed, f"{path.name}: {not_passed}"


def test_every_exercise_notebook_has_solutions():
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("0[1-9]_*.ipynb"))
    assert [p.stem for p in SOLUTIONS] == notebooks, "each notebook 01-05 needs solutions/<same name>.py"
