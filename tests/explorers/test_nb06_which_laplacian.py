"""Notebook 06's explorer (course_utils.explorers.nb06_which_laplacian): each method's live reading is what a fresh
LiveTensors reads around the same step, drawn over the shipped reference data."""
import gc

import pytest
import torch

from course_utils import LiveTensors, laplacians, pinn
from course_utils.explorers import nb06_which_laplacian as explorers
from course_utils.explorers.static_html import static_explorer
from course_utils.problems.models import TanhMLP

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tiny tensors: a second thread only contends for the cores


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


def test_a_figure_is_drawn_once_per_method_until_the_next_measurement():
    explorer = explorers.laplacian_methods()  # the forward Laplacian at d = 2, measured
    reading = explorer.reading
    drawn = reading.figure_svg()
    assert reading.figure_svg() is drawn, "nothing was measured since: the same drawing"
    view = static_explorer(explorer, only={"method": (reading.method,), "d": (2, 4)})
    assert len({frame[frame.index("<svg"):] for frame in view.frames.values()}) == 1, (
        "the static explorer's frames of one method share one figure, with every point of the grid")
    assert reading.figure_svg() != drawn, "measured since: d = 4 is a new live point, drawn again"


@pytest.mark.parametrize("device", ["cpu"] + ["cuda"] * torch.cuda.is_available())
def test_the_explorer_measures_the_scaling_tables_step_on_the_tables_device(device):
    """Notebook 06 compares the explorer's peaks with its scaling table's, which runs on the notebook's device."""
    d, methods = 8, {name: laplacians.METHODS[name] for name in ("forward Laplacian (one pass)",)}
    net = TanhMLP(d + 1, width=explorers.LIVE_WIDTH, hidden_layers=explorers.LIVE_DEPTH).to(device)
    points = torch.rand(explorers.LIVE_POINTS, d + 1, generator=torch.Generator().manual_seed(d)).to(device)
    (row,) = laplacians.compare_laplacians(net, points, methods, repeats=1)
    reading = explorers.laplacian_reading(row["method"], d, device=device)
    assert reading.peak == row["peak_bytes"] and reading.saved == row["saved_bytes"]
    panel = explorers.laplacian_methods(device)
    assert panel.update(d=d).peak == row["peak_bytes"], "the panel measures on the device it was given"
