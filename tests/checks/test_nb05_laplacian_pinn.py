"""Notebook 05's checkers: each wrong answer gets its own explanation, the worked answers pass."""
import pytest

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb05_laplacian_pinn as checks

pytestmark = pytest.mark.usefixtures("one_torch_thread")

def truth():
    # each mystery step's kind and live growth, measured as the checker does
    growth = {name: checks._measure(step)[1] for name, step in checks.mystery_steps().items()}
    assert growth["B"] == 0 and growth["C"] == 4 + 24 * checks.POINTS, "a kept loss: its 4 bytes, the points and their .grad"
    return {"A": ("graph", growth["A"]), "B": ("nothing", 0), "C": ("tensors", growth["C"])}


def answering(answers):
    # a "diagnose" that recognises each mystery step by identity and answers from a table
    names = iter(sorted(checks.mystery_steps()))
    return lambda step: answers[next(names)]


def test_the_diagnosis_checker_reads_both_meters():
    right = truth()
    assert checks.check_diagnosis(answering(right)).passed
    wrong_kind = dict(right, A=("tensors", right["A"][1]))
    with pytest.raises(ExerciseFailed, match="graph meter grows"):
        checks.check_diagnosis(answering(wrong_kind))
    wrong_bytes = dict(right, C=("tensors", 1000))
    with pytest.raises(ExerciseFailed, match="Skip the first step"):
        checks.check_diagnosis(answering(wrong_bytes))
    with pytest.raises(ExerciseFailed, match="return a pair"):
        checks.check_diagnosis(lambda step: "graph")


def test_the_leak_bytes_checker_wants_the_leaf_and_its_grad():
    with pytest.raises(ExerciseFailed, match="which of them got a .grad"):
        checks.check_leak_bytes(lambda n_points, laplacian: 4)
    with pytest.raises(ExerciseFailed, match="which of them got a .grad"):
        checks.check_leak_bytes(lambda n_points, laplacian: 4 + 12 * n_points)
    assert checks.check_leak_bytes(lambda n_points, laplacian: 4 + (24 * n_points if laplacian == "nested" else 0)).passed


def _live_meter_only(step):
    """reads only the live meter, so a kept graph looks like kept tensors."""
    from course_utils import LiveTensors, Trace
    trace = Trace("step")
    with LiveTensors() as live:
        for i in range(6):
            step()
            trace.record(i, live=live.bytes)
    growth = trace.growth_per_step("live", skip=1)
    return ("tensors" if growth > 0 else "nothing"), growth


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_diagnosis", "graph meter grows", lambda m: m.check_diagnosis(_live_meter_only)),
    ("check_leak_bytes", "which of them got a .grad",
     lambda m: m.check_leak_bytes(lambda n_points, laplacian: 4 + (3 * 4 * n_points if laplacian == "nested" else 0))),
]
