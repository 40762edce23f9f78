"""Checkers for notebook 01, graph lifecycle: what an op saves, and a training loop that leaks.

>>> def predict_saved():
...     raise NotImplementedError
>>> check_saved_prediction(predict_saved).status
'not attempted'

The leak exercise runs on a fixed problem that the notebook builds with :func:`training_problem`,
so the learner's code and the checker see the same model and data.
"""
import copy
import math
from typing import Callable

import torch

from ..meters import GraphMemory, LiveTensors
from ..models import mlp_problem
from ..trace import NotFlatError, Trace
from ..units import format_bytes
from . import exercise, expect, fail

__all__ = ["ANSWERS", "OPS", "saved_kind", "check_saved_prediction", "training_problem", "check_leak_fixed"]

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


def _val_loss(model, val_batch):
    x, y = val_batch
    with torch.no_grad():
        return torch.nn.functional.mse_loss(model(x), y).item()


@exercise("Find and fix the leak in the training loop")
def check_leak_fixed(step, steps=6):
    """``step(model, optimizer, train_batch, val_batch, history)`` trains one step, then appends the
    validation loss to ``history``. Fixed means: the model trains, history gets one loss per step,
    and between steps autograd holds nothing and live memory stays flat (apart from the entries
    themselves, if you keep them as detached tensors).
    """
    model, optimizer, train_batch, val_batch = training_problem()
    start = copy.deepcopy(model.state_dict())
    history = []
    trace = Trace("your step")
    with LiveTensors() as live, GraphMemory() as graph:
        for i in range(steps):
            try:
                step(model, optimizer, train_batch, val_batch, history)
            except RuntimeError as error:
                expect("does not require grad" not in str(error),
                       f"your step raised: {error}\nThe training part must still record a graph for loss.backward(); "
                       "only the validation loss needs no graph (torch.no_grad() around it, or .item() after it).")
                raise
            expect(len(history) == i + 1, f"after {i + 1} steps history has {len(history)} entries: append one "
                                          "validation loss per step")
            entry = history[-1]
            if isinstance(entry, torch.Tensor) and entry.grad_fn is not None:
                fail(f"history[{i}] is a tensor with a graph ({entry.grad_fn.name()}): it keeps this step's "
                     f"whole validation graph alive ({format_bytes(graph.bytes)} saved so far). "
                     "Store val_loss.item(), a plain float.")
            expect(graph.bytes == 0, f"after step {i} autograd still holds {format_bytes(graph.bytes)} of saved tensors: "
                                     "something keeps a graph alive between steps (an entry, or a variable you kept).")
            kept = sum(t.untyped_storage().nbytes() for t in history if isinstance(t, torch.Tensor))
            trace.record(i, live=live.bytes - kept, saved=graph.bytes)
    try:
        trace.assert_flat("live")
    except NotFlatError as not_flat:
        fail(f"live memory grows from step to step: {not_flat}")
    changed = any(not torch.equal(p, start[name]) for name, p in model.state_dict().items())
    expect(changed, "the parameters did not change: your step must still train (loss.backward(), optimizer.step()); "
                    "only the monitoring should stop recording")
    final = _val_loss(model, val_batch)
    last = float(history[-1])
    expect(math.isclose(last, final, rel_tol=1e-5, abs_tol=1e-7),
           f"history[-1] = {last:.6g}, but the validation loss after the last step is {final:.6g}: append the "
           "validation loss computed after optimizer.step()")
    note = "" if not any(isinstance(t, torch.Tensor) for t in history) else \
        " (your entries are detached tensors: no graph, but still device memory; .item() keeps a plain float)"
    return f"{steps} steps, nothing saved between steps, live memory flat{note}."
