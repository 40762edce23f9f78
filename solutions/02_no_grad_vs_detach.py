"""Worked solutions for notebook 02, no_grad vs detach (for instructors).

Run ``python solutions/02_no_grad_vs_detach.py`` to see the checkers' verdicts.
"""
import course_utils as cu
from course_utils.checks import nb02_no_grad_vs_detach as checks


def saved_peak(evaluate, model, batches):
    """The most autograd held at once while the evaluation ran: GraphMemory's peak (after the call every graph
    has died with its loss, so graph.bytes reads 0 for all four). model.eval() and a detach after the forward
    record the whole graph; no_grad and inference_mode record nothing."""
    with cu.GraphMemory() as graph:
        evaluate(model, batches)
    return graph.peak


def freeze_body(model):
    """Freeze in place: the body's parameters stop requiring grad, the head (model[-1]) trains on."""
    for layer in model[:-1]:
        layer.requires_grad_(False)


def run_checks():
    return [checks.check_saved_peaks(saved_peak), checks.check_frozen_body(freeze_body)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
