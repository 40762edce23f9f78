"""MemoryGauge: exact traces, throttled redraws, loops of unknown length, clean exits, text mode."""
import importlib.util
import subprocess
import sys

import pytest
import torch

from autograd_memory import LiveTensors, MemoryBudgetExceeded, MemoryGauge, format_bytes
from autograd_memory.formats import display_settings
from autograd_memory.views import gauges
from autograd_memory.views.gauges import GaugeStatus

needs_widgets = pytest.mark.skipif(importlib.util.find_spec("ipywidgets") is None, reason="the `widgets` extra")


class FakeClock:
    """A clock that moves ``tick`` seconds each time the gauge reads it."""

    def __init__(self, tick):
        self.calls, self.tick = 0, tick

    def __call__(self):
        self.calls += 1
        return (self.calls - 1) * self.tick


def test_unknown_meter_is_refused_with_the_valid_names():
    with pytest.raises(ValueError, match="saved, live, rss, cuda_allocated, cuda_reserved"):
        MemoryGauge(meters=("live", "gpu"))


def test_budget_needs_the_live_meter():
    with pytest.raises(ValueError, match="live"):
        MemoryGauge(meters=("saved",), budget=1000)


def test_leaky_loop_trace_is_exact(nothing_installed):
    gauge, history = MemoryGauge(meters=("live", "saved"), mode="text"), []
    for _ in gauge.track(range(6)):
        history.append(torch.zeros(1000))  # 4,000 bytes a step, never freed
    assert gauge.trace.steps == [0, 1, 2, 3, 4, 5]
    assert gauge.trace.values["live"] == [4000, 8000, 12000, 16000, 20000, 24000]
    assert gauge.trace.values["saved"] == [0] * 6
    assert gauge.trace.growth_per_step("live") == 4000.0
    assert gauge.status == "finished" and nothing_installed()


def test_saved_meter_sees_a_graph_kept_each_step():
    x = torch.ones(1000, requires_grad=True)
    gauge, kept = MemoryGauge(meters=("saved", "live"), mode="text"), []
    for _ in gauge.track(range(4)):
        kept.append(x.exp())  # exp saves its 4,000-byte output for backward
    assert gauge.trace.values["saved"] == [4000, 8000, 12000, 16000]
    assert gauge.trace.values["live"] == [4000, 8000, 12000, 16000]


def test_include_counts_tensors_made_before_the_loop_and_holds_them_weakly():
    weights, dropped = torch.zeros(500), torch.zeros(250)
    gauge = MemoryGauge(meters=("live",), mode="text").include(weights, [dropped])
    del dropped  # the gauge must not keep it alive
    with gauge:
        gauge.sample()
    assert gauge.trace.values["live"] == [2000]


@needs_widgets
def test_redraws_are_throttled_to_ten_per_second_plus_a_final_one(monkeypatch):
    clock = FakeClock(tick=0.001)  # a 1 ms step: 1,000 samples span one second
    monkeypatch.setattr(gauges, "_now", clock)
    gauge = MemoryGauge(meters=("live", "rss"), mode="widget")
    for _ in gauge.track(range(1000)):
        pass
    assert clock.calls == 1000
    assert gauge.redraws == 10 + 1, f"{gauge.redraws} redraws for one second of loop"
    # the device's counter is read at each redraw only (and once at the end)
    rss = gauge.trace.values["rss"]
    assert sum(value is not None for value in rss) == 11 and rss[0] is not None and rss[-1] is not None


@needs_widgets
def test_a_loop_faster_than_the_throttle_still_gets_a_final_redraw(monkeypatch):
    monkeypatch.setattr(gauges, "_now", FakeClock(tick=0.0))
    gauge, history = MemoryGauge(meters=("live",), mode="widget"), []
    for _ in gauge.track(range(50)):
        history.append(torch.zeros(10))
    assert gauge.redraws == 2  # the first sample and the final one
    value = gauge.widgets.meters["live"].readout.value
    assert format_bytes(2000) in value and "2,000 bytes" in value


def test_generator_of_unknown_length():
    def batches():
        yield from (torch.zeros(100) for _ in range(7))

    gauge, kept = MemoryGauge(meters=("live",), mode="text"), []
    for batch in gauge.track(batches()):
        kept.append(batch)
    assert gauge.trace.steps == list(range(7))
    assert gauge.trace.values["live"][-1] == 7 * 400
    assert "7 steps ·" in gauge.summary().status, gauge.summary().status
    sized = MemoryGauge(meters=("live",), mode="text")
    for _ in sized.track([1, 2, 3]):
        pass
    assert "3 of 3 steps" in sized.summary().status


@needs_widgets
def test_exception_in_a_track_loop_keeps_the_last_state_and_removes_every_hook(nothing_installed):
    gauge, history = MemoryGauge(meters=("live", "saved"), mode="widget"), []
    with pytest.raises(ValueError, match="boom"):
        for step in gauge.track(range(10)):
            history.append(torch.zeros(1000))
            if step == 3:
                raise ValueError("boom")
    assert nothing_installed()
    assert gauge.trace.values["live"] == [4000, 8000, 12000]  # steps 0-2 completed
    assert gauge.status is GaugeStatus.LEFT_EARLY
    said = "left the loop during step 4 of 10 (a break, or an exception in the loop body); 3 steps completed"
    assert said in gauge.model.outcome() and said in gauge.widgets.status.value


def test_exception_in_a_with_block_is_named_by_the_gauge(nothing_installed):
    gauge = MemoryGauge(meters=("live", "saved"), mode="text")
    with pytest.raises(KeyError):
        with gauge:
            gauge.sample(0)
            {}["missing"]
    assert nothing_installed()
    assert gauge.status is GaugeStatus.STOPPED
    assert gauge.model.outcome() == "stopped after 1 step: KeyError: 'missing'"


@needs_widgets
def test_crossing_the_budget_stops_the_loop_and_the_gauge_says_why(nothing_installed):
    gauge, history = MemoryGauge(meters=("live",), budget=10_000, mode="widget"), []
    with pytest.raises(MemoryBudgetExceeded):
        for _ in gauge.track(range(100)):
            history.append(torch.zeros(1000))
    assert nothing_installed()
    assert gauge.trace.values["live"] == [4000, 8000]
    assert gauge.status is GaugeStatus.OVER_BUDGET and gauge.status.startswith("stopped")
    assert "over the budget of 10.0 kB" in gauge.model.outcome() and "stopped after 2 steps" in gauge.model.outcome()
    bar = gauge.widgets.meters["live"].bar
    assert bar.bar_style == "danger" and bar.max == 10_000
    assert "MemoryBudgetExceeded" in gauge.widgets.status.value


def test_budget_colours_change_as_it_nears():
    assert [gauges._budget_level(f) for f in (0.1, 0.69, 0.7, 0.89, 0.9, 1.2)] == \
        ["success", "success", "warning", "warning", "danger", "danger"]


@needs_widgets
def test_meter_missing_on_this_machine_reads_not_available_here(monkeypatch):
    monkeypatch.setattr(gauges, "device_memory", lambda: {"rss": 123_000_000})  # a CPU box
    gauge = MemoryGauge(meters=("live", "rss", "cuda_allocated", "cuda_reserved"), mode="widget")
    for _ in gauge.track(range(2)):
        pass
    summary = gauge.summary()
    assert [row[1] for row in summary.rows] == ["0 B", "123.0 MB", "not available here", "not available here"]
    assert "not available here" in str(summary) and "not available here" in summary._repr_html_()
    assert set(gauge.widgets.meters) == {"live", "rss"}


def test_every_run_gets_fresh_meters_and_a_fresh_trace():
    gauge = MemoryGauge(meters=("live",), mode="text")
    with gauge:
        first = gauge.live
        kept = torch.zeros(10)
        with pytest.raises(RuntimeError, match="already running"):
            gauge.__enter__()
    with gauge:
        pass
    assert gauge.live is not first and len(gauge.trace) == 1 and gauge.trace.labels == ["end"]
    with pytest.raises(RuntimeError, match="inside `with gauge:`"):
        gauge.sample()
    del kept


def test_summary_is_a_static_table_in_html_and_text():
    gauge, history = MemoryGauge(meters=("live",), title="leaky <demo>", mode="text"), []
    for _ in gauge.track(range(3)):
        history.append(torch.zeros(1000))
    html, text = gauge.summary()._repr_html_(), str(gauge.summary())
    assert "<table" in html and "leaky &lt;demo&gt;" in html and "<svg" in html
    assert "12.0 kB" in text and "+4.00 kB/step" in text and "finished" in text


@pytest.mark.slow  # starts a Python
def test_plain_python_gets_text_only(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(
        "import sys, torch\n"
        "from autograd_memory import MemoryGauge\n"
        "gauge, kept = MemoryGauge(title='script loop'), []\n"
        "for _ in gauge.track(range(5)):\n"
        "    kept.append(torch.zeros(1000))\n"
        "print('widgets imported:', 'ipywidgets' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.startswith("script loop: 5 of 5 steps"), out
    assert "live tensors" in out and "20.0 kB" in out and "+4.00 kB/step" in out
    assert "widgets imported: False" in out and "<" not in out


@pytest.mark.parametrize("kwargs, message", [
    ({"meters": ()}, "at least one meter"),
    ({"max_redraws_per_second": 0}, "must be positive"),
    ({"budget": 0}, "positive number of bytes"),
])
def test_bad_settings_are_refused_when_the_gauge_is_made(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MemoryGauge(**kwargs)


def test_a_loop_left_early_exits_the_meters_at_once_even_when_the_iterator_is_kept(nothing_installed):
    gauge = MemoryGauge(meters=("live", "saved"), mode="text")
    kept = gauge.track(range(5))
    for _ in kept:
        break
    assert nothing_installed(), "the gauge's meters must not outlive the loop"
    with LiveTensors() as later:
        x = torch.zeros(1000)
    assert later.bytes == 4000 and gauge.live.bytes == 0, "a later, unrelated meter is not counted by the gauge"
    assert gauge.status is GaugeStatus.LEFT_EARLY
    assert gauge.model.outcome() == ("left the loop during step 1 of 5 (a break, or an exception in the loop body); "
                                     "0 steps completed")
    assert "0 of 5 steps" in gauge.summary().status
    del x


def test_the_gauge_is_a_model_and_a_view_with_every_attribute_set_in_init():
    gauge = MemoryGauge(meters=("live",), mode="text")
    fresh = set(vars(gauge)) | set(vars(gauge.model))
    with gauge:
        gauge.sample()
    assert set(vars(gauge)) | set(vars(gauge.model)) == fresh, "attributes appear only in __init__"
    assert gauge.status is GaugeStatus.FINISHED and gauge.view is None
    assert isinstance(gauge.model, gauges.GaugeModel)


def test_a_widget_gauge_without_ipywidgets_says_which_extra_and_leaves_nothing_installed(monkeypatch, nothing_installed):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # as if not installed
    gauge = MemoryGauge(meters=("live", "saved"), budget=10_000, mode="widget")
    with pytest.raises(ImportError, match=r"pip install 'autograd-memory\[widgets\]'"):
        for _ in gauge.track(range(3)):
            pass
    assert nothing_installed()


@pytest.fixture
def large():
    """The large display set (what the course's lecture mode switches on), off again after the test."""
    display_settings.use_large()
    yield
    display_settings.use_large(False)


@needs_widgets
def test_in_a_kernel_the_large_display_set_shows_the_gauge_as_html_replaced_in_place(large, monkeypatch):
    # ipywidgets do not load in jupyterlab-rise's slideshow app; display updates do (tests/browser/test_slideshow.py)
    monkeypatch.setattr(gauges, "_in_kernel", lambda: True)
    monkeypatch.setattr(gauges, "_show", lambda obj: None)  # the widget view's summary, below
    gauge, kept = MemoryGauge(meters=("live", "cuda_allocated")), []
    for _ in gauge.track(range(3)):
        kept.append(torch.zeros(250))
    assert gauge.shown_as == "html" and gauge.widgets is None
    panel = gauge.view.html()
    assert f"<span title='{gauge.live.bytes:,} bytes'>" in panel and f"font-size:{display_settings.WIDGET_PX}px" in panel
    assert "amlab-gauge-row amlab-gauge-live" in panel and "finished" in panel
    assert "not available here" not in panel and ("amlab-gauge-cuda_allocated" in panel) == torch.cuda.is_available(), (
        "on a slide a gauge shows only the meters this machine has")
    assert gauge.view.bundle()["text/plain"] == str(gauge.summary()), "the last frame reads as the summary in text"
    display_settings.use_large(False)
    plain = MemoryGauge(meters=("live",))
    with plain:
        plain.sample()
    assert plain.shown_as == "widget", "outside the large display set a kernel shows the widgets"
    plain = MemoryGauge(meters=("live",), mode="widget")
    with plain:
        plain.sample()
    assert plain.widgets.meters["live"].readout.style.font_size is None
    assert "font-size" not in plain.summary()._repr_html_()


def test_gauges_shown_twice_by_one_cell_run_get_numbered_titles(monkeypatch):
    class Shell:
        execution_count = 7

    IPython = pytest.importorskip("IPython", reason="a kernel's shell")
    monkeypatch.setattr(gauges, "_in_kernel", lambda: True)
    monkeypatch.setattr(gauges, "_titles_shown", {})
    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell)
    assert [gauges._unique_title("keeps x") for _ in range(3)] == ["keeps x", "keeps x (2)", "keeps x (3)"]
    Shell.execution_count = 8
    assert gauges._unique_title("keeps x") == "keeps x", "a new cell run starts the count again"
