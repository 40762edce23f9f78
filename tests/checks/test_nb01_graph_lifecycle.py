"""The checkers of notebook 01 (course_utils.checks.nb01_graph_lifecycle): right answers pass, typical wrong
answers fail with an explanation, and an unsolved exercise is reported as not attempted."""
import pytest
import torch
import torch.nn.functional as F

from course_utils.checks import nb01_graph_lifecycle as checks


RIGHT_PREDICTIONS = {"tanh": "output", "sigmoid": "output", "relu": "output", "cos": "input",
                     "x ** 2": "input", "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"}


@pytest.mark.parametrize("checker", [checks.check_saved_prediction, checks.check_leak_fixed])
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
    assert checks.check_leak_fixed(item_step).passed
    detached = checks.check_leak_fixed(detached_step)
    assert detached.passed and "detached tensors" in detached.detail


def test_the_leak_itself_fails_with_the_reason(failure):
    message = failure(checks.check_leak_fixed, leaky_step)
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
def test_typical_wrong_fixes_are_explained(step, hint, failure):
    try:
        assert hint in failure(checks.check_leak_fixed, step)
    finally:
        kept_elsewhere.clear()
