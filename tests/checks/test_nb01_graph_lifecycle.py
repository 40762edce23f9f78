"""The checkers of notebook 01 (course_utils.checks.nb01_graph_lifecycle): right answers pass, typical wrong
answers fail with an explanation, and an unsolved exercise is reported as not attempted."""
import pytest
import torch

from course_utils import GraphMemory, LiveTensors
from course_utils.checks import nb01_graph_lifecycle as checks

RIGHT_PREDICTIONS = {"tanh": "output", "sigmoid": "output", "relu": "output", "cos": "input",
                     "x ** 2": "input", "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"}


@pytest.mark.parametrize("checker", [checks.check_saved_prediction, checks.check_saved_growth])
def test_unsolved_exercise_is_not_attempted(checker, unsolved):
    result = checker(unsolved)
    assert result.status == "not attempted" and "not attempted yet" in str(result)


def test_saved_kind_reads_the_meter():
    assert checks.saved_kind(torch.exp) == ("output", {"parameters": 0, "inputs": 0, "activations": 4000})
    assert checks.saved_kind(torch.sin)[0] == "input"
    assert checks.saved_kind(lambda x: x + 1)[0] == "nothing"


def test_right_predictions_pass():
    assert checks.check_saved_prediction(lambda: dict(RIGHT_PREDICTIONS)).passed


def test_a_wrong_prediction_names_the_op_and_the_reason(failure):
    message = failure(checks.check_saved_prediction, lambda: {**RIGHT_PREDICTIONS, "tanh": "input"})
    assert "tanh: you said 'input', the meter saw 'output'" in message and "1 - tanh(x)^2" in message
    assert "1 of 8 wrong" in message


@pytest.mark.parametrize("answer, hint", [
    (lambda: ["output"] * 8, "should return a dict"),
    (lambda: {"tanh": "output"}, "missing: sigmoid"),
    (lambda: {**RIGHT_PREDICTIONS, "cos": "x"}, "one of 'input', 'output'"),
])
def test_malformed_predictions_are_explained(answer, hint, failure):
    assert hint in failure(checks.check_saved_prediction, answer)


def measure_saved_growth(step, steps=5):
    trace = []
    with GraphMemory() as graph:
        for _ in range(steps):
            step()
            trace.append(graph.bytes)
    return (trace[-1] - trace[0]) / (steps - 1)


def test_measuring_the_saved_growth_passes_and_only_the_kept_tensor_grows():
    assert checks.check_saved_growth(measure_saved_growth).passed
    growth = {name: measure_saved_growth(step) for name, step in checks.logging_steps().items()}
    assert growth["A"] == growth["C"] == 0 < growth["B"], "a running total after backward keeps nodes, not saved bytes"


def test_a_wrong_measurement_is_explained(failure):
    assert "Run step() several times inside one" in failure(checks.check_saved_growth, lambda step: 0)
    assert "Run step() several times inside one" in failure(checks.check_saved_growth, lambda step: "a lot")


def _graph_bytes_after_five_calls(step):
    """the total kept after five calls, not the growth per call."""
    with GraphMemory() as graph:
        for _ in range(5):
            step()
    return graph.bytes


def _unquoted_answer():
    """an answer written without quotes: its own NameError."""
    return {"tanh": output}  # noqa: F821





# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_saved_prediction", "tanh: you said 'input'", lambda m: m.check_saved_prediction(
        lambda: {"tanh": "input", "sigmoid": "output", "relu": "output", "cos": "input", "x ** 2": "input",
                 "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"})),
    ("check_saved_growth", "growth per call", lambda m: m.check_saved_growth(_graph_bytes_after_five_calls)),
    # an error in the learner's own code is the checker's message, with the line that raised
    ("check_saved_prediction", "NameError: name 'output' is not defined", lambda m: m.check_saved_prediction(_unquoted_answer)),
    # the live meter's growth per call (the checker's own measurement, with the other meter)
    ("check_saved_growth", "the live meter's growth", lambda m: m.check_saved_growth(lambda step: m._growth(step, LiveTensors))),
    # the growth in kB (format_bytes' unit), and as the text format_bytes writes
    ("check_saved_growth", "the size in kB", lambda m: m.check_saved_growth(lambda step: m._growth(step) / 1000)),
    ("check_saved_growth", "as text", lambda m: m.check_saved_growth(lambda step: m.format_bytes(m._growth(step)))),
]
