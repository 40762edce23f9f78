"""A graph too big for its slide opens, on a click, at a size whose labels can be read: on a RISE slide and in a deck.

Notebook 01's MLP graph (16 nodes, 10 ranks) does not fit a 1280x720 slide with labels of 16 px, so the slide draws
it smaller and a click shows it over the window (autograd_memory.views.zoom). Here a notebook that draws it is executed
twice: in lecture mode, as `make present` runs it, and shown by RISE with the course's tools/rise.css (measured by
tools/slide_fit.py, which clicks every graph drawn with labels under 16 px, reads the enlarged view's labels
and closes it with Esc); and as `make slides` runs it, then built into an offline deck (tools/handouts.py) and
clicked the same way. Both: the labels are under 16 px on the slide, at least 16 px enlarged, and Esc closes the
view and leaves the slideshow on its slide (slide_fit.zoomed_label_px checks that). Screenshots of the enlarged
views go to ``artifacts/graph_zoom/``.
"""
import nbformat
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT

from course_utils import lecture
from tools import executed, handouts, slide_fit

MIN_PX = 16
SHOTS = ROOT / "artifacts" / "graph_zoom"
SET_UP = """import torch
import course_utils as cu

model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16),
                            torch.nn.Tanh(), torch.nn.Linear(16, 1))
params = dict(model.named_parameters())
loss = model(torch.randn(32, 2)).pow(2).mean()"""


def graph_notebook(folder):
    """``folder/graph_zoom.ipynb``: a title slide, a hidden set-up cell, and 01's MLP graph on a slide of its own."""
    cells = [nbformat.v4.new_markdown_cell("# A graph on a slide"), nbformat.v4.new_code_cell(SET_UP),
             nbformat.v4.new_code_cell("cu.show_graph(loss, params)")]
    for cell, slide_type in zip(cells, ("slide", "skip", "slide")):
        cell.metadata["slideshow"] = {"slide_type": slide_type}
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": executed.KERNEL, "language": "python",
                                                                        "display_name": "Autograd Memory Lab"}})
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "graph_zoom.ipynb")
    return folder / "graph_zoom.ipynb"


def run(tmp_path, monkeypatch, lecture_mode):
    """The notebook executed (in lecture mode or as the handouts run it) into ``tmp_path/run``."""
    if lecture_mode:
        monkeypatch.setenv(lecture.ENV_VAR, "1")  # the kernel nbclient starts inherits it, as make present's kernels do
    else:
        monkeypatch.delenv(lecture.ENV_VAR, raising=False)
    notebook = graph_notebook(tmp_path / "source")
    (tmp_path / "run").mkdir()
    executed.run_one(notebook, tmp_path / "run" / notebook.name)
    return tmp_path / "run" / notebook.name


def test_a_click_enlarges_a_graph_on_a_rise_slide_to_labels_of_16_px(tmp_path, free_port, monkeypatch):
    copy = run(tmp_path, monkeypatch, lecture_mode=True)
    slides = slide_fit.measure([copy], tmp_path / "lab", free_port, sizes=[(1280, 720)],
                               shots=SHOTS)[copy.name]["1280x720"]["per_slide"]
    [graph] = [graph for slide in slides for graph in slide["graphs"]]
    assert graph["zoom"] is not None and graph["px"] < MIN_PX, (
        f"the graph should be drawn smaller than its size on a 1280x720 slide (that is what the zoom is for): {graph}")
    assert graph["zoomed_px"] is not None, f"a click on the graph (labels of {graph['px']} px) opened no enlarged view"
    assert graph["zoomed_px"] >= MIN_PX, f"the enlarged graph's labels are {graph['zoomed_px']} px"


def test_a_click_enlarges_a_graph_in_an_offline_deck_to_labels_of_16_px(tmp_path, monkeypatch):
    from playwright.sync_api import sync_playwright

    copy = run(tmp_path, monkeypatch, lecture_mode=False)
    handouts.build_slides([copy], tmp_path / "slides", log=lambda line: None)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto((tmp_path / "slides" / "graph_zoom.slides.html").as_uri())
            page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=20_000)
            page.evaluate("() => { Reveal.configure({transition: 'none'}); Reveal.next(); }")
            picture = page.locator(".reveal section.present .amlab-zoomable")
            shown = picture.evaluate(slide_fit.LABEL_PX)
            zoomed = slide_fit.zoomed_label_px(page, picture, SHOTS / "deck_zoom.png")
        finally:
            browser.close()
    assert shown < MIN_PX, f"the deck draws the graph with labels of {shown:.1f} px at 1280x720: nothing to enlarge"
    assert zoomed is not None, f"a click on the deck's graph (labels of {shown:.1f} px) opened no enlarged view"
    assert zoomed >= MIN_PX, f"the deck's enlarged graph has labels of {zoomed} px"

