"""Checkers for notebook 02, no_grad vs detach: which evaluation records a graph, a frozen body.

Both exercises run on the fixed problem :func:`~course_utils.problems.models.mlp_problem` builds,
so that the notebook and the checker see the same model and data.

>>> def saved_peak(evaluate, model, batches):
...     raise NotImplementedError
>>> check_saved_peaks(saved_peak).status
'not attempted'
"""
import contextlib
import copy
import functools

import torch
import torch.nn.functional as F

from autograd_memory import GraphMemory, format_bytes

from ..problems.models import mlp_problem
from . import exercise, expect, unit_mistake

__all__ = ["evaluations", "check_saved_peaks", "check_frozen_body"]


def evaluations():
    """Four ways to evaluate ``model`` on ``batches`` (mean MSE as a float), named ``"A"`` to ``"D"``."""
    def mean_loss(model, batches, context=contextlib.nullcontext, detach=False):
        total = 0.0
        for x, y in batches:
            with context():
                prediction = model(x)
            total += F.mse_loss(prediction.detach() if detach else prediction, y).item()
        return total / len(batches)

    def eval_mode(model, batches):
        model.eval()
        try:
            return mean_loss(model, batches)
        finally:
            model.train()
    return {"A": eval_mode, "B": functools.partial(mean_loss, detach=True),
            "C": functools.partial(mean_loss, context=torch.no_grad),
            "D": functools.partial(mean_loss, context=torch.inference_mode)}


@exercise("Measure which evaluation records a graph")
def check_saved_peaks(saved_peak):
    """``saved_peak(evaluate, model, batches) -> bytes``: the most bytes autograd held *saved for backward* at
    any moment while ``evaluate(model, batches)`` ran (one of :func:`evaluations`), measured with ``GraphMemory``."""
    found = []
    for name, evaluate in sorted(evaluations().items()):
        model, batches = mlp_problem()
        modes = []  # the grad mode each call of the evaluation found: off if the measurement itself turned it off

        def called_as_given(model, batches, evaluate=evaluate):
            modes.append(torch.is_grad_enabled() and not torch.is_inference_mode_enabled())
            return evaluate(model, batches)
        try:
            answer = saved_peak(called_as_given, model, batches)
            grad_left_on = torch.is_grad_enabled()
        finally:
            torch.set_grad_enabled(True)  # whatever the answer did, the rest of the notebook records again
        expect(grad_left_on, "after saved_peak() grad mode was still off: every later training step would silently "
                             "record nothing. Use `with torch.no_grad():`, which restores the mode when the block ends.")
        expect(all(modes), f"evaluation {name}: your measurement ran under torch.no_grad() (or inference_mode): grad "
                           "mode was off when the evaluation was called, so nothing any of them does is recorded, and "
                           "every peak reads 0. The exercise asks what each evaluation records as it is: call it inside "
                           "GraphMemory only, with grad mode as the notebook leaves it (on).")
        with GraphMemory() as graph:
            evaluate(model, batches)
        unit = unit_mistake(answer, graph.peak)
        expect(isinstance(answer, int) and answer == graph.peak,
               f"evaluation {name}: autograd saved at most {format_bytes(graph.peak)} at once, you measured "
               f"{answer!r}" + (f": {unit}." if unit else ". Which meter counts what autograd saves for backward? And "
                                "since graph.bytes after the call is 0 for all of them (each graph dies with its loss), "
                                "which of its readings remembers the most it held while the call ran?"))
        found.append(f"{name}: {format_bytes(graph.peak)}")
    return "; ".join(found) + ". Only the grad mode decides; model.eval() and a detach after the fact record it all."


def _backward_once(model, batches):
    """One forward/backward over the first batch; returns the bytes the graph saved."""
    x, y = batches[0]
    with GraphMemory() as graph:
        loss = F.mse_loss(model(x), y)
    saved = graph.bytes
    loss.backward()
    return saved


@exercise("Freeze the body, prove no gradient reaches it")
def check_frozen_body(freeze_body):
    """``freeze_body(model)`` freezes every parameter except the head's (``model[-1]``), in place."""
    model, batches = mlp_problem()
    saved_trainable = _backward_once(copy.deepcopy(model), batches)
    freeze_body(model)
    head = {id(p) for p in model[-1].parameters()}
    body = {name: p for name, p in model.named_parameters() if id(p) not in head}
    still_trainable = [name for name, p in body.items() if p.requires_grad]
    expect(len(still_trainable) < len(body) or any(p.requires_grad for p in model[-1].parameters()),
           "you froze the head and left the body training: the other way round. The head (model[-1]) is what trains; "
           "every layer before it (model[:-1]) is the frozen body.")
    expect(not still_trainable,
           f"body parameters still requiring grad: {', '.join(still_trainable)}. Freeze each one in place with "
           "p.requires_grad_(False) (weights and biases). p.detach() returns a new tensor and leaves p as it was; "
           "torch.no_grad() and model.eval() change nothing about the parameters.")
    frozen_head = [name for name, p in model.named_parameters() if id(p) in head and not p.requires_grad]
    expect(not frozen_head, f"you froze the head too ({', '.join(frozen_head)}): nothing would train, and "
                            "loss.backward() would raise 'element 0 of tensors does not require grad'")
    before = {name: p.detach().clone() for name, p in body.items()}
    saved_frozen = _backward_once(model, batches)
    reached = [name for name, p in body.items() if p.grad is not None]
    expect(not reached, f"gradients reached {', '.join(reached)}: set those .grad to None and freeze them")
    expect(all(p.grad is not None for p in model[-1].parameters()), "the head got no gradient: it must still train")
    torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1).step()
    moved = [name for name, p in body.items() if not torch.equal(p, before[name])]
    expect(not moved, f"an optimizer step changed {', '.join(moved)}")
    return (f"{len(body)} body parameters: requires_grad False, .grad None after backward, unchanged by an SGD step "
            f"with weight decay; the graph saved {format_bytes(saved_frozen)} instead of {format_bytes(saved_trainable)}.")
