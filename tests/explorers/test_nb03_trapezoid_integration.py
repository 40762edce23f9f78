"""Notebook 03's explorer (course_utils.explorers.nb03_trapezoid_integration): its readings follow the exact byte law
and an independent meter, and a learner's formula is compared, or its trouble explained, never raised."""
import itertools

import pytest
import torch

from course_utils import GraphMemory, LiveTensors
from course_utils.explorers import nb03_trapezoid_integration as explorers
from course_utils.problems.integrate import ScalarNet, activation_bytes, grid

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tiny tensors: a second thread only contends for the cores


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
