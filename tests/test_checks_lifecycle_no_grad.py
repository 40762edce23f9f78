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


@pytest.mark.parametrize("checker", [lifecycle.check_saved_prediction, lifecycle.check_leak_fixed,
                                     no_grad.check_evaluation, no_grad.check_frozen_body])
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


# --- 01: find and fix the leak --------------------------------------------------------------------

def train(model, optimizer, train_batch):
    x, y = train_batch
    optimizer.zero_grad()
    F.mse_loss(model(x), y).backward()
    optimizer.step()


def val_loss(model, val_batch):
    return F.mse_loss(model(val_batch[0]), val_batch[1])


def leaky_step(model, optimizer, train_batch, val_batch, history):
    train(model, optimizer, train_batch)
    history.append(val_loss(model, val_batch))


def item_step(model, optimizer, train_batch, val_batch, history):
    train(model, optimizer, train_batch)
    history.append(val_loss(model, val_batch).item())


def detached_step(model, optimizer, train_batch, val_batch, history):
    train(model, optimizer, train_batch)
    history.append(val_loss(model, val_batch).detach())


def test_fixed_steps_pass():
    assert lifecycle.check_leak_fixed(item_step).passed
    detached = lifecycle.check_leak_fixed(detached_step)
    assert detached.passed and "detached tensors" in detached.detail


def test_the_leak_itself_fails_with_the_reason():
    message = failure(lifecycle.check_leak_fixed, leaky_step)
    assert "history[0] is a tensor with a graph" in message and "validation graph" in message


kept_elsewhere = []


def step_keeping_a_graph_elsewhere(model, optimizer, train_batch, val_batch, history):
    train(model, optimizer, train_batch)
    loss = val_loss(model, val_batch)
    kept_elsewhere.append(loss)  # "for plotting later"
    history.append(loss.item())


def step_that_no_longer_trains(model, optimizer, train_batch, val_batch, history):
    with torch.no_grad():
        history.append(val_loss(model, val_batch).item())


def step_all_under_no_grad(model, optimizer, train_batch, val_batch, history):
    with torch.no_grad():
        item_step(model, optimizer, train_batch, val_batch, history)


def step_logging_before_the_update(model, optimizer, train_batch, val_batch, history):
    history.append(val_loss(model, val_batch).item())
    train(model, optimizer, train_batch)


@pytest.mark.parametrize("step, hint", [
    (step_keeping_a_graph_elsewhere, "autograd still holds"),
    (step_that_no_longer_trains, "parameters did not change"),
    (step_all_under_no_grad, "must still record a graph"),
    (step_logging_before_the_update, "computed after optimizer.step()"),
])
def test_typical_wrong_fixes_are_explained(step, hint):
    try:
        assert hint in failure(lifecycle.check_leak_fixed, step)
    finally:
        kept_elsewhere.clear()


# --- 02: an evaluation loop that saves nothing ----------------------------------------------------

def evaluate_with(context):
    def evaluate(model, batches):
        with context():
            return sum(F.mse_loss(model(x), y).item() for x, y in batches) / len(batches)
    return evaluate


def test_no_grad_and_inference_mode_evaluations_pass():
    assert no_grad.check_evaluation(evaluate_with(torch.no_grad)).passed
    assert no_grad.check_evaluation(evaluate_with(torch.inference_mode)).passed


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
def test_typical_wrong_evaluations_are_explained(evaluate, hint):
    assert hint in failure(no_grad.check_evaluation, evaluate)
    assert torch.is_grad_enabled(), "the checker must switch grad mode back on whatever the answer did"


def test_the_eval_mode_failure_reports_the_saved_bytes():
    model, batches = lifecycle.mlp_problem()
    with GraphMemory() as graph:
        evaluate_in_eval_mode_only(model, batches)
    assert f"saved {format_bytes(graph.peak)}" in failure(no_grad.check_evaluation, evaluate_in_eval_mode_only)


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
