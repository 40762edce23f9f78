"""The class's files that need no hub to check: the sizing, the Zero to JupyterHub values, the nbgrader course's
exercises. (The real hub and nbgrader run in tests/class/, `make test-class`.)"""
import copy
import doctest
import importlib
import json
import pathlib
import re

import jsonschema
import nbformat
import pytest
import yaml

from deploy import assignments, fresh_check, learner_copies, sizing, z2jh_values

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "class" / "data"

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def helm_merge(defaults, values):
    """The chart's defaults with ``values`` over them, as Helm coalesces them (maps merge, null removes a key)."""
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = helm_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def validate(values):
    schema = json.loads((DATA / "z2jh_values.schema.json").read_text())
    defaults = yaml.safe_load((DATA / "z2jh_default_values.yaml").read_text())
    jsonschema.validate(helm_merge(defaults, values), schema, cls=jsonschema.Draft7Validator)


def test_z2jh_values_validate_against_the_charts_schema():
    validate(yaml.safe_load((ROOT / "deploy" / "z2jh" / "values.yaml").read_text()))


def test_the_documented_real_authenticator_lets_in_only_whom_it_names():
    """values.yaml with the documented my-secrets.yaml over it, merged as Helm merges them: no ``allow_all`` survives."""
    ours = yaml.safe_load((ROOT / "deploy" / "z2jh" / "values.yaml").read_text())
    secrets = yaml.safe_load((ROOT / "deploy" / "z2jh" / "my-secrets.example.yaml").read_text())
    merged = helm_merge(ours, secrets)
    validate(merged)
    config = merged["hub"]["config"]
    assert config["JupyterHub"]["authenticator_class"] == "github"
    assert not config.get("Authenticator", {}).get("allow_all"), "allow_all outlives the switch to a real login"
    assert config["GitHubOAuthenticator"]["allowed_organizations"], "the documented login names who may log in"


@pytest.mark.parametrize("typo", [{"singleuser": {"memory": {"limt": "1G"}}}, {"cull": {"timeout": "an hour"}}])
def test_the_schema_refuses_values_the_chart_does_not_know(typo):
    with pytest.raises(jsonschema.ValidationError):
        validate(typo)


def test_the_values_and_the_guides_sizing_are_fresh():
    assert sizing.main(["--check"]) == 0, "run python -m deploy.sizing --write"


def test_the_limits_come_from_the_measured_notebooks(tmp_path):
    measured = json.loads((ROOT / "data" / "notebooks_cpu.json").read_text())
    s = sizing.Sizing.measured()
    peak = max(n["peak_rss_bytes"] for n in measured["notebooks"].values())
    assert s.memory_guarantee >= peak and s.memory_limit >= peak * (1 + sizing.MEMORY_MARGIN)
    assert s.memory_limit - peak * (1 + sizing.MEMORY_MARGIN) < sizing.ROUND_MEMORY
    heavier = copy.deepcopy(measured)
    heavier["notebooks"]["03_trapezoid_integration"]["peak_rss_bytes"] = 10 * peak
    (tmp_path / "runs.json").write_text(json.dumps(heavier))
    moved = sizing.Sizing.measured(tmp_path / "runs.json")
    assert moved.memory_limit >= 10 * peak * (1 + sizing.MEMORY_MARGIN) and moved.nodes(200) > s.nodes(200)
    values = z2jh_values.values(s)["singleuser"]
    assert values["memory"]["limit"] == f"{s.memory_limit // 2**20}M" and values["cpu"]["limit"] == s.cpu_limit


def test_the_image_is_the_learners_runtime_environment():
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "binder/environment.yml" in dockerfile and "--name autograd-memory-lab" in dockerfile
    assert z2jh_values.COURSE in dockerfile and "deploy.learner_copies" in str(z2jh_values.values(sizing.Sizing.measured()))


def test_a_guarantee_above_its_limit_is_an_error(tmp_path):
    """A noisy run time once made the CPU guarantee 2.02 cores against a limit of 2: Kubernetes rejects that pod."""
    measured = json.loads((ROOT / "data" / "notebooks_cpu.json").read_text())
    slow = copy.deepcopy(measured)
    slow["notebooks"]["05_laplacian_pinn"]["seconds"] = 1.01 * slow["budget"]["seconds"]
    (tmp_path / "runs.json").write_text(json.dumps(slow))
    with pytest.raises(ValueError, match="CPU guarantee .* is above its limit"):
        sizing.Sizing.measured(tmp_path / "runs.json")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_every_checker_a_notebook_calls_is_a_graded_exercise(notebook):
    cells = nbformat.read(notebook, as_version=4).cells
    called = {m for c in cells if c.cell_type == "code" for m in re.findall(r"^checks\.(check_\w+)\(", c.source, re.M)}
    found = assignments.exercises(notebook)
    assert {re.match(r"checks\.(check_\w+)", e.check)[1] for e in found} == called
    for exercise in found:
        compile(exercise.solution, f"{notebook.stem}:{exercise.function}", "exec")
        assert "### BEGIN SOLUTION" in exercise.solution and "raise NotImplementedError" not in exercise.solution.split(
            "### BEGIN SOLUTION")[1].split("### END SOLUTION")[0], f"{exercise.function}: the worked answer is missing"


def test_every_checker_of_the_course_is_graded():
    graded = {re.match(r"checks\.(check_\w+)", e.check)[1] for n in NOTEBOOKS for e in assignments.exercises(n)}
    public = set()
    for name in importlib.import_module("course_utils.checks").NOTEBOOK_CHECKERS:
        module = importlib.import_module(f"course_utils.checks.{name}")
        public |= {f for f in module.__all__ if f.startswith("check_")}
    assert public <= graded, f"checkers no notebook exercise calls: {sorted(public - graded)}"


LEARNER = sorted((ROOT / "learner").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("notebook", LEARNER, ids=[n.stem for n in LEARNER])
def test_an_assignment_is_the_learners_notebook_without_the_worked_solutions(notebook):
    """Every prompt finds what it refers to (the whole notebook is there), no prompt is a speaker note (the learner's
    edition has none), and nothing points at solutions/."""
    nb = assignments.assignment(notebook)
    exercises = {e.at for e in assignments.exercises(notebook)}
    if nb is None:
        assert not exercises
        return
    graded = {c.metadata.get("nbgrader", {}).get("grade_id", "") for c in nb.cells}
    assert {f"answer_{e.function}" for e in assignments.exercises(notebook)} <= graded
    intro = next(i for i, c in enumerate(nb.cells) if c.source.startswith("**This notebook is graded.**"))
    assert nb.cells[intro - 1].source.startswith("# "), "the introduction sits under the title"
    kept = [c.source for c in nb.cells[:intro] + nb.cells[intro + 1:] if not (c.metadata.get("nbgrader", {}).get("solution")
                                                   or c.metadata.get("nbgrader", {}).get("grade"))]
    learner = nbformat.read(notebook, as_version=4).cells
    assert kept == [assignments.without_solution_links(c.source) if c.cell_type == "markdown" else c.source
                    for i, c in enumerate(learner) if i not in exercises], (
        "the assignment should hold every cell of the learner's edition, in order")
    assert not [c.source for c in nb.cells if "solutions/" in c.source], "a released assignment links to solutions/"


@pytest.mark.parametrize("module", [sizing, z2jh_values, learner_copies, assignments, fresh_check],
                         ids=lambda m: m.__name__)
def test_deploy_docstring_examples(module):
    assert doctest.testmod(module).failed == 0
