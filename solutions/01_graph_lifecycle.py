"""Worked solutions for notebook 01, graph lifecycle (for instructors).

Run ``python solutions/01_graph_lifecycle.py`` to see the checkers' verdicts.
"""
import course_utils as cu
from course_utils.checks import nb01_graph_lifecycle as checks


def predict_saved():
    """An op keeps what its derivative is written with: the output for tanh, sigmoid and relu,
    the input for cos, x ** 2 and silu, and no tensor at all for scaling and summing."""
    return {"tanh": "output", "sigmoid": "output", "relu": "output", "cos": "input",
            "x ** 2": "input", "silu": "input", "x * 3": "nothing", "x.sum()": "nothing"}


def saved_growth(step, steps=5):
    """Call the step several times under one GraphMemory and take the saved bytes' growth per call. Only the
    step that keeps its validation loss as a tensor grows (by one validation graph); a running total built
    after backward() keeps a chain of nodes whose saved tensors backward() already freed: 0 bytes."""
    trace = cu.Trace("logging step")
    with cu.GraphMemory() as graph:
        for i in range(steps):
            step()
            trace.record(i, saved=graph.bytes)
    return trace.growth_per_step("saved")


def run_checks():
    return [checks.check_saved_prediction(predict_saved), checks.check_saved_growth(saved_growth)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
