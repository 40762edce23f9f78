"""What every explorer shares (course_utils.explorers.panel): the widget re-measures when a control changes, and a
setting that cannot be measured says so in the panel. The package finds every notebook's explorer and its panels."""
import pathlib

import pytest

from course_utils import explorers
from course_utils.explorers import trapezoid
from course_utils.explorers.panel import Explorer

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tiny tensors: a second thread only contends for the cores


def test_the_widget_recomputes_when_a_control_changes():
    explorer = trapezoid()
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

    explorer = Explorer("test", {"size": ("size", (1, 2), 1)}, compute, cap="size <= 2")
    left, readout = explorer.widget().children
    size, status = left.children[1], left.children[2]
    size.value = 2
    assert calls == [1, 2] and "MemoryError: too big" in status.value and readout.value == "<b>ok</b>"
    assert explorer.settings == {"size": 1}, "the reading shown still belongs to the settings recorded"


def test_its_display_carries_the_static_explorer_of_its_grid_for_pages_without_widgets():
    calls = []

    class Reading:
        def __init__(self, size):
            self.size = size

        def text(self):
            return f"size {self.size}"

        def html(self):
            return f"<b class='amlab-explorer-size'>{self.size}</b>"

    def compute(size):
        calls.append(size)
        return Reading(size)

    explorer = Explorer("test", {"size": ("size", (1, 2, 3), 2)}, compute, cap="size <= 3", grid={"size": (1, 3)})
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["text/plain"] == "size 2"
    page = bundle["text/html"]
    assert calls == [2, 1, 3], "the grid's settings are measured by the explorer's own compute function"
    assert '"1": "<b' in page and '"3": "<b' in page and '"2": "<b' not in page, "one frame per setting of the grid"
    assert "2 settings measured in the kernel (a grid of size 1, 3 of 3;" in page, "the page says what it measured"
    assert explorer.settings == {"size": 2} and explorer.reading.size == 2, "the panel keeps its own reading"


def test_the_package_finds_every_notebooks_explorer_and_its_panels():
    folder = pathlib.Path(explorers.__file__).parent
    assert list(explorers.NOTEBOOK_EXPLORERS) == sorted(path.stem for path in folder.glob("nb[0-9][0-9]_*.py"))
    with_panels = {function.__module__.rpartition(".")[2] for function in explorers.PANELS.values()}
    assert with_panels == set(explorers.NOTEBOOK_EXPLORERS), "every notebook's module has a function -> Explorer"
    assert explorers.trapezoid is explorers.nb03_trapezoid_integration.trapezoid and "VARIANTS" in explorers.__all__
