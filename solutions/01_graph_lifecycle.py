"""Worked solutions for notebook 01, graph lifecycle (for instructors).

Run ``python solutions/01_graph_lifecycle.py`` to see the checkers' verdicts.
"""
import torch
import torch.nn.functional as F

from course_utils.checks import nb01_graph_lifecycle as checks


def predict_saved():
    """An op keeps what its derivative is written with: the output for tanh, sigmoid and relu,
    the input for cos, x ** 2 and silu, and no tensor at all for scaling and summing."""
    return {"tanh": "output", "sigmoid": "output", "relu": "output", "cos": "input",
            "x ** 2": "input", "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"}


def fixed_step(model, optimizer, train_batch, val_batch, history):
    """The leak was ``history.append(val_loss)``: each entry kept its validation graph alive.
    Monitoring needs no graph, so compute it under no_grad and keep a plain float."""
    x, y = train_batch
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    val_x, val_y = val_batch
    with torch.no_grad():
        val_loss = F.mse_loss(model(val_x), val_y)
    history.append(val_loss.item())


def run_checks():
    return [checks.check_saved_prediction(predict_saved), checks.check_leak_fixed(fixed_step)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
