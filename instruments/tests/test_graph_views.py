"""graph_table / show_graph on graphs real code makes: huge graphs, slots modified in place,
checkpointed graphs, and exactly where graph_table and GraphMemory differ."""
import importlib.util
import subprocess
import sys
import textwrap

import pytest
import torch
from torch.utils.checkpoint import checkpoint

from autograd_memory import GraphMemory, LiveTensors, graph_table, show_graph
from autograd_memory.seams import torch_internals as internals

needs_graphviz = pytest.mark.skipif(importlib.util.find_spec("graphviz") is None, reason="the `graphs` extra")


@needs_graphviz
def test_a_50k_node_graph_is_summarised_and_freed_without_killing_the_process():
    script = textwrap.dedent("""
        import torch
        from autograd_memory import show_graph
        y = torch.ones(10, requires_grad=True)
        for _ in range(60_000):
            y = y.sin()
        view = show_graph(y)
        print(view.table.truncated, view.svg is None)
        del view, y
        print("freed")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the process died (return code {done.returncode}): {done.stderr[-500:]}"
    assert done.stdout.split() == ["True", "True", "freed"]


@needs_graphviz
def test_graph_table_marks_a_saved_tensor_modified_in_place():
    x = torch.ones(100, requires_grad=True)
    for metered in (False, True):
        with GraphMemory() if metered else LiveTensors() as meter:
            y = x.exp()
            z = y.sin()  # saves y
            y.add_(1)  # ... which backward now needs and no longer has
        table = graph_table(z)
        [slot] = [slot for node in table.nodes if node.op == "SinBackward0" for slot in node.saved]
        # torch < 2.10 has no way around autograd's version check for a slot saved without hooks: no bytes there
        readable = metered or internals.SAVED_TENSOR_EXPOSES_HOOKS
        assert (slot.state, slot.nbytes) == ("modified in place", 400 if readable else None), metered
        assert "2 saved tensors modified in place" in table.caption(), "exp's result and sin's input: y"
        assert "MODIFIED IN PLACE" in show_graph(z).source
        if metered:
            assert table.total_bytes == meter.bytes
        del y, z


def test_graph_table_does_not_unpack_checkpointed_slots():
    calls = []

    def block(t):
        calls.append(1)
        return t.exp().sin()

    x = torch.ones(1000, requires_grad=True)
    out = checkpoint(block, x, use_reentrant=False).sum()
    with LiveTensors() as live:
        table = graph_table(out)
    assert len(calls) == 1, "reading the table re-ran the checkpointed forward"
    assert live.bytes == 0, "the table keeps recomputed activations alive"
    assert {slot.state for node in table.nodes for slot in node.saved} == {"not read"}
    out.backward()
    assert len(calls) == 2 and torch.allclose(x.grad, torch.cos(x.exp()) * x.exp())


def test_where_graph_table_and_graph_memory_differ_is_exactly_what_the_docs_say():
    x = torch.ones(10, requires_grad=True)
    # an in-place op on a view: CopySlices hides the inner ExpBackward0's saved result (x.clone(): 40 B)
    with GraphMemory() as graph:
        base = x.clone()
        base[:5].exp_()
    table = graph_table(base)
    assert graph.bytes - table.total_bytes == 40
    assert any(slot.state == "not readable" for node in table.nodes for slot in node.saved)
    # a Python number autograd wraps as a 0-dim float64 gets no hooks: graph_table sees 8 B more
    with GraphMemory() as graph:
        scaled = x.exp() * 2.0
    assert graph_table(scaled).total_bytes - graph.bytes == 8
    assert "CopySlices" in graph_table.__doc__ and "0-dim" in graph_table.__doc__ and "0-dim" in GraphMemory.__doc__
    # kinds: a saved `result` without grad_fn (max-pool indices) is an activation in both; a tensor made
    # in the forward and saved as an op's *input* (CPU dropout's noise, saved by its multiply) is an
    # activation for GraphMemory (made inside its block) and an input for graph_table (which cannot know)
    data = torch.ones(1, 4, 10)
    with GraphMemory() as graph:
        pooled, _indices = torch.nn.functional.max_pool1d(data * x, 2, return_indices=True)
    assert graph_table(pooled).by_kind == graph.by_kind == {"parameters": 0, "inputs": 160, "activations": 320}
    with GraphMemory() as graph:
        out = torch.nn.functional.dropout(data * x, 0.5, training=True)
    assert graph_table(out).by_kind == graph.by_kind, "under the meter the table reads the meter's kinds"
    table = graph_table(torch.nn.functional.dropout(data * x, 0.5, training=True))  # no meter
    assert table.total_bytes == graph.bytes
    assert table.by_kind["inputs"] - graph.by_kind["inputs"] == graph.by_kind["activations"] == 160
    assert "dropout's noise" in graph_table.__doc__
