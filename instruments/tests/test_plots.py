"""Plots of traces: titled, labelled axes in bytes, growth per step in every legend."""
import pytest

from autograd_memory import Trace, compare_traces, plot_trace

matplotlib = pytest.importorskip("matplotlib", reason="the `plots` extra")
matplotlib.use("Agg")


def leaky_and_fixed():
    leaky, fixed = Trace("leaky"), Trace("fixed")
    for step in range(10):
        leaky.record(step, live=4000 * (step + 1), saved=1000 * step, rss=None if step % 3 else 300_000_000)
        fixed.record(step, live=4000, saved=0)
    return leaky, fixed


def texts(fig):
    return [(ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), [t.get_text() for t in ax.get_legend().get_texts()])
            for ax in fig.axes]


def test_plot_trace_draws_one_labelled_timeline_per_meter():
    leaky, _ = leaky_and_fixed()
    fig = plot_trace(leaky)
    assert fig.get_suptitle() == "leaky"
    assert texts(fig) == [
        ("live tensors", "step", "memory (bytes, 1 kB = 1,000 B)", ["live tensors: +4.00 kB/step"]),
        ("saved for backward", "step", "memory (bytes, 1 kB = 1,000 B)", ["saved for backward: +1.00 kB/step"]),
        ("process RSS (OS view)", "step", "memory (bytes, 1 kB = 1,000 B)", ["process RSS (OS view): 0 B/step"]),
    ]
    steps, _ = fig.axes[2].lines[0].get_data()
    assert list(steps) == [0, 3, 6, 9], "samples without a reading are left out, not drawn as zero"
    fig.canvas.draw()
    assert fig.axes[0].get_yticklabels()[-1].get_text().endswith("kB")


def test_compare_traces_puts_runs_side_by_side_with_growth_in_the_legend():
    leaky, fixed = leaky_and_fixed()
    fig = compare_traces({"leaky": leaky, "fixed": fixed}, title="Keeping the loss tensor")
    assert fig.get_suptitle() == "Keeping the loss tensor"
    assert texts(fig) == [
        ("live tensors", "step", "memory (bytes, 1 kB = 1,000 B)", ["leaky: +4.00 kB/step", "fixed: 0 B/step"]),
        ("saved for backward", "step", "memory (bytes, 1 kB = 1,000 B)", ["leaky: +1.00 kB/step", "fixed: 0 B/step"]),
    ]
    left, right = (ax.get_position() for ax in fig.axes)
    assert left.x1 <= right.x0, "the panels sit side by side"


def test_compare_traces_refuses_a_meter_that_not_every_trace_has():
    leaky, fixed = leaky_and_fixed()
    with pytest.raises(ValueError, match="rss"):
        compare_traces({"leaky": leaky, "fixed": fixed}, meters=["rss"])
    with pytest.raises(ValueError, match="no samples"):
        plot_trace(Trace("empty"))
