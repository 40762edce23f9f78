"""The lecture's slides on a projector: notebook 04 executed in lecture mode (as `make present` runs it), shown by
RISE with the course's tools/rise.css and RISE settings, measured slide by slide in chromium at 1280x720
(tests/browser/slide_fit.py): no text under 24 px, and every slide taller than the window can be scrolled.

Slides that do not fit are still counted, not asserted: splitting the tall cells is the notebooks' work (the numbers
per notebook, before and after the stylesheet, are in the pull request of issue 26). Screenshots of the cut slides go
to ``artifacts/projector/``.
"""
import executed
import slide_fit
from test_live_gauge import ROOT

from course_utils import lecture

NOTEBOOK = ROOT / "notebooks" / "04_euler_ode_truncation.ipynb"
MIN_TEXT_PX = 24


def test_lecture_slides_read_at_24_px_and_tall_slides_scroll(tmp_path, free_port, monkeypatch):
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
    assert found["unreachable"] == 0, (
        f"{found['unreachable']} of the cut slides ({found['cut_ids']}) cannot be scrolled: RISE's scroll setting "
        "(tools/jupyterlab_overrides.json) is off")
    print(f"{NOTEBOOK.name} at 1280x720: {found['cut']} of {found['slides']} slides taller than the window, all scroll")
