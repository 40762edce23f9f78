"""paced: the gauge still knows the total, nothing is counted by the meters, bad input is explained."""
import pytest
import torch

from course_utils import MemoryGauge, paced


def test_a_paced_loop_under_a_gauge_keeps_its_total_and_its_bytes(capsys):
    gauge = MemoryGauge(meters=("live",), mode="text")
    kept = []
    for _ in gauge.track(paced(range(4), seconds=0.05)):
        kept.append(torch.zeros(250))
    assert gauge.trace.growth_per_step("live") == 1000
    assert "4 of 4 steps" in capsys.readouterr().out


def test_paced_needs_a_sized_iterable_and_a_non_negative_time():
    with pytest.raises(TypeError, match="give it a range or a list"):
        paced((i for i in range(3)), seconds=1)
    with pytest.raises(ValueError, match="seconds must be"):
        paced(range(3), seconds=-1)
    assert list(paced([], seconds=1)) == []
