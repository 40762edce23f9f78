"""nbgrader grades the course's exercises: the generated course, real `generate_assignment`, `autograde`, `export`.

Four students submit: ``solved`` hands in the worked answers of every assignment (full marks), ``blank`` hands in
01's release as it came (zero), ``mixed`` hands in, in five assignments, plausible wrong answers, three that break
things (a loop that never ends, an allocation without bound, a kernel that exits) and the worked answers elsewhere:
zero for exactly the broken and wrong exercises, with the checker's message or what happened as feedback, and full
marks for the rest. ``cheat`` hands in wrong answers to 05 and 07 whose cells rebind, patch or fake the checkers:
zero for every one of them.

Two settings keep it short: the loop that never ends is interrupted after ``CELL_TIMEOUT``, several times the
slowest graded cell, instead of the course's own limit (a notebook's whole time budget, which
test_the_course_gives_a_cell_a_notebooks_budget checks); and two nbgrader processes grade at once (``AT_ONCE``),
into the one gradebook, as an instructor on a machine with two cores may.
"""
import csv
import re
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from nbgrader.api import Gradebook

from deploy import assignments, grading, sizing

# Each assignment is a whole notebook: its slowest cells take several seconds alone, and more with the other runs on
# the two cores. 45 s is well above that and below the course's own limit (a notebook's budget), which the loop that
# never ends would wait out.
CELL_TIMEOUT = 45
WRONG = {  # assignment -> {answer function: (its source, what the feedback says)}
    "01_graph_lifecycle": {"predict_saved": (
        'def predict_saved():\n    return {"tanh": "input", "sigmoid": "output", "relu": "output", "cos": "input",'
        ' "x ** 2": "input", "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"}', "[FAIL]")},
    "02_no_grad_vs_detach": {"saved_peak": (
        "def saved_peak(evaluate, model, batches):\n    while True:\n        pass",
        f"TimeLimit: .*longer than {CELL_TIMEOUT} s")},
    "04_euler_ode_truncation": {"euler_step": (
        "def euler_step(field, x, dt):\n    hoard = []\n    while True:\n        hoard.append(torch.ones(2**24))",
        "MemoryError|can't allocate memory|not enough memory")},
    "05_laplacian_pinn": {"diagnose": (
        "def diagnose(step, steps=6):\n    import os\n    os._exit(1)", "KernelDied")},
    "07_find_the_leak": {"fix_activation_hook": (
        'def fix_activation_hook():\n    return "history.append(output.std())", "history.append(output.std().detach())"',
        "[FAIL]")},
}
CHEATS = {  # assignment -> {answer function: a wrong answer that tries to pass anyway}
    "05_laplacian_pinn": {
        "diagnose": ('def diagnose(step, steps=6):\n    return ("nothing", 0)\n\n\nclass Passed:\n    passed = True\n\n\n'
                     'checks.check_diagnosis = lambda *a, **k: Passed()'),
        "kept_loss_bytes": ("def kept_loss_bytes(n_points, laplacian):\n    return 0\n\n\n"
                            "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)")},
    "07_find_the_leak": {
        "fix_loss_history": ("import course_utils.checks as real\n\n\ndef fix_loss_history():\n"
                             "    real.nb07_find_the_leak.expect = lambda *a, **k: None\n    return 'a', 'b'"),
        "fix_activation_hook": ("from course_utils.checks import ExerciseResult\n\n\ndef fix_activation_hook():\n"
                                "    return 'a', 'b'\n\n\n"
                                "del checks.check_fix\n"
                                "checks.check_fix = lambda *a, **k: ExerciseResult('fix', 'passed')")},
}
MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\n", re.M)
# nbgrader autogrades one submission at a time; two processes, one core each: ``solved`` (seven notebooks) in one,
# the others (eight) in the other.
AT_ONCE = (("--student=solved",), ("--CourseDirectory.student_id_exclude=solved",))


def answer_cells(nb):
    return {c.metadata["nbgrader"]["grade_id"].removeprefix("answer_"): c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def submit(course, student, name, answers):
    """Hand in the release of assignment ``name`` with ``answers`` ({function: source}) in its answer cells."""
    nb = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
    for function, cell in answer_cells(nb).items():
        if function in answers:
            cell.source = answers[function]
    folder = course / "submitted" / student / name
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{name}.ipynb")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("nbgrader")
    names = assignments.write_course(course)
    assignments.nbgrader(course, "generate_assignment", "*")
    worked = {}
    for name in names:
        source = nbformat.read(course / "source" / name / f"{name}.ipynb", as_version=4)
        worked[name] = {f: MARKERS.sub("", c.source) for f, c in answer_cells(source).items()}
        submit(course, "solved", name, worked[name])
        if name in WRONG:
            submit(course, "mixed", name, {**worked[name], **{f: s for f, (s, _) in WRONG[name].items()}})
        if name in CHEATS:
            submit(course, "cheat", name, {**worked[name], **CHEATS[name]})
    submit(course, "blank", names[0], {})
    with ThreadPoolExecutor(len(AT_ONCE)) as pool:
        done = [pool.submit(assignments.nbgrader, course, "autograde", "*", f"--Execute.timeout={CELL_TIMEOUT}", *part)
                for part in AT_ONCE]
    for part in done:
        part.result()
    assignments.nbgrader(course, "export", "--to", str(course / "grades.csv"))
    return course, names, worked


def scores(course, student):
    """{(assignment, answer function): score} from nbgrader's gradebook."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(submission.assignment.name, grade.name.removeprefix("test_")): grade.score
                for submission in gb.find_student(student).submissions
                for notebook in submission.notebooks for grade in notebook.grades}


def feedback(course, student, name, function):
    """The autograded test cell's outputs: what the student reads under the exercise."""
    nb = nbformat.read(course / "autograded" / student / name / f"{name}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"test_{function}")
    return "\n".join(o.get("text", "") + "\n".join(o.get("traceback", [])) + o.get("evalue", "") for o in cell.outputs)


def test_every_exercise_is_graded_with_its_points(graded):
    course, names, worked = graded
    exercises = {(name, f) for name in names for f in worked[name]}
    assert set(scores(course, "solved")) == exercises, "every exercise of every notebook should have a graded test cell"
    assert len(exercises) >= 2 * len(names)


def test_the_worked_solutions_get_full_marks(graded):
    course, _, _ = graded
    missed = {k: v for k, v in scores(course, "solved").items() if v != assignments.POINTS}
    assert not missed, "worked answers that nbgrader did not give full marks: " + "; ".join(
        f"{k}: {feedback(course, 'solved', *k)[-400:]}" for k in missed)


def test_an_empty_submission_gets_zero(graded):
    course, _, _ = graded
    assert set(scores(course, "blank").values()) == {0}
    assert "not attempted" in feedback(course, "blank", "01_graph_lifecycle", "predict_saved")


def test_wrong_and_broken_answers_get_zero_with_a_message_and_the_rest_is_graded(graded):
    course, _, _ = graded
    got = scores(course, "mixed")
    wrong = {(name, f) for name, answers in WRONG.items() for f in answers}
    assert {k for k, v in got.items() if v == 0} == wrong, "exactly the wrong and broken answers should score zero"
    assert all(v == assignments.POINTS for k, v in got.items() if k not in wrong), "the rest should be graded in full"
    for name, answers in WRONG.items():
        for function, (_, says) in answers.items():
            text = feedback(course, "mixed", name, function)
            assert re.search(says if "[" not in says else re.escape(says), text), (
                f"{name} {function}: the feedback should say {says!r}, it says:\n{text[-600:]}")


def test_an_answer_that_rebinds_patches_or_fakes_a_checker_gets_zero(graded):
    course, _, _ = graded
    got = scores(course, "cheat")
    cheated = {(name, f) for name, answers in CHEATS.items() for f in answers}
    assert {k: v for k, v in got.items() if k in cheated} == dict.fromkeys(cheated, 0), (
        "a cell that rebinds, patches or fakes a checker should earn nothing: " + "; ".join(
            f"{k}: {feedback(course, 'cheat', *k)[-300:]}" for k in cheated if got.get(k)))
    assert all(v == assignments.POINTS for k, v in got.items() if k not in cheated), "the honest answers beside them count"
    for name, function in cheated:
        text = feedback(course, "cheat", name, function)
        assert "[FAIL]" in text or "changed the course's code" in text, f"{name} {function}: the feedback says {text}"
        assert "Traceback" not in text and not re.search(r"/(tmp|work|home|srv)/", text), (
            f"{name} {function}: feedback is the checker's message, without a traceback or a path: {text}")


def test_grades_come_out_as_csv(graded):
    course, names, worked = graded
    rows = list(csv.DictReader((course / "grades.csv").open()))
    total = {s: sum(float(r["score"]) for r in rows if r["student_id"] == s) for s in ("solved", "blank", "mixed")}
    most = sum(len(worked[name]) for name in names) * assignments.POINTS
    assert total["solved"] == most and total["blank"] == 0 and 0 < total["mixed"], total


def test_the_course_gives_a_cell_a_notebooks_budget():
    """The course's own time limit for a cell, which the grading above shortens to ``CELL_TIMEOUT``."""
    from traitlets.config import Config

    budget = sizing.Sizing.measured().budget_seconds
    assert grading.configure(Config()).Execute.timeout == budget > CELL_TIMEOUT


def run_graded(*sources):
    """Run cells (the first one locked, as an assignment's set-up; the others answer cells, which grading runs)
    through the course's grading Execute."""
    from traitlets.config import Config

    cells = [nbformat.v4.new_code_cell(s) for s in sources]
    cells[0].metadata["nbgrader"] = {"grade_id": "setup", "locked": True, "solution": False, "grade": False}
    for number, cell in enumerate(cells[1:], 1):
        cell.metadata["nbgrader"] = {"grade_id": f"answer_{number}", "locked": False, "solution": True, "grade": False}
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "autograd-memory-lab", "language": "python", "display_name": "Autograd Memory Lab"}})
    graded, _ = grading.GradeOnExecute(config=grading.configure(Config())).preprocess(nb, {})
    return [[(o.output_type, o.get("ename"), o.get("text", "")) for o in c.outputs] for c in graded.cells]


def test_a_failed_allocation_leaves_the_memory_to_the_next_exercise():
    outputs = run_graded("import torch",
                         "def hoard():\n    kept = []\n    while True:\n        kept.append(torch.ones(2**24))\nhoard()",
                         "print(torch.ones(2**26).sum().item())")
    assert outputs[1][0][0] == "error", f"the hoarding cell should fail at the memory limit: {outputs[1]}"
    assert outputs[2] == [("stream", None, f"{2**26}.0\n")], f"the next cell could not allocate 256 MiB: {outputs[2]}"


def test_a_dead_kernel_zeroes_its_cell_and_the_rest_runs_in_a_fresh_one():
    outputs = run_graded("base = 41", "import os\nos._exit(1)", "print(base + 1)")
    assert outputs[1] == [("error", "KernelDied", "")], outputs[1]
    assert outputs[2] == [("stream", None, "42\n")], f"the set-up should run again in the new kernel: {outputs[2]}"
