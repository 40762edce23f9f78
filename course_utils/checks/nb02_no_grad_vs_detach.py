"""Checkers for notebook 02, no_grad vs detach: an evaluation loop that saves nothing, a frozen body.

Both exercises run on the fixed problem :func:`~course_utils.models.mlp_problem` builds,
so that the notebook and the checker see the same model and data.

>>> def evaluate(model, batches):
...     raise NotImplementedError
>>> check_evaluation(evaluate).status
'not attempted'
"""
import copy
import math

import torch
import torch.nn.functional as F

from ..meters import GraphMemory
from ..models import mlp_problem
from ..units import format_bytes
from . import exercise, expect

__all__ = ["check_evaluation", "check_frozen_body"]


@exercise("Make the evaluation loop save nothing")
def check_evaluation(evaluate):
    """``evaluate(model, batches)`` returns the mean over batches of the MSE loss, as a float,
    and autograd saves nothing for backward while it runs."""
    model, batches = mlp_problem()
    with torch.no_grad():
        expected = sum(F.mse_loss(model(x), y).item() for x, y in batches) / len(batches)
    try:
        with GraphMemory() as graph:
            result = evaluate(model, batches)
        grad_mode_left_on = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)  # whatever the answer did, the rest of the notebook records again
    expect(grad_mode_left_on, "after evaluate() grad mode was still off (torch.set_grad_enabled(False) without "
                              "switching it back): every later training step would silently record nothing. "
                              "Use `with torch.no_grad():`, which restores the mode when the block ends.")
    expect(graph.peak == 0, f"autograd saved {format_bytes(graph.peak)} for backward while evaluating: the forward "
                            "passes still recorded a graph. Run them inside `with torch.no_grad():` (or "
                            "torch.inference_mode()). model.eval() alone does not do it: it switches dropout and "
                            "batch norm to evaluation behaviour, not autograd off.")
    expect(isinstance(result, (int, float)), f"evaluate() should return a plain float, got {type(result).__name__}: "
                                             "sum loss.item() over the batches and divide by their number")
    expect(math.isclose(result, expected, rel_tol=1e-5),
           f"evaluate() returned {result:.6g}, the mean MSE over the {len(batches)} batches is {expected:.6g}")
    return f"mean loss {result:.4f} over {len(batches)} batches, 0 bytes saved for backward."


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
