"""The checkers of notebook 02 (course_utils.checks.nb02_no_grad_vs_detach): right answers pass, typical wrong
answers fail with an explanation, and an unsolved exercise is reported as not attempted."""
import pytest
import torch
import torch.nn.functional as F

from course_utils import GraphMemory, format_bytes
from course_utils.checks import nb02_no_grad_vs_detach as checks
from course_utils.models import mlp_problem


@pytest.mark.parametrize("checker", [checks.check_evaluation, checks.check_frozen_body])
def test_unsolved_exercise_is_not_attempted(checker, unsolved):
    result = checker(unsolved)
    assert result.status == "not attempted" and "not attempted yet" in str(result)


def evaluate_with(context):
    def evaluate(model, batches):
        with context():
            return sum(F.mse_loss(model(x), y).item() for x, y in batches) / len(batches)
    return evaluate


def test_no_grad_and_inference_mode_evaluations_pass():
    assert checks.check_evaluation(evaluate_with(torch.no_grad)).passed
    assert checks.check_evaluation(evaluate_with(torch.inference_mode)).passed


def evaluate_in_eval_mode_only(model, batches):
    model.eval()
    return sum(F.mse_loss(model(x), y).item() for x, y in batches) / len(batches)


def evaluate_switching_grad_off_for_good(model, batches):
    torch.set_grad_enabled(False)
    return evaluate_in_eval_mode_only(model, batches)


def evaluate_returning_a_tensor(model, batches):
    with torch.no_grad():
        return sum(F.mse_loss(model(x), y) for x, y in batches) / len(batches)


def evaluate_returning_the_sum(model, batches):
    with torch.no_grad():
        return sum(F.mse_loss(model(x), y).item() for x, y in batches)


@pytest.mark.parametrize("evaluate, hint", [
    (evaluate_in_eval_mode_only, "model.eval() alone does not do it"),
    (evaluate_switching_grad_off_for_good, "grad mode was still off"),
    (evaluate_returning_a_tensor, "plain float, got Tensor"),
    (evaluate_returning_the_sum, "the mean MSE over the 4 batches"),
])
def test_typical_wrong_evaluations_are_explained(evaluate, hint, failure):
    assert hint in failure(checks.check_evaluation, evaluate)
    assert torch.is_grad_enabled(), "the checker must switch grad mode back on whatever the answer did"


def test_the_eval_mode_failure_reports_the_saved_bytes(failure):
    model, batches = mlp_problem()
    with GraphMemory() as graph:
        evaluate_in_eval_mode_only(model, batches)
    assert f"saved {format_bytes(graph.peak)}" in failure(checks.check_evaluation, evaluate_in_eval_mode_only)


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
