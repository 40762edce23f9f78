"""Exact meters: hand-computed byte counts, lifetimes, safety. All on CPU; float32 is 4 bytes."""
import gc
import threading
import warnings

import pytest
import torch

from autograd_memory import GraphMemory, GraphMemoryUnsupported, LiveTensors, device_memory, measure

# ---------------------------------------------------------------- LiveTensors

def test_float32_tensor_of_1000_elements_is_4000_bytes_and_a_view_adds_nothing():
    with LiveTensors() as live:
        x = torch.zeros(1000)
        assert live.bytes == 4000
        view, row = x[:10], x.view(10, 100)[3]
        assert live.bytes == 4000 and live.count == 1
    del x
    assert live.bytes == 4000, "the views still hold the storage"
    del view, row
    assert live.bytes == 0


def test_dtype_sizes_are_exact():
    with LiveTensors() as live:
        _a = torch.zeros(10, dtype=torch.float64)  # named, so that each stays alive to the end of the block
        _b = torch.zeros(10, dtype=torch.int8)
        _c = torch.zeros(3, 5, dtype=torch.float16)
    assert live.bytes == 80 + 10 + 30


def test_tensors_built_from_python_data_are_counted():
    with LiveTensors() as live:
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # built outside the dispatcher, then lifted
    assert live.bytes == 12
    del x


def test_peak_sees_transients():
    with LiveTensors() as live:
        y = torch.ones(250).exp()  # ones (1,000 B) dies when exp's output (1,000 B) is kept
    assert (live.bytes, live.peak) == (1000, 2000)
    del y


def test_in_place_ops_and_detach_add_nothing():
    with LiveTensors() as live:
        x = torch.zeros(100)
        x.add_(1).mul_(2)
        d = x.detach()
        assert live.bytes == 400
    del x, d


def test_track_adds_existing_storages_once():
    model = torch.nn.Linear(10, 5)  # weight 50 + bias 5 floats
    x = torch.zeros(3, 10)
    with LiveTensors() as live:
        live.track(model, x, [x, model.weight])
        assert live.bytes == (55 + 30) * 4
    del x
    assert live.bytes == 55 * 4


def test_nested_meters_both_count():
    with LiveTensors() as outer:
        a = torch.zeros(100)
        with LiveTensors() as inner:
            b = torch.zeros(50)
        assert (outer.bytes, inner.bytes) == (600, 200)
    del a, b
    assert (outer.bytes, inner.bytes) == (0, 0)


def test_gradients_made_by_backward_are_counted():
    w = torch.ones(1000, requires_grad=True)
    with LiveTensors() as live:
        (w * 3).sum().backward()
        assert w.grad is not None
    # only the 4,000-byte gradient survives (the loss is gone, the product was never saved)
    assert live.bytes == 4000
    w.grad = None
    assert live.bytes == 0


def test_meter_holds_no_reference():
    with LiveTensors() as live:
        x = torch.zeros(1000)
        del x
        assert live.bytes == 0, "deleting the only reference must free the storage while the meter is alive"


def test_growth_through_out_arguments_and_resize_is_counted():
    a = torch.randn(100, 100)
    with LiveTensors() as live:
        buffer = torch.empty(0)
        torch.mm(a, a, out=buffer)  # the op resizes the empty buffer to 100 x 100 floats
        assert live.bytes == 40_000
        buffer.resize_(50_000)
        assert live.bytes == 200_000
    del buffer
    assert live.bytes == 0


def test_meters_exited_out_of_order_raise_instead_of_counting_wrong(nothing_installed):
    for meter_type in (LiveTensors, GraphMemory):
        first, second = meter_type().__enter__(), meter_type().__enter__()
        with pytest.raises(RuntimeError, match="reverse order"):
            first.__exit__(None, None, None)
        second.__exit__(None, None, None)
        first._state = "active"  # the failed exit left it installed: close it properly now
        first.__exit__(None, None, None)
        assert nothing_installed()


def test_track_rejects_non_tensors_with_a_clear_error():
    with LiveTensors() as live:
        with pytest.raises(TypeError, match="tensors, nn.Modules"):
            live.track(3.0)


# ---------------------------------------------------------------- GraphMemory

def test_exp_saves_its_output_and_sin_its_input():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory() as graph:
        y = x.exp()
        z = x.sin()
    # d/dx exp(x) = exp(x): autograd keeps the result; d/dx sin(x) = cos(x): it keeps the input
    assert y.grad_fn._saved_result.data_ptr() == y.data_ptr()
    assert z.grad_fn._saved_self.data_ptr() == x.data_ptr()
    assert graph.bytes == 8000 and graph.count == 2
    assert graph.by_kind == {"parameters": 0, "inputs": 4000, "activations": 4000}


def test_nested_graph_meters_each_count_what_is_saved_inside_them():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory() as outer:
        with GraphMemory() as inner:
            y = x.exp()
        z = x.sin()
    assert (outer.bytes, inner.bytes) == (8000, 4000)
    del y
    assert (outer.bytes, inner.bytes) == (4000, 0)
    del z
    assert outer.bytes == 0


def test_graph_memory_warns_that_it_replaces_save_on_cpu():
    with torch.autograd.graph.save_on_cpu():
        with pytest.warns(UserWarning, match="replaces the saved-tensor hooks"):
            with GraphMemory():
                pass


def test_a_storage_saved_twice_counts_once():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory() as graph:
        y = x.sin() + x.cos()  # both save x
    assert graph.count == 2 and graph.bytes == 4000
    del y


def test_linear_layer_saves_its_input_and_refers_to_its_weight():
    layer = torch.nn.Linear(100, 10, bias=False)
    x = torch.randn(32, 100, requires_grad=True)
    with GraphMemory() as graph:
        out = layer(x)
    assert graph.by_kind == {"parameters": 100 * 10 * 4, "inputs": 32 * 100 * 4, "activations": 0}
    del out


def test_backward_frees_the_graph_and_retain_graph_keeps_it():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory() as graph:
        y = x.exp().sum()
    y.backward(retain_graph=True)
    assert graph.bytes == 4000, "retain_graph=True keeps exp's saved output"
    y.backward()
    assert graph.bytes == 0 and graph.count == 0


def test_dropping_the_output_frees_the_graph():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory() as graph:
        y = x.exp().sum()
    del y
    assert graph.bytes == 0


def test_create_graph_grows_the_saved_bytes():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory() as graph:
        y = x.exp().sum()
        first = graph.bytes
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        second = graph.bytes
    assert first == 4000
    # exp's backward, grad * result, saves both factors: the incoming grad (an expanded 4-byte
    # scalar) and exp's output, which is already counted
    assert second == first + 4
    assert g.grad_fn is not None
    del y, g
    gc.collect()
    assert graph.bytes == 0


def test_backward_create_graph_cycle_survives_gc_until_grad_is_reset():
    w = torch.nn.Parameter(torch.randn(1000))
    with GraphMemory() as graph:
        with warnings.catch_warnings():  # torch warns of this cycle once per process (TORCH_WARN_ONCE)
            warnings.simplefilter("ignore", UserWarning)
            (w.exp().sum()).backward(create_graph=True)
    # w.grad = grad_out * exp(w) keeps exp's output (4,000 B) and the 4-byte incoming gradient
    assert graph.bytes == 4004, "w.grad's graph keeps exp's output alive"
    gc.collect()
    assert graph.bytes == 4004, "the cycle param -> .grad -> graph -> param runs through C++: gc cannot see it"
    w.grad = None
    assert graph.bytes == 0


def test_in_place_changes_to_saved_tensors_still_raise_under_the_meter():
    x = torch.randn(1000, requires_grad=True)
    with GraphMemory():
        y = x.exp()
        y.add_(1)  # exp saved y: the gradient would silently be wrong
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
        z = x * 1
        z.relu_()  # relu_ saves its own (already modified) output: fine
        z.sum().backward()
    assert torch.equal(x.grad, (x > 0).float())


def test_torch_func_is_refused_with_a_pointer_to_live_tensors(nothing_installed):
    from torch.func import grad

    x = torch.randn(10)
    with pytest.raises(GraphMemoryUnsupported, match="LiveTensors"):
        with GraphMemory():
            grad(lambda t: t.sin().sum())(x)
    assert nothing_installed()


# ---------------------------------------------------------------- safety

def test_nothing_stays_installed_after_an_exception(nothing_installed):
    with pytest.raises(ZeroDivisionError):
        with LiveTensors(), GraphMemory():
            torch.zeros(3)
            1 / 0
    assert nothing_installed()


def test_a_finished_meter_cannot_be_reentered(nothing_installed):
    meter = LiveTensors()
    with meter:
        pass
    with pytest.raises(RuntimeError, match="create a new one"):
        with meter:
            pass
    assert nothing_installed()


def test_exiting_on_another_thread_is_an_error(nothing_installed):
    meter = GraphMemory().__enter__()
    errors = []
    thread = threading.Thread(target=lambda: errors.append(pytest.raises(RuntimeError, meter.__exit__, None, None, None)))
    thread.start()
    thread.join()
    assert "another" in str(errors[0].value)
    meter.__exit__(None, None, None)  # the owner can still close it cleanly
    assert nothing_installed()


def test_rerunning_a_cell_does_not_stack_state(nothing_installed):
    for _ in range(3):
        with LiveTensors(), GraphMemory() as graph:
            y = torch.ones(10, requires_grad=True).exp().sum()
        assert graph.bytes == 40
        del y
    assert nothing_installed()


# ---------------------------------------------------------------- measure and device counters

def test_measure_reports_exact_numbers():
    report = measure(lambda: torch.ones(1000, requires_grad=True).exp().sum())
    # peak: the leaf (4,000 B) + exp's output (4,000 B) + the sum (4 B), all alive at the end
    assert (report.peak_bytes, report.saved_bytes, report.leftover_bytes) == (8004, 4000, 0)
    # held while the result lives: the leaf (a cycle-free reference from the graph), exp's output, the sum
    assert report.held_bytes == 4000 + 4000 + 4
    assert "saved for backward" in str(report) and "<table>" in report._repr_html_()


def test_a_loss_history_of_tensors_leaks_a_known_amount_and_item_does_not():
    w = torch.nn.Parameter(torch.randn(100))
    history, totals = [], []

    def step_keep_tensor():
        history.append((w.exp() * 2).sum())  # keeps the graph: exp's output (400 B) + the loss (4 B)

    def step_keep_item():
        totals.append((w.exp() * 2).sum().item())

    leaks = [measure(step_keep_tensor).leftover_bytes for _ in range(3)]
    assert leaks == [404, 404, 404]
    assert [measure(step_keep_item).leftover_bytes for _ in range(3)] == [0, 0, 0]


def test_measure_falls_back_for_torch_func():
    from torch.func import hessian, vmap

    x = torch.randn(5, 3)
    report = measure(vmap(hessian(lambda t: (t.sin() ** 2).sum())), x, keep_result=True)
    assert report.saved_bytes is None and "torch.func" in report.note
    assert report.result.shape == (5, 3, 3) and report.held_bytes == 5 * 3 * 3 * 4


def test_device_memory_has_only_keys_that_exist_here():
    readings = device_memory()
    assert readings["rss"] > 0 and readings["rss_peak"] >= readings["rss"]
    assert ("cuda_allocated" in readings) == torch.cuda.is_available()


def test_bytes_are_also_split_by_device():
    with LiveTensors() as live:
        x = torch.zeros(1000)
        y = torch.zeros(10, dtype=torch.float64)
    assert live.by_device == {"cpu": 4080} and live.peak_by_device == {"cpu": 4080}
    del x
    assert live.by_device == {"cpu": 80}
    del y


def test_process_rss_reads_what_psutil_reads_here_and_in_a_forked_child():
    import os

    import psutil

    from autograd_memory.measuring.meters import process_rss

    def close(reading, process):  # a page or two may change between the two readings
        return abs(reading - process.memory_info().rss) < 1 << 20

    assert close(process_rss(), psutil.Process())
    if not hasattr(os, "fork"):
        return
    ballast = torch.ones(64 << 20, dtype=torch.uint8)  # the parent is 64 MB bigger than its child will be
    ballast.fill_(1)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        del ballast
        os.write(write, b"1" if close(process_rss(), psutil.Process()) else b"0")
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 1) == b"1", "a forked child reads its own resident set, not its parent's"
