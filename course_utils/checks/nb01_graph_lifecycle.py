"""Checkers for notebook 01, graph lifecycle: what an op saves, and which logging line keeps a graph.

>>> def predict_saved():
...     raise NotImplementedError
>>> check_saved_prediction(predict_saved).status
'not attempted'

The logging exercise runs on the fixed problem :func:`training_problem` builds, so the learner's code and the
checker see the same model and data.
"""
import functools
from typing import Callable

import torch

from autograd_memory import GraphMemory, LiveTensors, Trace, format_bytes

from ..problems.models import mlp_problem
from . import LOOP_ERRORS, exercise, expect, fail, unit_mistake

__all__ = ["ANSWERS", "OPS", "saved_kind", "check_saved_prediction", "training_problem", "logging_steps",
           "check_saved_growth"]

ANSWERS = ("input", "output", "both", "nothing")

# op name -> (the op, why its backward needs what it keeps)
OPS = {
    "tanh": (torch.tanh, "d tanh(x)/dx = 1 - tanh(x)^2 is written with the output"),
    "sigmoid": (torch.sigmoid, "d sigmoid(x)/dx = s(1 - s) with s = sigmoid(x), the output"),
    "relu": (torch.relu, "the gradient passes where the output is positive, so the output is enough"),
    "cos": (torch.cos, "d cos(x)/dx = -sin(x) needs x itself"),
    "x ** 2": (lambda x: x ** 2, "d x^2/dx = 2x needs x"),
    "silu": (torch.nn.functional.silu, "d silu(x)/dx = s(x)(1 + x(1 - s(x))) needs x"),
    "x * 3": (lambda x: x * 3, "the gradient is 3 times the incoming one: a number, no tensor"),
    "x.sum()": (lambda x: x.sum(), "every element gets the incoming gradient: only the shape is needed"),
}


def saved_kind(op: Callable, numel: int = 1000) -> tuple:
    """What autograd saves when ``op`` runs on a float32 leaf of ``numel`` elements, and how many bytes.

    Returns ``(kind, by_kind)`` with kind one of ``"input"``, ``"output"``, ``"both"``, ``"nothing"``.

    >>> saved_kind(torch.exp)[0]
    'output'
    """
    x = torch.randn(numel, requires_grad=True)
    with GraphMemory() as graph:
        y = op(x)
    by_kind = dict(graph.by_kind)
    del y
    kept_input, kept_output = by_kind["inputs"] > 0, by_kind["activations"] > 0
    kind = {(True, True): "both", (True, False): "input", (False, True): "output", (False, False): "nothing"}
    return kind[kept_input, kept_output], by_kind


@exercise("Predict what each op saves")
def check_saved_prediction(predict):
    """``predict()`` returns ``{op name: "input" | "output" | "nothing"}`` for every op in :data:`OPS`."""
    answer = predict()
    expect(isinstance(answer, dict), f"predict() should return a dict {{op name: answer}}, got {type(answer).__name__}")
    missing = [name for name in OPS if name not in answer]
    expect(not missing, f"answer every op; missing: {', '.join(missing)}")
    unknown = {name: value for name, value in answer.items() if value not in ANSWERS}
    expect(not unknown, f"answer each op with one of {', '.join(map(repr, ANSWERS))}; got {unknown}")
    wrong = []
    for name, (op, why) in OPS.items():
        measured, by_kind = saved_kind(op)
        if answer[name] != measured:
            nbytes = by_kind["inputs"] + by_kind["activations"]
            wrong.append(f"{name}: you said {answer[name]!r}, the meter saw {measured!r} "
                         f"({format_bytes(nbytes)} for 1,000 float32 values): {why}")
    expect(not wrong, f"{len(wrong)} of {len(OPS)} wrong:\n  " + "\n  ".join(wrong))
    return f"all {len(OPS)} right: an op keeps whatever its derivative is written with, and nothing else."


def training_problem(seed: int = 0) -> tuple:
    """The leak exercise's fixed problem: ``(model, optimizer, train_batch, val_batch)``, plain SGD."""
    model, (train_batch, val_batch) = mlp_problem(seed, batch=256, n_batches=2)
    return model, torch.optim.SGD(model.parameters(), lr=0.05), train_batch, val_batch


def logging_steps(seed=0):
    """Three training steps on :func:`training_problem` that log differently, named ``"A"``, ``"B"``, ``"C"``:
    each is a zero-argument function that trains one step, then logs a loss."""
    def make(log):
        model, optimizer, train_batch, val_batch = training_problem(seed)
        logged = {"history": [], "total": 0}

        def step():
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(train_batch[0]), train_batch[1])
            loss.backward()
            optimizer.step()
            if log == "running total":
                logged["total"] = logged["total"] + loss  # noqa: AGM001 (the exercise's wrong line, on purpose): after backward(), a chain of nodes
            else:
                val_loss = torch.nn.functional.mse_loss(model(val_batch[0]), val_batch[1])
                logged["history"].append(val_loss if log == "tensor" else val_loss.item())  # noqa: AGM001 (the exercise's wrong line, on purpose)
        return step
    return {"A": make("running total"), "B": make("tensor"), "C": make("float")}


def _growth(step, meter=GraphMemory, steps=5):
    """Bytes per call of ``step`` that ``meter`` (``GraphMemory``: saved for backward; ``LiveTensors``: all) sees stay."""
    trace = Trace("logging step")
    with meter() as reading:
        for i in range(steps):
            step()
            trace.record(i, bytes=reading.bytes)
    return trace.growth_per_step("bytes")


@functools.cache
def _reference_growth(name):
    """What ``GraphMemory`` sees step ``name`` keep per call: exact bytes of a seeded problem, measured once."""
    return _growth(logging_steps()[name])


@exercise("Measure which logging line keeps a graph", errors=LOOP_ERRORS)
def check_saved_growth(saved_growth):
    """``saved_growth(step) -> bytes``: the bytes *saved for backward* that stay alive per call of ``step``
    (a zero-argument training step from :func:`logging_steps`), measured with ``GraphMemory``."""
    found = []
    for name in sorted(logging_steps()):
        answer = saved_growth(logging_steps()[name])
        measured = _reference_growth(name)
        if isinstance(answer, (int, float)) and round(answer) == round(measured):
            found.append(f"{name}: {format_bytes(measured, signed=True)}/step")
            continue
        live = (" That is the live meter's growth (LiveTensors counts every tensor, the logged loss's own storage too); "
                "the exercise asks for what autograd saved for backward." if isinstance(answer, (int, float))
                and round(answer) == round(_growth(logging_steps()[name], LiveTensors)) else "")
        unit = unit_mistake(answer, round(measured))
        fail(f"step {name}: autograd keeps {format_bytes(measured, signed=True)} more saved tensors after every call, "
             f"you measured {answer!r}" + (f": {unit}." if unit else f".{live}")
             + " Run step() several times inside one `with cu.GraphMemory() as graph:` "
             "block, read graph.bytes after each call, and take the growth per call (cu.Trace.growth_per_step does it).")
    return "; ".join(found) + ". Only a tensor kept with its graph costs saved bytes; a running total costs nodes."
