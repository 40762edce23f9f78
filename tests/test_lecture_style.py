"""Lecture mode (course_utils.teaching.lecture): text of at least 16 px in the course's real figures, at most 4 legend entries,
tables trimmed with a "… N more rows" line, larger gauges, the defaults back when it is off, and AMLAB_LECTURE=1
switching it on at import (what `make present` relies on)."""
import json
import os
import pathlib
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from autograd_memory.views import gauges  # noqa: E402
from autograd_memory.views.plots import log_bytes  # noqa: E402
from course_utils import MemoryGauge, Table, Trace, compare_traces, lecture, lecture_style, plot_trace  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

@pytest.fixture
def lecturing():
    lecture_style()
    yield
    lecture_style(False)
    plt.close("all")


def runs(n, steps=10):
    traces = {}
    for k in range(n):
        trace = traces[f"run {k}"] = Trace(f"run {k}")
        for step in range(steps):
            trace.record(step, live=1000 * k * step, saved=500 * step)
    return traces


def text_px(figure):
    """{text: its height in px at the figure's dpi} for every visible, non-empty text of a drawn figure."""
    figure.canvas.draw()
    return {text.get_text(): text.get_fontsize() * figure.dpi / 72
            for text in figure.findobj(Text) if text.get_visible() and text.get_text().strip()}


def course_figures():
    traces = runs(3)
    leaky = traces["run 2"]
    logged = compare_traces(traces, meters=["live"], title="log axes")
    log_bytes(logged, steps=10)
    return [plot_trace(leaky), compare_traces(traces, title="three runs"), logged]


def test_every_text_of_the_course_plots_is_at_least_16_px_in_lecture_mode():
    before = min(min(text_px(figure).values()) for figure in course_figures())
    plt.close("all")
    assert before < lecture.MIN_PX, "the check must see small text without lecture mode, or it proves nothing"
    lecture_style()
    try:
        for figure in course_figures():
            sizes = text_px(figure)
            small = {text: round(px, 1) for text, px in sizes.items() if px < lecture.MIN_PX}
            assert not small, f"texts under {lecture.MIN_PX} px in lecture mode (px at {figure.dpi} dpi): {small}"
            ticks = [label for ax in figure.axes for label in ax.get_yticklabels() if label.get_text()]
            assert ticks and all(label in figure.findobj(Text) for label in ticks), "tick labels are measured too"
    finally:
        lecture_style(False)
        plt.close("all")


@pytest.mark.parametrize("room", [0.12, 0.0], ids=["room-for-the-legend", "no-room"])
def test_a_notebook_style_figure_with_small_fonts_and_six_entries_is_made_readable(lecturing, room):
    # as notebook 06 draws its benchmark: explicit small fonts, one figure legend for six methods, tight_layout(rect)
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
    for k in range(6):
        for ax in axes:
            ax.plot([1, 2, 4], [k, k + 1, k + 3], marker="o", label=f"method {k}")
    axes[0].set_title("N = 1,024, width 64 x 4", fontsize=10)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=9)
    fig.tight_layout(rect=(0, room, 1, 1))

    sizes = text_px(fig)
    assert min(sizes.values()) >= lecture.MIN_PX, {text: px for text, px in sizes.items() if px < lecture.MIN_PX}
    (legend,) = fig.legends
    assert [text.get_text() for text in legend.get_texts()] == ["method 0", "method 1", "method 2", "method 3"]
    assert legend.get_title().get_text() == "grey: method 4, method 5", "the legend says which series it left out"
    assert legend.get_window_extent().y1 < min(ax.get_tightbbox().y0 for ax in axes), "the legend overlaps no axes"
    greys = {line.get_label(): line.get_color() for line in axes[1].lines}
    assert greys["method 5"] == lecture.GREY and greys["method 0"] != lecture.GREY


def test_compare_traces_lists_at_most_four_runs_and_names_the_others(lecturing):
    fig = compare_traces(runs(6), title="six runs")
    fig.canvas.draw()
    for ax in fig.axes:
        legend = ax.get_legend()
        assert [text.get_text().split(":")[0] for text in legend.get_texts()] == [f"run {k}" for k in range(4)]
        assert "run 4" in legend.get_title().get_text() and "run 5" in legend.get_title().get_text()
    fig.canvas.draw()
    assert len(fig.axes[0].get_legend().get_texts()) == 4, "drawing again changes nothing more"


def test_off_restores_the_settings_from_before_and_new_figures_are_plain():
    keys = [*lecture.SIZES_PX, "figure.hooks"]
    matplotlib.rcParams["legend.fontsize"] = 11  # a setting of the learner's own survives
    before = {key: matplotlib.rcParams[key] for key in keys}
    lecture_style()
    lecture_style()  # re-running it is harmless
    assert lecture.is_on() and matplotlib.rcParams["legend.fontsize"] * matplotlib.rcParams["figure.dpi"] / 72 >= 16
    made_in_lecture = plt.figure()
    lecture_style(False)
    try:
        assert {key: matplotlib.rcParams[key] for key in keys} == before
        assert plt.figure().get_layout_engine() is None, "after lecture_style(False) a new figure is plain"
        small = made_in_lecture.text(0.5, 0.5, "small", fontsize=8)
        made_in_lecture.canvas.draw()
        assert small.get_fontsize() == 8, "a lecture figure drawn after lecture mode ends is left as it is"
    finally:
        matplotlib.rcParams["legend.fontsize"] = "medium"
        plt.close("all")


def test_a_table_shows_its_key_rows_or_its_first_rows_and_says_how_many_more(lecturing):
    total = lecture.TABLE_ROWS + 2
    rows = [(f"method {k}", f"{k} kB") for k in range(total)]
    first = Table(("method", "peak"), rows, caption="measured here")
    markdown = first._repr_markdown_().splitlines()
    assert markdown[2:2 + lecture.TABLE_ROWS] == [f"| method {k} | {k} kB |" for k in range(lecture.TABLE_ROWS)]
    assert markdown[-3:] == [f"… 2 more rows: method {total - 2}, method {total - 1}", "", "measured here"]
    keyed = Table(("method", "peak"), rows, key_rows=(0, total - 1))
    assert f"method {total - 1}" in keyed._repr_markdown_() and f"… {total - 2} more rows" in keyed._repr_markdown_()
    assert str(first).count("\n") == total + 1, "str() stays whole (print, asserts, reports built on tables)"
    assert len(Table(("a",), [(1,), (2,)])._repr_markdown_().splitlines()) == 4, "a short table is not trimmed"
    lecture_style(False)
    assert "more rows" not in first._repr_markdown_()
    with pytest.raises(ValueError, match=f"key_rows are row indices from 0 to {total - 1}"):
        Table(("method", "peak"), rows, key_rows=(total,))


def test_gauges_use_the_slides_text_size_in_lecture_mode(lecturing):
    gauge, kept = MemoryGauge(meters=("live",), mode="widget", title="lecture"), []
    for _ in gauge.track(range(3)):
        kept.append(bytearray(10))
    value = gauge._widgets["cells"]["live"][1]
    assert value.style.font_size == f"{lecture.WIDGET_PX}px" and lecture.WIDGET_PX >= 24, "tools/rise.css's floor"
    assert f"font-size:{lecture.WIDGET_PX}px" in gauge.summary()._repr_html_()


def test_in_a_kernel_lecture_mode_shows_the_gauge_as_html_replaced_in_place(lecturing, monkeypatch):
    # ipywidgets do not load in jupyterlab-rise's slideshow app; display updates do (tests/browser/test_slideshow.py)
    monkeypatch.setattr(gauges, "_in_kernel", lambda: True)
    monkeypatch.setattr(gauges, "_show", lambda obj: None)  # the widget view's summary, below
    gauge, kept = MemoryGauge(meters=("live", "cuda_allocated")), []
    for _ in gauge.track(range(3)):
        kept.append(torch.zeros(250))
    assert isinstance(gauge.view, gauges._HtmlView) and gauge._widgets is None
    panel = gauge.view.html()
    assert f"<span title='{gauge.live.bytes:,} bytes'>" in panel and f"font-size:{lecture.WIDGET_PX}px" in panel
    assert "amlab-gauge-row amlab-gauge-live" in panel and "finished" in panel
    assert "not available here" not in panel and ("amlab-gauge-cuda_allocated" in panel) == torch.cuda.is_available(), (
        "on a slide a gauge shows only the meters this machine has")
    assert gauge.view.bundle()["text/plain"] == str(gauge.summary()), "the last frame reads as the summary in text"
    lecture_style(False)
    plain = MemoryGauge(meters=("live",))
    with plain:
        plain.sample()
    assert isinstance(plain.view, gauges._WidgetView), "outside lecture mode a kernel shows the widgets"
    lecture_style(False)
    plain = MemoryGauge(meters=("live",), mode="widget")
    with plain:
        plain.sample()
    assert plain._widgets["cells"]["live"][1].style.font_size is None
    assert "font-size" not in plain.summary()._repr_html_()


def run_python(code, **env):
    environment = {key: value for key, value in os.environ.items() if key != lecture.ENV_VAR}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env={**environment, **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_the_environment_variable_switches_it_on_at_import_and_nothing_is_imported_without_it():
    code = ("import sys, course_utils as cu; print(cu.lecture.is_on(), 'matplotlib' in sys.modules); "
            "import matplotlib.pyplot as plt; figure, ax = plt.subplots(); ax.set_title('x', fontsize=6); "
            "figure.canvas.draw(); print(ax.title.get_fontsize() * figure.dpi / 72)")
    on, imported, px = run_python(code, **{lecture.ENV_VAR: "1", "MPLBACKEND": "Agg"})
    assert (on, imported) == ("True", "True") and float(px) >= lecture.MIN_PX
    assert run_python(code, MPLBACKEND="Agg")[:2] == ["False", "False"], "without it, import course_utils stays light"


def test_the_venv_gets_jupyterlab_settings_that_switch_off_the_news_pop_up_and_let_slides_scroll():
    overrides = json.loads((ROOT / "tools" / "jupyterlab_overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"] == {"fetchNews": "false", "checkForUpdates": False}
    assert overrides["jupyterlab-rise:plugin"]["scroll"] is True, "RISE's safety net: a slide taller than the window scrolls"
    # the names must be JupyterLab's (and jupyterlab-rise's) own, or the override does nothing
    for plugin, schema in (("@jupyterlab/apputils-extension:notification",
                            "lab/schemas/@jupyterlab/apputils-extension/notification.json"),
                           ("jupyterlab-rise:plugin", "labextensions/jupyterlab-rise/schemas/jupyterlab-rise/plugin.json")):
        properties = json.loads((Path(sys.prefix) / "share/jupyter" / schema).read_text())["properties"]
        assert set(overrides[plugin]) <= set(properties), f"{plugin}: {set(overrides[plugin]) - set(properties)}"
    recipe = (ROOT / "Makefile").read_text().split("$(STAMP): pyproject.toml", 1)[1].split("\n\n", 1)[0]
    assert "tools/jupyterlab_overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json" in recipe


def test_on_a_slide_a_budgeted_bar_is_scaled_to_the_run_and_the_budget_share_is_in_the_status(lecturing):
    gauge, kept = MemoryGauge(meters=("live",), budget=20_000_000, mode="widget"), []
    for _ in gauge.track(range(3)):
        kept.append(torch.zeros(250))
    bar = gauge._widgets["cells"]["live"][0]
    assert bar.max == gauges._nice_ceiling(gauge.live.peak) and bar.value / bar.max > 0.1, (
        f"the bar shows {bar.value} of {bar.max}: growth of a few kB must be visible, not 0 % of 20 MB")
    assert "budget 20.0 MB (0% used)" in gauge.model.status_line()


def test_gauges_shown_twice_by_one_cell_run_get_numbered_titles(monkeypatch):
    class Shell:
        execution_count = 7

    monkeypatch.setattr(gauges, "_in_kernel", lambda: True)
    monkeypatch.setattr(gauges, "_titles_shown", {})
    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell)
    assert [gauges._unique_title("keeps x") for _ in range(3)] == ["keeps x", "keeps x (2)", "keeps x (3)"]
    Shell.execution_count = 8
    assert gauges._unique_title("keeps x") == "keeps x", "a new cell run starts the count again"
