"""The lecture's slides on a projector: notebook 04 executed in lecture mode (as `make present` runs it), shown by
RISE with the course's tools/rise.css and RISE settings, measured slide by slide in chromium at 1280x720
(tools/slide_fit.py): no slide is cut off below the window, and no text is under 24 px.

The whole lecture path, at 1280x720 and 1920x1080, is measured by `python -m tools.slide_fit --record` into
data/slide_fit.json, which tests/test_slide_fit_record.py checks; this test keeps that measurement honest on one
notebook. Screenshots of any cut slide go to ``artifacts/projector/``.
"""
from test_live_gauge import ROOT

from course_utils import lecture
from tools import executed, slide_fit

NOTEBOOK = ROOT / "notebooks" / "04_euler_ode_truncation.ipynb"
MIN_TEXT_PX = 24


def test_lecture_slides_fit_1280x720_and_read_at_24_px(tmp_path, free_port, monkeypatch):
    monkeypatch.setenv(lecture.ENV_VAR, "1")  # the kernel nbclient starts inherits it, as make present's kernels do
    (tmp_path / "run").mkdir()
    copy = tmp_path / "run" / NOTEBOOK.name
    executed.run_one(NOTEBOOK, copy)
    found = slide_fit.measure([copy], tmp_path / "lab", free_port, sizes=[(1280, 720)],
                              shots=ROOT / "artifacts" / "projector")[NOTEBOOK.name]["1280x720"]

    assert found["slides"] >= 20, f"RISE showed {found['slides']} slides of {NOTEBOOK.name}"
    assert found["smallest_text_px"] >= MIN_TEXT_PX, (
        f"the smallest text on a slide is {found['smallest_text_px']} px (by kind: {found['min_px']}); "
        f"tools/rise.css should make every text >= {MIN_TEXT_PX} px")
    assert found["cut"] == 0, (
        f"{found['cut']} of {found['slides']} slides are taller than the window ({found['cut_ids']}; screenshots in "
        "artifacts/projector/): split the tall cell into sub-slides or size its picture to the slide")
