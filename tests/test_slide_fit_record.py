"""The lecture fits a projector: data/slide_fit.json, measured in chromium by `python tests/browser/slide_fit.py
--record`, is current (the lecture-path notebooks and tools/rise.css are the ones it measured) and says that no slide of
the lecture path is cut off at 1280x720 or 1920x1080, and that no text on a slide is under 24 px.

Reading the record keeps this out of the browser (measuring the path takes minutes); tests/browser/test_projector.py
measures notebook 04 live, so the record's measurement itself stays tested.
"""
import pytest

import slide_fit_record as record

MIN_TEXT_PX = 24
RE_RECORD = "run `python tests/browser/slide_fit.py --record` (a few minutes) and commit data/slide_fit.json"


@pytest.fixture
def measured(root):
    return record.load(root)


def test_the_record_is_current(measured, root):
    changed = record.stale(measured, root)
    assert not changed, f"data/slide_fit.json measured other slides: {'; '.join(changed)}. {RE_RECORD}"


@pytest.mark.parametrize("size", [f"{width}x{height}" for width, height in record.SIZES])
def test_no_slide_of_the_lecture_path_is_cut_off_and_text_reads_at_24_px(measured, size):
    for name, found in measured["notebooks"].items():
        assert found[size]["slides"] >= 8, f"{name} at {size}: RISE showed {found[size]['slides']} slides"
        assert found[size]["cut"] == 0, (
            f"{name} at {size}: {found[size]['cut']} slides taller than the window: {found[size]['cut_ids']}. Split "
            "the tall cell (a sub-slide per part) or size its picture to the slide, then " + RE_RECORD)
        assert found[size]["smallest_text_px"] >= MIN_TEXT_PX, (
            f"{name} at {size}: text of {found[size]['smallest_text_px']} px on a slide ({found[size]['min_px']})")
