"""timeline: the kinds add up to the live bytes after every op, its peak is LiveTensors' peak, and
parameters, gradients and Adam's state read what their shapes say."""
import pytest
import torch

from autograd_memory import GraphMemory, LiveTensors, Timeline, timeline
from autograd_memory.diagnosing.memory_timeline import KINDS
from autograd_memory.measuring.meters import tensors_in
from autograd_memory.seams.torch_internals import current_dispatch_mode, top_saved_tensor_hooks


def problem(device="cpu"):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(30, 40), torch.nn.Tanh(), torch.nn.Linear(40, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(64, 30, device=device), torch.randn(64, 1, device=device)

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    step()  # Adam's state exists from here on: every later step has the same memory
    return model, optimizer, step


def test_the_kinds_add_up_to_the_live_bytes_after_every_op(device):
    model, optimizer, step = problem(device)
    memory = timeline(step, model, optimizer)
    assert isinstance(memory, Timeline) and list(memory.by_kind) == list(KINDS)
    assert len(memory.ops) == len(memory.total) == len(memory.sites) > 20
    for index, total in enumerate(memory.total):
        assert sum(values[index] for values in memory.by_kind.values()) == total, memory.ops[index]


@pytest.mark.parametrize("set_to_none", [True, False], ids=["zero_grad frees the grads", "zero_grad zeroes them"])
def test_end_minus_start_is_the_net_change_of_live_tensors(device, allocated, adam_step, set_to_none):
    """What the allocator would say: the old .grads a step frees count, and so do the optimizer's temporaries that die
    when the step returns (after its last op)."""
    model, optimizer, step = adam_step(set_to_none)
    before = allocated()
    memory = timeline(step, model, optimizer)
    assert memory.total[-1] - memory.total[0] == allocated() - before == 0
    assert (memory.ops[0], memory.ops[-1]) == ("(start)", "(end)") and memory.phases[-1] == "optimizer"
    assert str(memory).startswith(f"timeline of {len(memory.ops) - 2} ops"), "the start and the end are no ops"


def test_the_peak_is_the_peak_a_plain_live_tensors_meter_reads(device):
    model, optimizer, step = problem(device)
    memory = timeline(step, model, optimizer)
    params = list(model.parameters())
    tracked = params + [p.grad for p in params] + list(tensors_in(list(optimizer.state.values())))
    with LiveTensors().track(tracked) as live:
        del tracked
        step()
    assert memory.peak == live.peak
    assert memory.peak_op.startswith("aten.") and "line" in memory.peak_op


def test_parameters_gradients_and_adam_state_read_what_their_shapes_say(device):
    model, optimizer, step = problem(device)
    memory = timeline(step, model, optimizer)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    step_counters = sum(state["step"].untyped_storage().nbytes() for state in optimizer.state.values())
    end = memory.by_kind_at_end()
    assert (end["parameters"], end["gradients"]) == (weights, weights)
    assert end["optimizer state"] == 2 * weights + step_counters  # exp_avg, exp_avg_sq, and a step counter each
    assert end["saved for backward"] == 0, "backward frees what the forward saved"
    assert max(memory.by_kind["saved for backward"]) > 0


def test_the_phases_come_in_order_and_saved_bytes_peak_before_backward(device):
    model, optimizer, step = problem(device)
    memory = timeline(step, model, optimizer)
    phases = memory.phases
    order = [phase for i, phase in enumerate(phases) if i == 0 or phase != phases[i - 1]]
    assert order[-3:] == ["forward", "backward", "optimizer"], order
    saved = memory.by_kind["saved for backward"]
    assert phases[saved.index(max(saved))] == "forward"


def test_without_a_model_every_byte_is_other():
    x = torch.ones(100, requires_grad=True)
    memory = timeline(lambda: x.exp().sum().backward())
    assert memory.by_kind["parameters"][-1] == 0 and memory.peak == max(memory.total)
    assert memory.by_kind_at_end()["other"] == memory.total[-1]
    x.grad = None


def test_plot_draws_every_kind_and_annotates_the_peak():
    model, optimizer, step = problem()
    pytest.importorskip("matplotlib", reason="the `plots` extra").use("Agg")
    figure = timeline(step, model, optimizer).plot()
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(KINDS)
    assert any(text.get_text().startswith("peak ") for text in ax.texts)
    assert {"forward", "backward", "optimizer"} <= {text.get_text() for text in ax.texts}


@pytest.mark.parametrize("error", [ValueError("bad"), KeyboardInterrupt()])
def test_nothing_stays_installed_when_the_step_raises(error):
    def step():
        torch.ones(3).exp()
        raise error
    with pytest.raises(type(error)):
        timeline(step)
    assert current_dispatch_mode() is None
    assert top_saved_tensor_hooks() is None


def test_bad_arguments_say_what_to_pass():
    with pytest.raises(TypeError, match="training step as a function"):
        timeline("step")
    with pytest.raises(TypeError, match="nn.Module"):
        timeline(lambda: None, model=torch.ones(2))


def test_the_kinds_add_up_after_find_leaks_ran_and_when_a_storage_grows_in_place():
    from autograd_memory import find_leaks
    model, optimizer, step = problem()

    def growing_step():
        step()
        buffer = torch.zeros(4)
        torch.ones(64, out=buffer)  # the same storage, grown in place
    find_leaks(growing_step, steps=3)
    for _ in range(3):
        memory = timeline(growing_step, model, optimizer)
        for index, total in enumerate(memory.total):
            assert sum(values[index] for values in memory.by_kind.values()) == total, memory.ops[index]


def test_a_generator_function_is_refused_instead_of_reading_zero_ops():
    def step():
        yield torch.ones(3).exp()
    with pytest.raises(TypeError, match="generator function: calling it returns a generator and runs none"):
        timeline(step)


def test_a_model_passed_as_the_optimizer_says_what_to_pass():
    model, optimizer, step = problem()
    with pytest.raises(TypeError, match=r"optimizer should be a torch.optim.Optimizer .*got Sequential; call "
                                        r"timeline\(train_step, model, optimizer\)"):
        timeline(step, model, model)


def test_a_graph_memory_around_timeline_counts_what_the_step_saves_as_without_it():
    model, optimizer, step = problem()
    with GraphMemory() as alone:
        step()
    with GraphMemory() as around:
        memory = timeline(step, model, optimizer)
    assert around.peak == alone.peak > 0, (around.peak, alone.peak)
    assert around.by_kind == alone.by_kind, "nothing saved is left, in either"
    assert max(memory.by_kind["saved for backward"]) > 0
    saved = [torch.ones(3, requires_grad=True)]

    def modifies_what_it_saved():
        y = saved[0].exp()
        y.add_(1)  # exp saved its output: backward must refuse, as it does without the timeline
        y.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        timeline(modifies_what_it_saved)


def test_an_lbfgs_closure_runs_forward_and_backward_not_optimizer():
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.LBFGS(model.parameters(), max_iter=3)
    x = torch.randn(16, 8)

    def closure():
        optimizer.zero_grad()
        loss = model(x).square().mean()
        loss.backward()
        return loss

    for call in (lambda: optimizer.step(closure), lambda: optimizer.step(closure=closure)):
        phases = timeline(call, model, optimizer).phases
        assert phases.count("forward") > 4 and "backward" in phases and "optimizer" in phases, phases
        first_backward = phases.index("backward")
        assert "forward" in phases[1:first_backward], "the closure's forward runs before its backward"
