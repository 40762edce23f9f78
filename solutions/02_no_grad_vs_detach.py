"""Worked solutions for notebook 02, no_grad vs detach (for instructors).

Run ``python solutions/02_no_grad_vs_detach.py`` to see the checkers' verdicts.
"""
import torch
import torch.nn.functional as F

from course_utils.checks import nb02_no_grad_vs_detach as checks


def evaluate(model, batches):
    """Evaluation needs no backward, so record nothing: no_grad (inference_mode works too)."""
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += F.mse_loss(model(x), y).item()
    return total / len(batches)


def freeze_body(model):
    """Freeze in place: the body's parameters stop requiring grad, the head (model[-1]) trains on."""
    for layer in model[:-1]:
        layer.requires_grad_(False)


def run_checks():
    return [checks.check_evaluation(evaluate), checks.check_frozen_body(freeze_body)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
