"""The checkers of notebook 02 (course_utils.checks.nb02_no_grad_vs_detach): right answers pass, typical wrong
answers fail with an explanation, and an unsolved exercise is reported as not attempted."""
import pytest
import torch

from course_utils import GraphMemory
from course_utils.checks import nb02_no_grad_vs_detach as checks
from course_utils.problems.models import mlp_problem


@pytest.mark.parametrize("checker", [checks.check_saved_peaks, checks.check_frozen_body])
def test_unsolved_exercise_is_not_attempted(checker, unsolved):
    result = checker(unsolved)
    assert result.status == "not attempted" and "not attempted yet" in str(result)


def measure_saved_peak(evaluate, model, batches):
    with GraphMemory() as graph:
        evaluate(model, batches)
    return graph.peak


def test_measuring_the_saved_peak_passes_and_only_the_grad_mode_matters():
    assert checks.check_saved_peaks(measure_saved_peak).passed
    peaks = {name: measure_saved_peak(evaluate, *mlp_problem()) for name, evaluate in checks.evaluations().items()}
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
def test_typical_wrong_measurements_are_explained(answer, hint, failure):
    assert hint in failure(checks.check_saved_peaks, answer)
    assert torch.is_grad_enabled(), "the checker must switch grad mode back on whatever the answer did"


def freeze_in_place(model):
    for p in model[:-1].parameters():
        p.requires_grad_(False)


def test_freezing_in_place_passes_and_saves_less():
    result = checks.check_frozen_body(freeze_in_place)
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
    (freeze_with_detach, ["layers.0.weight, layers.0.bias, layers.2.weight, layers.2.bias", "p.detach() returns a new tensor"]),
    (freeze_weights_only, ["still requiring grad: layers.0.bias, layers.2.bias"]),
    (freeze_everything, ["froze the head too"]),
])
def test_typical_wrong_freezes_are_explained(freeze, hints, failure):
    message = failure(checks.check_frozen_body, freeze)
    assert all(hint in message for hint in hints), message


def _saved_after_the_call(evaluate, model, batches):
    """graph.bytes once the evaluation is over (every graph has died with its loss by then)."""
    with GraphMemory() as graph:
        evaluate(model, batches)
    return graph.bytes


def _freeze_with_detach(model):
    """detach() returns a new tensor; the parameter still requires grad."""
    for p in model[:-1].parameters():
        p.detach()


def _freeze_the_head(model):
    """the other way round: the head frozen, the body left training."""
    model[-1].requires_grad_(False)


def _freeze_a_named_body(model):
    """a body by a name the model does not have: its own AttributeError."""
    model.body.requires_grad_(False)



def _measured_under_no_grad(evaluate, model, batches):
    """the measurement itself under torch.no_grad(): every evaluation then records nothing."""
    with torch.no_grad(), GraphMemory() as graph:
        evaluate(model, batches)
    return graph.peak


def _peak_in_kib(evaluate, model, batches):
    """the right peak, in KiB."""
    with GraphMemory() as graph:
        evaluate(model, batches)
    return graph.peak / 1024


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_saved_peaks", "which of its readings remembers the most", lambda m: m.check_saved_peaks(_saved_after_the_call)),
    ("check_frozen_body", "p.detach() returns a new tensor", lambda m: m.check_frozen_body(_freeze_with_detach)),
    ("check_frozen_body", "the other way round", lambda m: m.check_frozen_body(_freeze_the_head)),
    ("check_frozen_body", "AttributeError", lambda m: m.check_frozen_body(_freeze_a_named_body)),
    ("check_saved_peaks", "your measurement ran under torch.no_grad()", lambda m: m.check_saved_peaks(_measured_under_no_grad)),
    ("check_saved_peaks", "the size in KiB", lambda m: m.check_saved_peaks(_peak_in_kib)),
]
