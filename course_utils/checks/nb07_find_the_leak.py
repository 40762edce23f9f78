"""Checkers for notebook 07, find the leak: each mystery training script of ``notebooks/clinic/``, fixed.

A fix is the script's leaking line and what it should say instead (two strings), or a list of such pairs when it
changes more than one line. It passes when the fixed script's step is flat under :func:`~course_utils.find_leaks`,
trains exactly as the reference fix does (same parameters and gradients after the same steps), still records what
the script was written to record (the same numbers, with no graph attached: :data:`RECORDS`), holds no more graph
when ``optimizer.step()`` runs than the reference does (``retain_graph=True`` is flat, but keeps the graph that
``backward()`` should have freed), and builds no more graph at its peak (a deleted cache computes twice).

>>> def fix():
...     raise NotImplementedError
>>> check_fix("loss_history", fix).status
'not attempted'
>>> sorted(mystery("loss_history"))[-3:]
['step', 'targets', 'torch']
"""
import functools
import linecache
import math
import pathlib

import torch

from autograd_memory import GraphMemory, find_leaks, format_bytes

from . import LOOP_ERRORS, exercise, expect, fail

__all__ = ["CLINIC", "MYSTERIES", "RECORDS", "mystery", "check_fix"]

CLINIC = pathlib.Path(__file__).resolve().parents[2] / "notebooks" / "clinic"
MYSTERIES = sorted(path.stem for path in CLINIC.glob("*.py"))

# The reference fix of each script: (the text as the script has it, what it should say).
_REFERENCE_FIXES = {
    "loss_history": ("losses.append(loss)", "losses.append(loss.item())"),
    "input_gradient": ("loss.backward(create_graph=True)", "loss.backward()"),
    "activation_hook": ("history.append(output.std())", "history.append(output.std().item())"),
    "derivative_cache": ("optimizer.zero_grad()\n", "optimizer.zero_grad()\n    jacobians.clear()\n"),
    "recurrent_state": [("0.9 * memory +", "0.9 * memory.detach() +"),  # truncated BPTT: one step's graph a step,
                        ("loss.backward(retain_graph=True)", "loss.backward()")],  # which backward() may then free
    "running_loss": ("running_loss + loss\n", "running_loss + loss.item()\n"),
    "trainer_class": ("self.total_loss += loss\n", "self.total_loss += loss.item()\n"),
    "fit_state": ("append(residual.abs().max())", "append(residual.abs().max().item())"),
}
_STEPS = 4  # warm-up included

# What each script keeps for its own purpose, and what for: a fix keeps recording it (the number, not the graph).
# A script's step's return value is compared too.
RECORDS = {
    "loss_history": {"losses": "one loss per step, for the plot at the end"},
    "input_gradient": {},
    "activation_hook": {"spread": "the spread of each layer's output at every step, to spot dead units"},
    "derivative_cache": {},
    "recurrent_state": {"memory": "the running memory of past readings, carried to the next step"},
    "running_loss": {"running_loss": "the loss summed over the epoch, for its mean", "seen": "the steps counted"},
    "trainer_class": {"trainer.total_loss": "the loss summed over the epoch, for its mean",
                      "trainer.seen": "the steps counted"},
    "fit_state": {"state.evaluations": "the number of loss evaluations",
                  "state.worst_residuals": "the worst residual of every evaluation"},
}
# Words left in a fixed script -> why its step holds a graph when optimizer.step() runs.
_HOLDS_THE_GRAPH = {
    "retain_graph=True": "retain_graph=True keeps it alive until the step ends, and every step pays for it; once the "
                         "graph a backward() runs through is the step's own, nothing needs it kept. ",
    "backward(create_graph=True)": "backward(create_graph=True) records a graph of every gradient, which each .grad "
                                   "then holds: clearing one .grad leaves the others. ",
}
# What the script computes once that a fix must not make it compute again (its peak graph is compared).
_PURPOSES = {"derivative_cache": "The cache is there so that a Jacobian the loss uses twice is computed once per step: "
                                 "keep it, and empty it once its step is done with it."}


def _script(name):
    if name not in MYSTERIES:
        raise ValueError(f"no mystery script {name!r}; the clinic has {', '.join(MYSTERIES)} (in {CLINIC})")
    return CLINIC / f"{name}.py"


def _pairs(fix):
    """``fix`` as a list of ``(text, replacement)`` pairs: one pair, or a list (or tuple) of them."""
    if isinstance(fix, (tuple, list)) and len(fix) == 2 and all(isinstance(part, str) for part in fix):
        return [tuple(fix)]
    if (isinstance(fix, (tuple, list)) and fix
            and all(isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(part, str) for part in pair)
                    for pair in fix)):
        return [tuple(pair) for pair in fix]
    return None


def _fixed(text, pairs, script):
    """``text`` with each ``(old, new)`` of ``pairs`` replaced in order; each ``old`` must appear exactly once."""
    for old, new in pairs:
        if text.count(old) != 1:
            raise ValueError(f"{old!r} should appear exactly once in {script}; it appears {text.count(old)} times. "
                             "Copy the line from the script (or from find_leaks' row) as it is.")
        text = text.replace(old, new)
    return text


def mystery(name, fix=None):
    """A fresh run of mystery script ``name``'s set-up (not its ``__main__`` part): its namespace,
    with ``step``, ``model`` and ``optimizer``. ``fix``: ``(text, replacement)`` to change first, or a list of such
    pairs, applied in order."""
    path = _script(name)
    text, filename = path.read_text(), str(path)
    if fix is not None:
        text, filename = _fixed(text, _pairs(fix), path.name), f"{filename} (fixed)"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # rows can show the fixed lines
    namespace = {"__name__": "clinic", "__file__": str(path)}
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def _state(namespace):
    """Parameters and gradients of the script's model, after the steps."""
    return [(name, p.detach().clone(), None if p.grad is None else p.grad.detach().clone())
            for name, p in namespace["model"].named_parameters()]


def _one_more_step(namespace):
    """One more step of the script: ``(bytes of graph still held when its optimizer.step() starts, the most graph
    held at once during the step, what the step returned)``."""
    held = []
    with GraphMemory() as graph:
        hook = namespace["optimizer"].register_step_pre_hook(lambda *_: held.append(graph.bytes))
        try:
            returned = namespace["step"]()
        finally:
            hook.remove()
    return max(held, default=0), graph.peak, returned


def _graph_in(value):
    """The first tensor with a graph (a ``grad_fn``) found in ``value`` (through lists, tuples, dicts), or None."""
    if isinstance(value, torch.Tensor):
        return value if value.grad_fn is not None else None
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return next((found for found in map(_graph_in, items) if found is not None), None)


def _numbers(value):
    """``value`` with its tensors read as numbers, containers as lists and dicts."""
    if isinstance(value, torch.Tensor):
        return value.detach().tolist()
    if isinstance(value, dict):
        return {key: _numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_numbers(item) for item in value]
    return value


def _same_numbers(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_numbers(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same_numbers, a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-7)
    return a == b


def _shown(value, limit=80):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 5] + " ...]"


def _expect_same_record(expression, purpose, fixed, reference):
    """The fixed script keeps ``expression`` as the intended one does (``reference``: its numbers, and whether it held a
    graph): the same numbers, no graph where it had none."""
    reference, reference_graph = reference
    kept = _graph_in(fixed)
    if kept is not None and not reference_graph:
        fail(f"`{expression}` ({purpose}) still holds a tensor with its graph (grad_fn={type(kept.grad_fn).__name__}): "
             "whatever holds it, a list, a one-element list, a dict, a tuple or an attribute, keeps that graph alive. "
             "Keep the number: .item().")
    expect(_same_numbers(_numbers(fixed), _numbers(reference)),
           f"the script keeps `{expression}` for {purpose}. After the same steps the intended fix has "
           f"{_shown(_numbers(reference))}, yours {_shown(_numbers(fixed))}. A fix changes how it is kept (the number, "
           "not the graph), never what is kept: the script must still record what it was written for.")


@functools.cache
def _reference(name):
    """What the reference fix of script ``name`` does, run once (a seeded script: the same every time), as numbers:
    its parameters and gradients after the steps, then in one more step the graph held when ``optimizer.step()`` runs,
    the most held at once and what the step returned, and what the script records (:data:`RECORDS`; each with whether
    it held a graph: truncated BPTT carries the step's own)."""
    reference = mystery(name, _REFERENCE_FIXES[name])
    for _ in range(_STEPS):
        reference["step"]()
    state = [(label, value.tolist(), None if grad is None else grad.tolist()) for label, value, grad in _state(reference)]
    held, peak, returned = _one_more_step(reference)
    records = {expression: _as_kept(eval(expression, reference)) for expression in RECORDS[name]}
    return state, held, peak, _as_kept(returned), records


def _as_kept(value):
    """``value``'s numbers, and whether it holds a graph."""
    return _numbers(value), _graph_in(value) is not None


def check_fix(name, fix):
    """``fix()`` returns ``(leaking text, replacement)`` for mystery script ``name``."""
    return exercise(f"Mystery {name!r}: find and fix the leak", errors=LOOP_ERRORS)(_check_fix)(name, fix)


def _check_fix(name, fix):
    answer = fix()
    pairs = _pairs(answer)
    expect(pairs is not None,
           "fix() should return two strings: the leaking line as the script has it, and what it should say instead, "
           "e.g. return 'x = f(y)', 'x = f(y).detach()' (or a list of such pairs when the fix changes several lines)")
    text = _script(name).read_text()
    for old, _new in pairs:
        count = text.count(old)
        expect(count == 1, f"{old!r} appears {count} times in {name}.py: copy the leaking line exactly as find_leaks "
                           "shows it (its `code` column), or enough of it to be unique")
    fixed, fixed_text = mystery(name, pairs), _fixed(text, pairs, f"{name}.py")
    report = find_leaks(fixed["step"], steps=_STEPS - 1, warmup=1)
    expect(not report.rows, f"the fixed script still grows every step:\n{report}")
    state_ref, intended, intended_peak, returned_ref, records_ref = _reference(name)
    for (label, value, grad), (_, value_ref, grad_ref) in zip(_state(fixed), state_ref):
        value_ref = torch.tensor(value_ref, dtype=value.dtype)
        grad_ref = None if grad_ref is None else torch.tensor(grad_ref, dtype=value.dtype)
        expect((grad is None) == (grad_ref is None) and (grad is None or torch.allclose(grad, grad_ref, atol=1e-6)),
               f"after {_STEPS} steps the gradient of {label} differs from the intended training's: the fix must "
               "stop the leak without changing what is learned (detach or .item() only what is logged or carried)")
        expect(torch.allclose(value, value_ref, atol=1e-6), f"after {_STEPS} steps {label} differs from the intended "
                                                            "training's: the fix changed the optimisation")
    held, peak, returned = _one_more_step(fixed)
    for expression, purpose in RECORDS[name].items():
        _expect_same_record(expression, purpose, eval(expression, fixed), records_ref[expression])
    _expect_same_record("the value step() returns", "what the script prints", returned, returned_ref)
    expect(held <= intended,
           f"flat, but when optimizer.step() runs the fixed step still holds {format_bytes(held)} of graph, where the "
           f"intended training holds {format_bytes(intended)}: backward() should free the graph it ran through. "
           + "".join(why for words, why in _HOLDS_THE_GRAPH.items() if words in fixed_text)
           + "Which argument made the leak in the first place? Remove that one rather than add another.")
    expect(peak <= intended_peak,
           f"at its peak the fixed step holds {format_bytes(peak)} of graph, the intended one {format_bytes(intended_peak)}: "
           f"the fix builds graph the script did not. {_PURPOSES.get(name, 'Change only how the leaking value is kept.')}")
    return f"flat over {_STEPS} steps, trains as intended, and still records what the script records."
