"""Notebook 05's checkers: each wrong answer gets its own explanation, the worked answers pass."""
import pytest

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb05_laplacian_pinn as checks

pytestmark = pytest.mark.usefixtures("one_torch_thread")

def truth(points=checks.POINTS):
    # each mystery step's kind and live growth, measured as the checker does
    growth = {name: checks._measure(step)[1] for name, step in checks.mystery_steps(points=points).items()}
    assert growth["B"] == 0 and growth["C"] == 4 + 24 * points, "a kept loss: its 4 bytes, the points and their .grad"
    return {"A": ("graph", growth["A"]), "B": ("nothing", 0), "C": ("tensors", growth["C"])}


def by_position(answers):
    # a "diagnose" that answers from a list, one answer per call, without looking at the step
    answers = list(answers)
    return lambda step: answers.pop(0)


def test_the_diagnosis_checker_reads_both_meters():
    right = {points: truth(points) for points, _order in checks.ROUNDS}
    by_round = lambda table: by_position(table[points][name] for points, order in checks.ROUNDS for name in order)
    assert checks.check_diagnosis(by_round(right)).passed
    first = checks.ROUNDS[0][0]
    wrong_kind = {**right, first: dict(right[first], A=("tensors", right[first]["A"][1]))}
    with pytest.raises(ExerciseFailed, match="graph meter grows"):
        checks.check_diagnosis(by_round(wrong_kind))
    wrong_bytes = {**right, first: dict(right[first], C=("tensors", 1000))}
    with pytest.raises(ExerciseFailed, match="skip the first step"):
        checks.check_diagnosis(by_round(wrong_bytes))
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


def _bytes_typed_in(step):
    """the kind measured, the kept loss's bytes typed in from Part 2's 64 points: right at one size only."""
    kind, growth = _both_meters(step)
    return kind, (4 + 24 * 64 if kind == "tensors" else growth)


def _both_meters(step):
    from course_utils import GraphMemory, LiveTensors, Trace
    trace = Trace("step")
    with LiveTensors() as live, GraphMemory() as graph:
        for i in range(6):
            step()
            trace.record(i, live=live.bytes, saved=graph.bytes)
    live_growth = trace.growth_per_step("live", skip=1)
    kind = "graph" if trace.growth_per_step("saved", skip=1) > 0 else "tensors" if live_growth > 0 else "nothing"
    return kind, live_growth



def _growth_in_kib(step):
    """the kind and the live growth measured, the growth in KiB."""
    kind, growth = _both_meters(step)
    return kind, growth / 1024


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_diagnosis", "graph meter grows", lambda m: m.check_diagnosis(_live_meter_only)),
    ("check_leak_bytes", "which of them got a .grad",
     lambda m: m.check_leak_bytes(lambda n_points, laplacian: 4 + (3 * 4 * n_points if laplacian == "nested" else 0))),
    ("check_diagnosis", "points", lambda m: m.check_diagnosis(_bytes_typed_in)),
    # the answers in the order the steps are named, twice: right only if the checker always asks in that order
    ("check_diagnosis", "you said", lambda m: m.check_diagnosis(by_position([*truth().values()] * 2))),
    # the kept loss's bytes in kB; counted in float32 numbers, not bytes
    ("check_leak_bytes", "the size in kB", lambda m: m.check_leak_bytes(
        lambda n_points, laplacian: (4 + (24 * n_points if laplacian == "nested" else 0)) / 1000)),
    ("check_leak_bytes", "4 bytes each", lambda m: m.check_leak_bytes(
        lambda n_points, laplacian: 1 + (6 * n_points if laplacian == "nested" else 0))),
    ("check_diagnosis", "the size in KiB", lambda m: m.check_diagnosis(_growth_in_kib)),
]
