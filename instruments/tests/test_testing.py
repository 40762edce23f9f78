"""autograd_memory.testing.assert_no_leak: passes a flat step, fails a leaking one with the report as its message."""
import pytest
import torch

from autograd_memory.testing import assert_no_leak


class Trainer:
    """A training loop as a class, as learners write them: the history lives on ``self``."""

    def __init__(self, keep_graph):
        self.model = torch.nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.losses, self.keep_graph = [], keep_graph

    def step(self):
        self.optimizer.zero_grad()
        loss = self.model(torch.ones(8, 4)).pow(2).mean()
        loss.backward()
        self.optimizer.step()
        self.losses.append(loss if self.keep_graph else loss.item())


def test_a_flat_step_passes():
    report = assert_no_leak(Trainer(keep_graph=False).step)
    assert report.top is None


def test_a_leaking_step_fails_with_the_report():
    with pytest.raises(AssertionError) as failure:
        assert_no_leak(Trainer(keep_graph=True).step, steps=3)
    message = str(failure.value)
    assert message.startswith("the step leaks: find_leaks: 3 steps after 1 warm-up")
    assert "test_testing.py, line 18" in message, message


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="this torch has no mkldnn tensors")
def test_tensors_it_cannot_count_fail_unless_told_they_may_be_ignored():
    kept = []

    def step():
        kept.append(torch.ones(1000).to_mkldnn())
    with pytest.raises(AssertionError) as failure:
        assert_no_leak(step)
    message = str(failure.value)
    assert "cannot tell" in message and "+1 mkldnn" in message and "flat" not in message, message
    report = assert_no_leak(step, allow_uncounted=True)
    assert report.rows == [] and report.uncounted, report
