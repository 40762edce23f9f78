"""The lecture fits a projector: data/slide_fit.json, measured in chromium by `python -m tools.slide_fit
--record` (tests/test_generated.py checks it is current) says that no slide of
the lecture path is cut off at 1280x720 or 1920x1080, that no text on a slide is under 24 px, and that every graph's
labels are at least 16 px as the room sees them: on the slide, or where a slide draws a graph smaller, in the view a
click enlarges it to (autograd_memory.views.zoom; the recording clicks it, reads the labels and closes it).

Reading the record keeps this out of the browser (measuring the path takes minutes); tests/browser/test_projector.py
measures notebook 04 live, so the record's measurement itself stays tested.
"""
import pytest

from tools import slide_fit_record as record
from tools.course import load
from tools.lecture_edition import condensed_summary

MIN_TEXT_PX = 24
MIN_GRAPH_PX = 16  # the plots' floor in lecture style (autograd_memory.formats.display_settings.MIN_PX)
RE_RECORD = "run `python -m tools.slide_fit --record` (a few minutes) and commit data/slide_fit.json"


@pytest.fixture
def measured(root):
    return record.load(root)


@pytest.mark.parametrize("size", [f"{width}x{height}" for width, height in record.SIZES])
@pytest.mark.parametrize("edition", ["notebooks", "condensed"])
def test_no_slide_of_the_lecture_path_is_cut_off_and_text_reads_at_24_px(measured, size, edition, root):
    assert measured[edition], f"the record has no {edition} edition: " + RE_RECORD
    cut = sum(slides for slides, _ in condensed_summary(load(root)).values())
    for name, found in measured[edition].items():
        if edition == "condensed":  # RISE showed the condensed lecture's slides, one slideshow, as the cut counts them
            assert found[size]["slides"] == cut, f"{name} at {size}: RISE showed {found[size]['slides']} slides, not {cut}"
        else:
            assert found[size]["slides"] >= 8, f"{name} at {size}: RISE showed {found[size]['slides']} slides"
        assert found[size]["cut"] == 0, (
            f"{name} at {size}: {found[size]['cut']} slides taller than the window: {found[size]['cut_ids']}. Split "
            "the tall cell (a sub-slide per part) or size its picture to the slide, then " + RE_RECORD)
        assert found[size]["smallest_text_px"] >= MIN_TEXT_PX, (
            f"{name} at {size}: text of {found[size]['smallest_text_px']} px on a slide ({found[size]['min_px']})")


@pytest.mark.parametrize("size", [f"{width}x{height}" for width, height in record.SIZES])
def test_every_graph_on_the_lecture_path_has_labels_of_16_px_as_shown_or_enlarged(measured, size):
    shown = {name: found[size]["graph_slides"] for name, found in measured["notebooks"].items()}
    assert sum(shown.values()) >= 4, f"graph slides recorded: {shown}; the lecture path draws several (00, 01, 02, 05)"
    for name, found in measured["notebooks"].items():
        if found[size]["graph_slides"]:
            assert found[size]["graph_label_px"] >= MIN_GRAPH_PX, (
                f"{name} at {size}: a graph's labels read at {found[size]['graph_label_px']} px "
                f"({found[size]['zoomed_graphs']} graphs enlarged by a click). Draw it smaller (fewer ranks, shorter "
                "labels) or make a click enlarge it (autograd_memory.views.zoom), then " + RE_RECORD)
