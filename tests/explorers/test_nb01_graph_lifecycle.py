"""Notebook 01's explorer (course_utils.explorers.nb01_graph_lifecycle): each moment of a graph's life reads what an
independent GraphMemory reads, and the picture greys what backward freed."""
import warnings

import pytest

from course_utils import GraphMemory
from course_utils.explorers import nb01_graph_lifecycle as explorers

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tiny tensors: a second thread only contends for the cores


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
