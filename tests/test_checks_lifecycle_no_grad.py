"""The checkers of notebooks 01 and 02: right answers pass, typical wrong answers fail with an
explanation, and an unsolved exercise is reported as not attempted (it never fails the notebook)."""
import pytest
import torch
import torch.nn.functional as F

from course_utils import GraphMemory, format_bytes
from course_utils.checks import ExerciseFailed, lifecycle, no_grad

RIGHT_PREDICTIONS = {"tanh": "output", "sigmoid": "output", "relu": "output", "cos": "input",
                     "x ** 2": "input", "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"}


def unsolved(*args):
    raise NotImplementedError


@pytest.mark.parametrize("checker", [lifecycle.check_saved_prediction, lifecycle.check_saved_growth,
                                     no_grad.check_saved_peaks, no_grad.check_frozen_body])
def test_unsolved_exercise_is_not_attempted(checker):
    result = checker(unsolved)
    assert result.status == "not attempted" and "not attempted yet" in str(result)


def failure(checker, answer):
    with pytest.raises(ExerciseFailed) as caught:
        checker(answer)
    return str(caught.value)


# --- 01: what does an op save -------------------------------------------------------------------

def test_saved_kind_reads_the_meter():
    assert lifecycle.saved_kind(torch.exp) == ("output", {"parameters": 0, "inputs": 0, "activations": 4000})
    assert lifecycle.saved_kind(torch.sin)[0] == "input"
    assert lifecycle.saved_kind(lambda x: x + 1)[0] == "nothing"


def test_right_predictions_pass():
    assert lifecycle.check_saved_prediction(lambda: dict(RIGHT_PREDICTIONS)).passed


def test_a_wrong_prediction_names_the_op_and_the_reason():
    message = failure(lifecycle.check_saved_prediction, lambda: {**RIGHT_PREDICTIONS, "tanh": "input"})
    assert "tanh: you said 'input', the meter saw 'output'" in message and "1 - tanh(x)^2" in message
    assert "1 of 8 wrong" in message


@pytest.mark.parametrize("answer, hint", [
    (lambda: ["output"] * 8, "should return a dict"),
    (lambda: {"tanh": "output"}, "missing: sigmoid"),
    (lambda: {**RIGHT_PREDICTIONS, "cos": "x"}, "one of 'input', 'output'"),
])
def test_malformed_predictions_are_explained(answer, hint):
    assert hint in failure(lifecycle.check_saved_prediction, answer)


# --- 01: which logging line keeps a graph --------------------------------------------------------

def measure_saved_growth(step, steps=5):
    trace = []
    with GraphMemory() as graph:
        for _ in range(steps):
            step()
            trace.append(graph.bytes)
    return (trace[-1] - trace[0]) / (steps - 1)


def test_measuring_the_saved_growth_passes_and_only_the_kept_tensor_grows():
    result = lifecycle.check_saved_growth(measure_saved_growth)
    assert result.passed
    growth = {name: measure_saved_growth(step) for name, step in lifecycle.logging_steps().items()}
    assert growth["A"] == growth["C"] == 0 < growth["B"], "a running total after backward keeps nodes, not saved bytes"


def test_a_wrong_measurement_is_explained():
    assert "Run step() several times inside one" in failure(lifecycle.check_saved_growth, lambda step: 0)
    assert "Run step() several times inside one" in failure(lifecycle.check_saved_growth, lambda step: "a lot")


# --- 02: which evaluation records a graph ----------------------------------------------------------

def measure_saved_peak(evaluate, model, batches):
    with GraphMemory() as graph:
        evaluate(model, batches)
    return graph.peak


def test_measuring_the_saved_peak_passes_and_only_the_grad_mode_matters():
    assert no_grad.check_saved_peaks(measure_saved_peak).passed
    peaks = {name: measure_saved_peak(evaluate, *lifecycle.mlp_problem()) for name, evaluate in no_grad.evaluations().items()}
    assert peaks["A"] == peaks["B"] > 0 == peaks["C"] == peaks["D"], "eval() and a late detach record; no_grad does not"


def saved_after_the_call(evaluate, model, batches):
    with GraphMemory() as graph:
        evaluate(model, batches)
    return graph.bytes


def switching_grad_off_for_good(evaluate, model, batches):
    torch.set_grad_enabled(False)
    return 0


@pytest.mark.parametrize("answer, hint", [
    (saved_after_the_call, "graph.bytes after the call is 0"),
    (switching_grad_off_for_good, "grad mode was still off"),
])
def test_typical_wrong_measurements_are_explained(answer, hint):
    assert hint in failure(no_grad.check_saved_peaks, answer)
    assert torch.is_grad_enabled(), "the checker must switch grad mode back on whatever the answer did"


# --- 02: freeze the body -------------------------------------------------------------------------

def freeze_in_place(model):
    for p in model[:-1].parameters():
        p.requires_grad_(False)


def test_freezing_in_place_passes_and_saves_less():
    result = no_grad.check_frozen_body(freeze_in_place)
    assert result.passed and "4 body parameters" in result.detail


def freeze_with_detach(model):
    for p in model[:-1].parameters():
        p.detach()


def freeze_weights_only(model):
    for layer in (model[0], model[2]):
        layer.weight.requires_grad_(False)


def freeze_everything(model):
    model.requires_grad_(False)


@pytest.mark.parametrize("freeze, hints", [
    (freeze_with_detach, ["0.weight, 0.bias, 2.weight, 2.bias", "p.detach() returns a new tensor"]),
    (freeze_weights_only, ["still requiring grad: 0.bias, 2.bias"]),
    (freeze_everything, ["froze the head too"]),
])
def test_typical_wrong_freezes_are_explained(freeze, hints):
    message = failure(no_grad.check_frozen_body, freeze)
    assert all(hint in message for hint in hints), message
