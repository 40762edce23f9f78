"""Each explorer's compute function over a grid of settings, against independent meter readings (03: the exact byte law)."""
import gc
import itertools
import warnings

import pytest
import torch

from course_utils import GraphMemory, LiveTensors, explorers, laplacians, pinn
from course_utils.checks.nb04_euler_ode_truncation import DT, euler_problem
from course_utils.integrate import ScalarNet, activation_bytes, grid
from course_utils.models import TanhMLP
from course_utils.ode import full_backprop_gradient, truncated_gradient, window_tradeoff


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny tensors, as in notebooks 03-05: a second thread only contends for a shared machine's cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ---------------------------------------------------------------- 01 graph lifecycle
def forward_and_create_graph_bytes():
    model, batch = explorers._small_model()
    with GraphMemory() as graph, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = model(batch).pow(2).mean()
        forward = graph.bytes
        loss.backward(create_graph=True)
        with_derivative = graph.bytes
        del loss
        for p in model.parameters():
            p.grad = None
    return forward, with_derivative


@pytest.mark.parametrize("variant", list(explorers.VARIANTS))
def test_lifecycle_moments_match_the_meter(variant, nothing_installed):
    forward, with_derivative = forward_and_create_graph_bytes()
    expected = {"backward()": [forward, 0, 0, 0], "backward(retain_graph=True)": [forward, forward, 0, 0],
                "backward(create_graph=True)": [forward, with_derivative, with_derivative, 0]}[variant]
    moments = explorers.lifecycle_moments(variant)
    assert [m.saved for m in moments] == expected
    assert [m.label for m in moments] == list(explorers.VARIANTS[variant])
    assert moments[0].view.table.total_bytes == forward, "the picture after forward shows the bytes the meter read"
    if variant != "backward(create_graph=True)":
        assert moments[1].view.table.total_bytes == moments[1].saved
    assert moments[-1].view is None and moments[-1].live <= moments[0].live, "after del loss there is nothing to draw"
    assert nothing_installed()


def test_lifecycle_explorer_greys_freed_nodes_and_says_why_the_second_backward_fails():
    explorer = explorers.graph_lifecycle()
    after = explorer.update(variant="backward()", moment=2)
    assert after.view.table.freed_count > 0 and "#e0e0e0" in after.view.source, "freed nodes are drawn grey"
    third = explorer.update(moment=3)
    assert "backward through the graph a second time" in third.note
    assert str(explorer).startswith("a second backward() raises") and "after del loss" in explorer.update(moment=4).text()


# ---------------------------------------------------------------- 03 trapezoid
def test_trapezoid_readings_follow_the_byte_law_and_an_independent_meter():
    # one test over the grid: the suite's per-test gc.collect() costs more than a reading
    for points, width, layers in itertools.product((1001, 5001, 20_001), (8, 64, 128), (1, 4)):
        setting = f"{points} points, width {width}, {layers} layers"
        reading = explorers.trapezoid_reading(points, width, layers, formula=lambda n, w, l: activation_bytes(n, w, l))
        assert reading.activations == activation_bytes(points, width, layers) == points * width * layers * 4, setting
        assert reading.formula_error == 0, setting
        net, x = ScalarNet(width, layers), grid(points)
        with LiveTensors() as live, GraphMemory() as graph:
            value = torch.trapezoid(net(x), x)
        assert (reading.saved, reading.peak) == (graph.bytes, live.peak), setting
        del value


@pytest.mark.parametrize("formula, words", [
    (None, "none given"),
    (lambda n, w, l: (_ for _ in ()).throw(NotImplementedError), "not written yet"),
    (lambda n, w, l: 1 / 0, "ZeroDivisionError"),
    (lambda n, w, l: "many", "should return a number"),
])
def test_a_missing_or_broken_formula_is_explained_not_raised(formula, words):
    reading = explorers.trapezoid_reading(1001, 8, 1, formula)
    assert reading.formula_error is None and words in reading.formula_note and words in reading.text()


def test_a_wrong_formula_shows_its_relative_error():
    reading = explorers.trapezoid(lambda n, w, l: n * w * 4).update(points=1001, width=8, layers=4)
    assert reading.formula_error == pytest.approx(-0.75) and "-75.0%" in reading.text()


def test_settings_outside_the_cap_are_refused():
    explorer = explorers.trapezoid()
    with pytest.raises(ValueError, match="outside this explorer's range"):
        explorer.update(points=1_000_001)
    with pytest.raises(ValueError, match="no control"):
        explorer.update(depth=3)


# ---------------------------------------------------------------- 04 Euler window
def test_euler_window_readings_match_window_tradeoff_and_full_backprop():
    explorer = explorers.euler_window()
    field, x0, targets = euler_problem()
    windows = [1, 5, 20, 60]
    table = window_tradeoff(field, x0, targets, DT, windows)
    full = full_backprop_gradient(field, x0, targets, DT)
    errors = []
    for window in windows:
        reading = explorer.update(window=window)
        peak, cosine = table[window]
        assert reading.peak_saved == peak and reading.cosine == pytest.approx(cosine, abs=1e-6)
        truncated = truncated_gradient(field, x0, targets, DT, window)
        assert reading.relative_error == pytest.approx(((truncated - full).norm() / full.norm()).item(), rel=1e-5)
        errors.append(reading.relative_error)
    assert errors[0] > 0.5 and errors[-1] < 1e-6, f"the bias must be plain at k = 1 and gone at k = 60: {errors}"
    assert errors == sorted(errors, reverse=True)


# ---------------------------------------------------------------- Laplacian methods
@pytest.mark.parametrize("method", list(laplacians.METHODS))
def test_laplacian_readings_match_an_independent_live_meter(method):
    for d in (2, 8):
        reading = explorers.laplacian_reading(method, d)
        net = TanhMLP(d + 1, width=explorers.LIVE_WIDTH, hidden_layers=explorers.LIVE_DEPTH)
        points = torch.rand(explorers.LIVE_POINTS, d + 1, generator=torch.Generator().manual_seed(d))
        gc.collect()
        with LiveTensors() as live:
            pinn.residual_loss(net, points, method=laplacians.METHODS[method]).backward()
        assert reading.peak == live.peak, f"d = {d}: the explorer read {reading.peak}, a fresh LiveTensors {live.peak}"
        assert (reading.saved is None) == method.startswith("torch.func"), f"d = {d}"
        assert reading.ms > 0


def test_laplacian_explorer_draws_live_points_over_the_reference_data():
    explorer = explorers.laplacian_methods()
    explorer.update(d=4)
    reading = explorer.update(method="Hutchinson, 1 probe (stochastic)")
    assert reading.reference["options"]["n"] > explorers.LIVE_POINTS, "the lines come from data/laplacian_cpu.json"
    assert set(reading.measured) == {("forward Laplacian (one pass)", 2),
                                     ("forward Laplacian (one pass)", 4), ("Hutchinson, 1 probe (stochastic)", 4)}
    assert reading.html().count("<svg") == 1 and "laplacian_cpu.json" in reading.html()


# ---------------------------------------------------------------- the panel
def test_the_widget_recomputes_when_a_control_changes():
    explorer = explorers.trapezoid()
    panel = explorer.widget()
    left, readout = panel.children
    points = next(child for child in left.children if "amlab-explorer-points" in child._dom_classes)
    assert points.continuous_update is False
    points.value = 5001
    assert explorer.settings["points"] == 5001
    assert f"title='{5001 * 32 * 2 * 4:,} bytes'" in readout.value, "the readout shows the new measurement"


def test_a_setting_that_cannot_be_measured_says_so_in_the_panel():
    calls = []

    class Reading:
        def text(self):
            return "ok"

        def html(self):
            return "<b>ok</b>"

    def compute(size):
        calls.append(size)
        if size == 2:
            raise MemoryError("too big")
        return Reading()

    explorer = explorers.Explorer("test", {"size": ("size", (1, 2), 1)}, compute, cap="size <= 2")
    left, readout = explorer.widget().children
    size, status = left.children[1], left.children[2]
    size.value = 2
    assert calls == [1, 2] and "MemoryError: too big" in status.value and readout.value == "<b>ok</b>"
    assert explorer.settings == {"size": 1}, "the reading shown still belongs to the settings recorded"
