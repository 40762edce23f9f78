"""Real code the meters met outside the course: sparse and NumPy-shared tensors, set_/load,
forward-made tensors without a grad_fn, interrupts, torch.compile, torch.func, and the limits each
docstring states. Every test here failed before its fix."""
import io
import sys
import threading

import numpy as np
import pytest
import torch

from autograd_memory import GraphMemory, GraphMemoryUnsupported, LiveTensors, measure, memory_budget
from autograd_memory.measuring import meters


def _nbytes(tensor):
    """The bytes of a tensor's storages, read here without the meters' help."""
    if tensor.layout == torch.sparse_coo:
        parts = [tensor._indices(), tensor._values()]
    elif tensor.layout == torch.sparse_csr:
        parts = [tensor.crow_indices(), tensor.col_indices(), tensor.values()]
    elif tensor.is_nested:
        parts = [tensor._values, tensor._offsets]
    else:
        parts = [tensor]
    return sum(part.untyped_storage().nbytes() for part in parts)


# ---------------------------------------------------------------- 1. sparse tensors

def test_sparse_tensors_count_their_component_storages():
    dense = torch.zeros(50, 50)
    dense[::5, ::7] = 1.0
    with LiveTensors() as live:
        coo = dense.to_sparse()
        csr = dense.to_sparse_csr()
    nnz = coo._nnz()
    assert _nbytes(coo) == 2 * nnz * 8 + nnz * 4, "COO: int64 indices (2 x nnz) + float32 values"
    assert live.bytes == _nbytes(coo) + _nbytes(csr) > 0
    with LiveTensors() as tracked:
        tracked.track(coo)
    assert tracked.bytes == _nbytes(coo)
    del coo, csr
    assert live.bytes == 0


def test_a_sparse_tensor_built_from_existing_parts_is_no_new_memory():
    indices, values = torch.tensor([[0, 1], [1, 0]]), torch.tensor([3.0, 4.0])
    with LiveTensors() as live:
        sparse = torch.sparse_coo_tensor(indices, values, (2, 2))
    assert live.bytes == 0, "the sparse tensor shares its parts' storages"
    del sparse


def test_graph_memory_and_graph_table_count_a_saved_sparse_tensor():
    from autograd_memory import graph_table

    sparse = torch.eye(20).to_sparse()
    weight = torch.ones(20, 3, requires_grad=True)
    with GraphMemory() as graph:
        out = torch.sparse.mm(sparse, weight)
    assert graph.bytes == graph_table(out).total_bytes == _nbytes(sparse) > 0
    del out


def test_a_sparse_tensor_grown_in_place_counts_its_new_parts():
    buffer = torch.zeros(100, 4).to_sparse()
    updates = [torch.zeros(100, 4) for _ in range(3)]
    for row, update in enumerate(updates):
        update[row] = 1.0
    updates = [update.to_sparse() for update in updates]
    with LiveTensors() as live:
        for update in updates:
            buffer.mul_(0.9).add_(update)  # uncoalesced: the entries are concatenated
        assert buffer._nnz() == 12
        assert live.bytes == _nbytes(buffer), "the buffer's parts, made by add_, are counted"
    ones = torch.ones(4, 4).to_sparse_csr()
    with LiveTensors() as live:
        csr = torch.eye(4).to_sparse_csr()
        before = live.bytes
        csr.add_(ones)  # its parts grow in place
        assert live.bytes == _nbytes(csr) > before, "a CSR tensor's parts grown in place are counted"


# ---------------------------------------------------------------- what the meters cannot count: named, never 0


class Opaque(torch.Tensor):
    """A wrapper subclass without ``__tensor_flatten__``: what it holds is its own business."""

    @staticmethod
    def __new__(cls, inner):
        return torch.Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype)

    def __init__(self, inner):
        self.inner = inner

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(value):
            return value.inner if isinstance(value, Opaque) else value
        out = func(*map(unwrap, args), **{key: unwrap(value) for key, value in (kwargs or {}).items()})
        return Opaque(out) if isinstance(out, torch.Tensor) else out


def uncountable_makers():
    makers = {"Opaque": lambda: Opaque(torch.ones(100)) * 2,
              "nested": lambda: torch.nested.nested_tensor([torch.ones(3, 4), torch.ones(2, 4)]) * 2}
    if torch.backends.mkldnn.is_available():
        makers["mkldnn"] = lambda: torch.ones(100).to_mkldnn()
    return makers


@pytest.mark.parametrize("kind", list(uncountable_makers()))
def test_a_tensor_the_meter_cannot_count_exactly_is_counted_as_uncounted_while_alive(kind):
    make = uncountable_makers()[kind]
    with LiveTensors() as live:
        kept = [make() for _ in range(3)]
        assert sum(live.uncounted.values()) == 3 and kind in " ".join(live.uncounted), live.uncounted
        kept.pop()
        assert sum(live.uncounted.values()) == 2, "a dead one is no longer counted"
    with LiveTensors() as live:
        dense = [torch.ones(3).to_sparse(), torch.ones(4), torch.ones(2, device="meta")]
    assert live.uncounted == {}, "sparse, dense and meta tensors are counted exactly (meta holds no memory)"
    del kept, dense


# ---------------------------------------------------------------- 2. set_ and torch.load

def test_storages_swapped_in_by_set_and_torch_load_are_counted():
    buffer = io.BytesIO()
    torch.save(torch.zeros(1000), buffer)
    with LiveTensors() as live:
        loaded = torch.load(io.BytesIO(buffer.getvalue()))
        assert live.bytes == 4000
        swapped = torch.empty(0).set_(torch.UntypedStorage(400))
        assert live.bytes == 4400
        shared = torch.empty(0).set_(loaded)  # an input's storage: nothing new
        assert live.bytes == 4400
    del loaded, shared
    assert live.bytes == 400
    del swapped


# ---------------------------------------------------------------- 3. memory shared with NumPy

def test_memory_shared_with_numpy_is_not_new():
    array = np.zeros(1000, dtype=np.float32)
    with LiveTensors() as live:
        shared = (torch.as_tensor(array), torch.from_numpy(array))
        assert live.bytes == 0, "as_tensor/from_numpy share NumPy's memory"
        copied = torch.tensor(array)
    assert (live.bytes, live.peak) == (4000, 4000), "torch.tensor copies once: the peak must not double"
    with memory_budget(6000):
        kept = torch.tensor(array)
    del shared, copied, kept


# ---------------------------------------------------------------- 4. inputs vs forward-made tensors

def test_forward_made_tensors_without_grad_fn_are_activations_not_inputs(device):
    torch.manual_seed(0)
    x = torch.randn(1, 2, 8, requires_grad=True, device=device)
    data = torch.randn(1, 2, 8, device=device)  # existed before the meter: an input
    with GraphMemory() as graph:
        hidden = x.exp()  # saved output: 64 B
        dropped = torch.nn.functional.dropout(hidden, 0.5, training=True)  # saves its bool mask
        pooled, indices = torch.nn.functional.max_pool1d(dropped, 2, return_indices=True)  # saves int64 indices
        out = (pooled * data[..., :4]).sum()  # saves the slice of data (an input) and pooled
    assert graph.by_kind["inputs"] == 64, "only data existed before the meter"
    assert graph.by_kind["activations"] == graph.bytes - 64
    assert graph.by_kind["activations"] >= 64 + 16 + 8 * 8, "exp output, dropout mask and pool indices"
    del out, pooled, indices, dropped, hidden


def test_tracked_tensors_stay_inputs_and_data_made_inside_is_an_activation(device):
    w = torch.ones(100, requires_grad=True, device=device)
    before = torch.ones(100, device=device)
    with LiveTensors().track(before) as live, GraphMemory() as graph:
        made = torch.ones(100, device=device)
        y = (w * before).sum() + (w * made).sum()
    assert graph.by_kind == {"parameters": 0, "inputs": 400, "activations": 400}, \
        "the tracked tensor is an input; `made` is an activation"
    del y, live



def test_data_made_inside_that_got_the_id_of_a_storage_from_before_is_still_an_activation(device):
    """CPython reuses ids: a storage made inside may get the id of one alive when the meter began that has
    died since. It is still made inside (simulated: the record for its id at the start was another one)."""
    w = torch.ones(100, requires_grad=True, device=device)
    with LiveTensors() as live, GraphMemory() as graph:
        made = torch.ones(100, device=device)
        graph._born_before[id(made.untyped_storage())] = object()  # the record of the storage that died
        y = (w * made).sum()
    assert graph.by_kind == {"parameters": 0, "inputs": 0, "activations": 400}, graph.by_kind
    del y, live

# ---------------------------------------------------------------- 6, 7, 8. what the meters cannot see, as documented

def test_peak_is_the_peak_of_live_tensors_and_says_so(device):
    conv = torch.nn.Conv2d(3, 8, 3).to(device)  # oneDNN's scratch on CPU, cuDNN's workspace on CUDA
    image = torch.randn(1, 3, 32, 32, device=device)
    with torch.no_grad(), LiveTensors() as live:
        out = conv(image)
    assert live.peak == out.untyped_storage().nbytes(), "scratch inside the convolution is not seen"
    assert "peak of live" in LiveTensors.__doc__ and "scratch memory inside one op" in LiveTensors.__doc__
    assert "peak of live tensors" in measure.__doc__
    del out


def test_storages_made_outside_the_dispatcher_are_not_seen_as_documented():
    with LiveTensors() as live:
        state = torch.get_rng_state()
        assert live.bytes == 0
        live.track(state)
        assert live.bytes == state.numel()
    assert "get_rng_state" in LiveTensors.__doc__


def test_nested_jagged_tensors_count_their_inner_tensors():
    parts = [torch.ones(3), torch.ones(5)]
    with LiveTensors() as live:
        nested = torch.nested.nested_tensor(parts, layout=torch.jagged)
        made = live.bytes
        assert made == _nbytes(nested) == 8 * 4 + 3 * 8, "values (8 floats) + offsets (3 int64)"
        doubled = nested * 2  # new values, the same offsets
        assert live.bytes == made + 8 * 4
    del nested, doubled


def test_tensors_made_by_another_thread_are_not_counted_as_documented():
    made = []
    with LiveTensors() as live:
        worker = threading.Thread(target=lambda: made.append(torch.zeros(1000)))
        worker.start()
        worker.join()
        assert live.bytes == 0, "dispatch modes are thread-local"
        copy = made[0].clone()  # an op on this thread: counted
        assert live.bytes == 4000
    assert "other threads" in LiveTensors.__doc__
    del copy


# ---------------------------------------------------------------- 12. interrupts inside the bookkeeping

def _workload(live, graph):
    w = torch.ones(64, requires_grad=True)
    kept = []
    for _ in range(3):
        h = (w * 2).exp()
        kept.append(h.sin().sum())
        del h
    kept.pop().backward()
    del kept


@pytest.mark.parametrize("start", range(0, 160, 8))
def test_an_interrupt_anywhere_in_the_bookkeeping_leaves_the_counts_right(start, nothing_installed):
    """Ctrl-C arriving at the n-th line the meters run: afterwards the counts still add up to zero."""
    import _thread

    meters_file = meters.__file__
    for n in range(start, start + 8):
        seen = [0]

        def tracer(frame, event, arg):
            if frame.f_code.co_filename != meters_file:
                return None
            if event == "line":
                seen[0] += 1
                if seen[0] == n:
                    _thread.interrupt_main()  # a real SIGINT-like interrupt: raised at the next check
            return tracer

        live, graph = LiveTensors(), GraphMemory()
        sys.settrace(tracer)
        try:
            with live, graph:
                _workload(live, graph)
                torch.zeros(10).exp()
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
        try:  # an interrupt still pending lands here
            torch.zeros(1)
        except KeyboardInterrupt:
            pass
        import gc
        gc.collect()
        assert nothing_installed()
        assert (live.bytes, live.count, live.by_device.get("cpu", 0)) == (0, 0, 0), f"interrupt at line event {n}"
        assert (graph.bytes, graph.count, graph.by_kind) == (0, 0, dict.fromkeys(graph.by_kind, 0)), n


# ---------------------------------------------------------------- 13, 14, 15. compile, torch.func, double exit

@pytest.mark.slow  # torch.compile imports dynamo: seconds
def test_torch_compile_under_live_tensors_warns_that_it_runs_eagerly():
    compiled = torch.compile(lambda t: t.exp() + 1)
    with pytest.warns(UserWarning, match="torch.compile runs eagerly"):
        with LiveTensors():
            compiled(torch.ones(3))


def test_measure_inside_a_torch_func_transform_falls_back_to_live_tensors():
    reports = []

    def f(x):
        report = measure(lambda: (x.sin() * 2).sum(), keep_result=True)
        reports.append(report)
        return report.result

    gradient = torch.func.grad(f)(torch.zeros(3))
    assert torch.equal(gradient, 2 * torch.ones(3))
    assert reports[0].saved_bytes is None and "LiveTensors alone" in reports[0].note


def test_graph_memory_inside_a_transform_raises_unsupported(nothing_installed):
    def f(x):
        with GraphMemory():
            return x.sin().sum()

    with pytest.raises(GraphMemoryUnsupported, match="LiveTensors"):
        torch.func.grad(f)(torch.zeros(3))
    assert nothing_installed()


def test_exiting_a_meter_twice_says_so(nothing_installed):
    for meter in (LiveTensors(), GraphMemory()):
        with meter:
            pass
        with pytest.raises(RuntimeError, match="called twice"):
            meter.__exit__(None, None, None)
    assert nothing_installed()


def test_meta_tensors_hold_no_memory():
    with LiveTensors() as live:
        y = torch.ones(1000, device="meta").exp()  # shapes only: the meter has nothing to count
    assert y.shape == (1000,) and live.peak == 0
