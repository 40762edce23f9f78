"""Trace (growth per step, flatness, JSON) and memory_budget (stops a runaway loop at the right op)."""
import pytest
import torch

from autograd_memory import MemoryBudgetExceeded, Trace, memory_budget
from autograd_memory.measuring.trace import NotFlatError
from autograd_memory.seams.torch_internals import current_dispatch_mode


def leaky_trace(steps=6, per_step=4000):
    trace = Trace("leaky")
    for step in range(steps):
        trace.record(step, live=10_000 + per_step * step, saved=0)
    return trace


def test_growth_per_step_is_the_least_squares_slope():
    assert leaky_trace().growth_per_step("live") == 4000
    assert leaky_trace().growth_per_step("saved") == 0
    zigzag = Trace()
    for step, value in enumerate([0, 10, 0, 10]):
        zigzag.record(step, x=value)
    assert zigzag.growth_per_step("x") == pytest.approx(2.0)


def test_assert_flat_passes_when_flat_and_explains_when_not():
    trace = leaky_trace()
    trace.assert_flat("saved")
    with pytest.raises(NotFlatError) as failure:
        trace.assert_flat("live")
    message = str(failure.value)
    assert "20.0 kB over 6 samples" in message and "+4.00 kB per step" in message and "loss.item()" in message
    trace.assert_flat("live", tolerance_bytes=20_000)


def test_assert_flat_can_skip_a_warm_up_step():
    trace = Trace()
    for step, value in enumerate([100, 900, 900, 900]):
        trace.record(step, live=value)
    with pytest.raises(NotFlatError):
        trace.assert_flat("live")
    trace.assert_flat("live", skip=1)


def test_meters_may_join_late_and_json_round_trips():
    trace = Trace("mixed")
    trace.record(0, live=1)
    trace.record(1, "after backward", live=2, rss=5)
    assert trace.values == {"live": [1, 2], "rss": [None, 5]}
    again = Trace.from_json(trace.to_json())
    assert again.to_dict() == trace.to_dict()
    assert again.series("rss") == ([1], [5])


def test_unknown_meter_lists_the_known_ones():
    with pytest.raises(KeyError, match="it has: live, saved"):
        leaky_trace().growth_per_step("cuda")


def test_memory_budget_stops_a_growing_loop_at_the_right_step(device):
    kept = []
    with pytest.raises(MemoryBudgetExceeded) as stop:
        with memory_budget(100_000) as budget:
            for step in range(1000):
                kept.append(torch.zeros(1000, device=device))  # 4,000 bytes a step, never freed
    # 25 tensors fit exactly (100,000 bytes); the 26th crosses the budget
    assert step == 25 and len(kept) == 25
    assert (stop.value.reached, stop.value.budget) == (104_000, 100_000)
    assert "aten.zeros" in str(stop.value) or "aten.empty" in str(stop.value)
    assert "stopped itself" in str(stop.value)
    assert budget.bytes == 100_000, "the tensor that crossed the budget was dropped with the exception"
    assert current_dispatch_mode() is None, "nothing stays installed after the budget stops the loop"


def test_budget_covers_tracked_tensors_resizes_and_ops_that_return_no_tensor(device):
    big = torch.zeros(1000, device=device)
    with pytest.raises(MemoryBudgetExceeded, match="at track"):
        with memory_budget(100).track(big):
            pass
    with memory_budget(5000) as budget:
        budget.track(big)
        assert big.sum().item() == 0 and torch.equal(big, big), "ops returning no tensor run normally"
        with pytest.raises(MemoryBudgetExceeded, match="resize_"):
            torch.empty(0, device=device).resize_(1000)  # 4,000 more bytes, grown in place
    assert current_dispatch_mode() is None


def test_memory_budget_needs_a_positive_budget():
    with pytest.raises(ValueError, match="positive"):
        memory_budget(0)


def test_a_budget_written_as_text_says_to_pass_a_number_of_bytes():
    with pytest.raises(TypeError, match=r"a number of bytes, got '1GB'; e.g. memory_budget\(1e9\)"):
        memory_budget("1GB")
