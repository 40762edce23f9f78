"""torch_internals is where a PyTorch upgrade breaks: every note there names the test that guards it."""
import ast
import gc
import pathlib
import re
import sys

import pytest
import torch
from torch.utils.checkpoint import checkpoint

from autograd_memory import GraphMemory, LiveTensors
from autograd_memory.seams import torch_internals

TESTS = pathlib.Path(__file__).resolve().parent


def _test_names(path):
    return {node.name for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.FunctionDef)}


def test_every_guarding_test_named_in_torch_internals_exists():
    text = pathlib.Path(torch_internals.__file__).read_text()
    named = re.findall(r"(test_\w+\.py)::(test_\w+)", text)
    assert len(named) >= 10
    missing = [f"{file}::{name}" for file, name in named if name not in _test_names(TESTS / file)]
    assert not missing, f"torch_internals names tests that do not exist: {missing}"


def _torch_version():
    return tuple(int(part) for part in re.findall(r"\d+", torch.__version__)[:2])


def test_the_route_for_saved_slots_matches_what_this_torch_exposes():
    # the route is chosen by probing, not by version: both must agree with what the recorded runs found
    # (data/torch_versions.json: SavedTensor.data and .unpack_hook from 2.10 on, pytorch#164358)
    exposes = torch_internals.SAVED_TENSOR_EXPOSES_HOOKS
    assert exposes == (_torch_version() >= (2, 10)), f"torch {torch.__version__}: SavedTensor.unpack_hook is {exposes}"


@pytest.fixture(params=["this torch's route", "the settrace route (torch < 2.10)"])
def route(request, monkeypatch):
    """Run a test on the route this torch takes, and on the one older torches take (forced here)."""
    if request.param.startswith("the settrace"):
        monkeypatch.setattr(torch_internals, "SAVED_TENSOR_EXPOSES_HOOKS", False)
    return request.param


def test_reading_a_slot_never_runs_a_foreign_unpack_hook(route):
    unpacked, recomputed = [], []

    def block(t):
        recomputed.append(1)
        return t.exp()

    x = torch.ones(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: unpacked.append(1) or t):
        hooked = x.sin()
    checkpointed = checkpoint(block, x, use_reentrant=False)
    for node in (hooked.grad_fn, checkpointed.grad_fn):
        with pytest.raises(torch_internals.SlotNotRead):
            torch_internals.read_saved_slot(node, "_saved_result" if node is checkpointed.grad_fn else "_saved_self")
    assert unpacked == [] and recomputed == [1], "a foreign unpack hook ran (checkpoint would recompute)"
    hooked.sum().backward()
    assert unpacked == [1], "the slot still works for backward"


def test_reading_a_slot_reads_plain_and_graph_memory_slots_and_leaves_tracing_as_it_was(route):
    def tracer(frame, event, arg):
        return None

    x = torch.ones(5, requires_grad=True)
    with GraphMemory():
        metered = x.exp()
    plain = x.sin()
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with LiveTensors():  # a meter's dispatch mode sees unpack's detach: it must not count as a foreign hook
            value, packed = torch_internals.read_saved_slot(metered.grad_fn, "_saved_result", GraphMemory._unpack)
            assert value.shape == (5,) and packed.kind == "activations"
        value, packed = torch_internals.read_saved_slot(plain.grad_fn, "_saved_self", GraphMemory._unpack)
        assert value.shape == (5,) and packed is None
        value, packed = torch_internals.read_saved_slot(metered.grad_fn, "_saved_result", GraphMemory._unpack)
        assert value.shape == (5,) and packed.kind == "activations"
        assert sys.gettrace() is tracer and gc.isenabled()
    finally:
        sys.settrace(previous)


def test_nodes_and_hooks_made_after_a_number_is_read_read_larger_and_accumulators_none():
    """find_leaks tells which steps made a kept graph, and registered a kept hook, by these numbers: a step's forward
    nodes and, on the CPU, the nodes backward makes with create_graph=True come after a number read before the step."""
    x = torch.ones(3, requires_grad=True)
    before = (x * 2).grad_fn
    mark, hooks = torch_internals.sequence_number(), torch_internals.hook_number()
    y = (x * x).sum()
    (grad,) = torch.autograd.grad(y, x, create_graph=True)
    assert torch_internals.made_at(before) < mark <= torch_internals.made_at(y.grad_fn)
    assert torch_internals.made_at(grad.grad_fn) > torch_internals.made_at(y.grad_fn)
    assert torch_internals.made_at(before.next_functions[0][0]) is None  # x's AccumulateGrad
    model = torch.nn.Linear(1, 1)
    handle = model.register_forward_pre_hook(print)
    assert list(model._forward_pre_hooks) == [handle.id] and handle.id >= hooks
