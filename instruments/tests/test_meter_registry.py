"""The meter registry is the one vocabulary: the gauge takes its meters from it, and the gauge and the plots show each
meter's label and read it the way the registry says."""
import pytest
import torch

from autograd_memory import MemoryGauge, Trace, device_memory
from autograd_memory.measuring.meter_registry import EXACT, METERS, label


def test_the_gauge_takes_its_meters_from_the_registry():
    assert MemoryGauge(mode="text").meters == tuple(METERS) and EXACT == ("saved", "live")
    assert "rss" in device_memory() and not METERS["rss"].exact, "a device counter is a key of device_memory()"
    with pytest.raises(ValueError, match="the gauge knows: saved, live, rss"):
        MemoryGauge(meters=("rss_peak",))


def test_the_gauge_reads_each_meter_as_the_registry_says():
    gauge = MemoryGauge(meters=tuple(METERS), mode="text")
    with gauge:
        kept = torch.zeros(1000)
        gauge.sample()
    model = gauge.model
    assert model.exact_readings() == {"saved": 0, "live": 4000} and model.peak("live") == model.live.peak == 4000
    assert [row[0] for row in gauge.summary().rows] == [meter.label for meter in METERS.values()]
    assert model.peak("rss") == model.device_peaks["rss"] > 0, "a device counter's peak: its highest reading"
    del kept


def test_plots_title_each_meter_with_its_label():
    pytest.importorskip("matplotlib")
    from autograd_memory import plot_trace

    trace = Trace("t")
    for step in range(3):
        trace.record(step, saved=step, grad_norm=1)
    titles = [ax.get_title() for ax in plot_trace(trace).axes]
    assert titles == [METERS["saved"].label, "grad_norm"] == [label("saved"), label("grad_norm")]
