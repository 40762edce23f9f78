"""Checkers for notebook 07, find the leak: each mystery training script of ``notebooks/clinic/``, fixed.

A fix is the script's leaking line and what it should say instead (two strings). It passes when the
fixed script's step is flat under :func:`~course_utils.find_leaks`, trains exactly as the
reference fix does (same parameters and gradients after the same steps), *and* holds no more graph
when ``optimizer.step()`` runs than the reference does (``retain_graph=True`` is flat, but keeps the
graph that ``backward()`` should have freed).

>>> def fix():
...     raise NotImplementedError
>>> check_fix("loss_history", fix).status
'not attempted'
>>> sorted(mystery("loss_history"))[-3:]
['step', 'targets', 'torch']
"""
import linecache
import pathlib

import torch

from autograd_memory import GraphMemory, find_leaks, format_bytes

from . import exercise, expect

__all__ = ["CLINIC", "MYSTERIES", "mystery", "check_fix"]

CLINIC = pathlib.Path(__file__).resolve().parents[2] / "notebooks" / "clinic"
MYSTERIES = sorted(path.stem for path in CLINIC.glob("*.py"))

# The reference fix of each script: (the text as the script has it, what it should say).
_REFERENCE_FIXES = {
    "loss_history": ("losses.append(loss)", "losses.append(loss.item())"),
    "input_gradient": ("loss.backward(create_graph=True)", "loss.backward()"),
    "activation_hook": ("history.append(output.std())", "history.append(output.std().item())"),
    "derivative_cache": ("optimizer.zero_grad()\n", "optimizer.zero_grad()\n    jacobians.clear()\n"),
    "recurrent_state": ("0.9 * memory +", "0.9 * memory.detach() +"),
    "running_loss": ("running_loss + loss\n", "running_loss + loss.item()\n"),
    "trainer_class": ("self.total_loss += loss\n", "self.total_loss += loss.item()\n"),
    "fit_state": ("append(residual.abs().max())", "append(residual.abs().max().item())"),
}
_STEPS = 4  # warm-up included


def _script(name):
    if name not in MYSTERIES:
        raise ValueError(f"no mystery script {name!r}; the clinic has {', '.join(MYSTERIES)} (in {CLINIC})")
    return CLINIC / f"{name}.py"


def mystery(name, fix=None):
    """A fresh run of mystery script ``name``'s set-up (not its ``__main__`` part): its namespace,
    with ``step``, ``model`` and ``optimizer``. ``fix``: ``(text, replacement)`` to change first."""
    path = _script(name)
    text, filename = path.read_text(), str(path)
    if fix is not None:
        old, new = fix
        if text.count(old) != 1:
            raise ValueError(f"{old!r} should appear exactly once in {path.name}; it appears {text.count(old)} times. "
                             "Copy the line from the script (or from find_leaks' row) as it is.")
        text, filename = text.replace(old, new), f"{filename} (fixed)"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # rows can show the fixed lines
    namespace = {"__name__": "clinic", "__file__": str(path)}
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def _state(namespace):
    """Parameters and gradients of the script's model, after the steps."""
    return [(name, p.detach().clone(), None if p.grad is None else p.grad.detach().clone())
            for name, p in namespace["model"].named_parameters()]


def _graph_at_update(namespace):
    """Bytes of graph (saved tensors) still held when the script's ``optimizer.step()`` starts, in one more step."""
    held = []
    with GraphMemory() as graph:
        hook = namespace["optimizer"].register_step_pre_hook(lambda *_: held.append(graph.bytes))
        try:
            namespace["step"]()
        finally:
            hook.remove()
    return max(held, default=0)


def check_fix(name, fix):
    """``fix()`` returns ``(leaking text, replacement)`` for mystery script ``name``."""
    return exercise(f"Mystery {name!r}: find and fix the leak")(_check_fix)(name, fix)


def _check_fix(name, fix):
    answer = fix()
    expect(isinstance(answer, tuple) and len(answer) == 2 and all(isinstance(s, str) for s in answer),
           "fix() should return two strings: the leaking line as the script has it, and what it should say instead, "
           "e.g. return 'x = f(y)', 'x = f(y).detach()'")
    old, new = answer
    count = _script(name).read_text().count(old)
    expect(count == 1, f"{old!r} appears {count} times in {name}.py: copy the leaking line exactly as find_leaks "
                       "shows it (its `code` column), or enough of it to be unique")
    fixed = mystery(name, (old, new))
    report = find_leaks(fixed["step"], steps=_STEPS - 1, warmup=1)
    expect(not report.rows, f"the fixed script still grows every step:\n{report}")
    reference = mystery(name, _REFERENCE_FIXES[name])
    for _ in range(_STEPS):
        reference["step"]()
    for (label, value, grad), (_, value_ref, grad_ref) in zip(_state(fixed), _state(reference)):
        expect((grad is None) == (grad_ref is None) and (grad is None or torch.allclose(grad, grad_ref, atol=1e-6)),
               f"after {_STEPS} steps the gradient of {label} differs from the intended training's: the fix must "
               "stop the leak without changing what is learned (detach or .item() only what is logged or carried)")
        expect(torch.allclose(value, value_ref, atol=1e-6), f"after {_STEPS} steps {label} differs from the intended "
                                                            "training's: the fix changed the optimisation")
    held, intended = _graph_at_update(fixed), _graph_at_update(reference)
    expect(held <= intended,
           f"flat, but when optimizer.step() runs the fixed step still holds {format_bytes(held)} of graph, where the "
           f"intended training holds {format_bytes(intended)}: backward() should free the graph it ran through. "
           "retain_graph=True keeps it alive until the step ends, and every step pays for it. Which argument made "
           "the leak in the first place? Remove that one rather than add another.")
    return f"flat over {_STEPS} steps, and the gradients match the intended training."
