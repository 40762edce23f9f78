"""Every slide of a notebook in RISE, measured in chromium: is anything cut off, and how small is the text?

    python -m tools.slide_fit build/executed/04_euler_ode_truncation.ipynb   # at 1280x720 and 1920x1080
    python -m tools.slide_fit NB... --bare        # RISE as it comes (the "before")
    python -m tools.slide_fit NB... --sizes 1280x720 --json out.json --shots artifacts/fit [--every]
    python -m tools.slide_fit --record   # the lecture path, run in lecture mode, into data/slide_fit.json (make measure)

Serves the notebooks (executed copies, so that their outputs are on the slides: ``python -m tools.executed``) with
a fresh JupyterLab, opens RISE's page ``/rise/<notebook>`` in Debian's chromium at each window size, visits every
(sub)slide by its URL hash ``#/h/v`` and reads the page:

* ``boxes``: each shown cell's top and bottom in px (which cell to split or to move to a sub-slide);
* ``cut``: the slide's text or pictures reach below the window's bottom by ``overflow`` px (with every fragment
  shown); ``reachable``: the slide scrolls (RISE's ``scroll`` setting), so the lecturer can still bring it into view;
* ``wide``: a code line or a printed line longer than its box (it scrolls sideways inside the cell);
* ``min_px``: the smallest text per kind (``code``, ``prose``, ``table``, ``output``), prompts left out; pictures
  are not text: ``img_scale`` is the smallest shown/natural width of a picture on the slide and ``svg_label_px`` the
  smallest label of an SVG picture (a graph, a plot) as shown;
* ``graph_label_px``: the smallest label of a graph (graphviz's SVG: ``show_graph``'s, torchviz's) as the room can
  read it: as shown, or, where a graph is shown with labels under ``MIN_PX`` (16 px) and a click enlarges it
  (autograd_memory.views.zoom), as the enlarged view shows it: the test clicks it, reads the labels and closes it with Esc.

By default the notebooks' folder gets the course's ``tools/rise.css`` and RISE the settings of
``tools/jupyterlab_overrides.json``, as ``make present`` gives them; ``--bare`` leaves both out. ``--record`` runs the
lecture path's notebooks in lecture mode (``AMLAB_LECTURE=1``, as ``make present`` does) and writes what the test suite
checks (tools/slide_fit_record.py): run it after changing a lecture notebook or tools/rise.css.
"""
import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from autograd_memory import display_settings
from tools import slide_fit_record
from tools.course import ROOT
from tools.lab_server import CHROMIUM, CHROMIUM_FLAGS, LAB_SETTINGS, Lab

STYLESHEET = ROOT / "tools" / "rise.css"
RISE_SETTINGS = "jupyterlab-rise/plugin.jupyterlab-settings"  # RISE's settings in tools/jupyterlab_overrides.json

MEASURE = """() => {
    const W = window.innerWidth, H = window.innerHeight;
    const slide = document.querySelector('.reveal .slides > section.present > section.present');
    if (!slide) return null;
    const cells = Array.from(slide.querySelectorAll('.jp-Cell'))
        .filter(c => !c.classList.contains('reveal-skip') && !c.closest('aside.notes'));
    slide.querySelectorAll('.fragment').forEach(f => f.classList.add('visible'));  // as at its last fragment
    let bottom = 0, right = 0;  // of what is drawn: text, pictures, the gauges' bars (not the cells' padding)
    const ink = box => {
        if (box.width === 0 || box.height === 0) return;
        bottom = Math.max(bottom, box.bottom); right = Math.max(right, box.right);
    };
    const style = getComputedStyle(slide);
    const scrolls = /(auto|scroll)/.test(style.overflowY) && slide.scrollHeight > slide.clientHeight + 1;
    const kind = el => el.closest('.jp-InputPrompt, .jp-OutputPrompt') ? 'prompt'
        : el.closest('table') ? 'table'
        : el.closest('.cm-content') ? 'code'
        : el.closest('.jp-OutputArea') ? 'output'
        : el.closest('.jp-MarkdownCell') ? 'prose' : 'other';
    const minPx = {};
    const smallest = {};
    for (const cell of cells) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);  // (SVG text: svg_label_px)
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const el = node.parentElement;
            if (!node.textContent.trim() || !el || el.closest('svg') || el.getClientRects().length === 0) continue;
            const css = getComputedStyle(el);
            if (css.visibility === 'hidden' || el.closest('[style*="display: none"], .lm-mod-hidden')) continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            if (!el.closest('.cm-scroller')) ink(range.getBoundingClientRect());  // a code line's box is its scroller's
            const px = parseFloat(css.fontSize), k = kind(el);
            if (!(k in minPx) || px < minPx[k]) { minPx[k] = px; smallest[k] = node.textContent.trim().slice(0, 40); }
        }
        cell.querySelectorAll('img, svg, .cm-scroller, progress').forEach(el => {
            if (el.getClientRects().length && !el.closest('.lm-mod-hidden')) ink(el.getBoundingClientRect());
        });
    }
    const wide = Array.from(slide.querySelectorAll('.cm-scroller, .jp-OutputArea-output pre'))
        .filter(el => !el.closest('aside.notes') && !el.closest('.reveal-skip') && el.scrollWidth > el.clientWidth + 1).length;
    let imgScale = null, svgLabel = null;
    const graphs = [];  // graphviz pictures (show_graph's, torchviz's): their smallest label as shown, and its zoom
    const zoomable = Array.from(slide.querySelectorAll('.jp-OutputArea .amlab-zoomable'));
    for (const img of slide.querySelectorAll('.jp-OutputArea img')) {
        if (img.closest('.reveal-skip') || !img.naturalWidth) continue;
        const shown = img.getBoundingClientRect().width;
        if (img.src.startsWith('data:image/svg+xml')) {
            const text = img.src.includes('base64,') ? atob(img.src.split('base64,')[1])
                : decodeURIComponent(img.src.split(',').slice(1).join(','));
            const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
            const viewWidth = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width || img.naturalWidth;
            const sizes = Array.from(svg.querySelectorAll('text')).map(t => parseFloat(t.getAttribute('font-size') || '14'));
            if (sizes.length) {
                const px = Math.min(...sizes) * shown / viewWidth;
                svgLabel = svgLabel === null ? px : Math.min(svgLabel, px);
                if (svg.querySelector('g.graph')) graphs.push({px, zoom: null});
            }
        } else {
            const scale = shown / img.naturalWidth;
            imgScale = imgScale === null ? scale : Math.min(imgScale, scale);
        }
    }
    for (const svg of slide.querySelectorAll('.jp-OutputArea svg')) {  // inline SVG (a graph in HTML)
        if (svg.closest('.reveal-skip') || !svg.getClientRects().length) continue;
        let smallest = null;
        for (const text of svg.querySelectorAll('text')) {
            const ctm = text.getScreenCTM();
            if (!ctm || !text.getClientRects().length) continue;
            const px = parseFloat(text.getAttribute('font-size') || getComputedStyle(text).fontSize) * Math.hypot(ctm.a, ctm.b);
            smallest = smallest === null ? px : Math.min(smallest, px);
        }
        if (smallest === null) continue;
        svgLabel = svgLabel === null ? smallest : Math.min(svgLabel, smallest);
        const picture = svg.closest('.amlab-zoomable');  // zoom: its index among the slide's zoomable pictures
        if (svg.querySelector(':scope > g.graph')) graphs.push({px: smallest, zoom: picture && zoomable.indexOf(picture)});
    }
    // cut: drawn below the window's bottom (a line too wide wraps, or scrolls in its cell: ``wide``)
    const boxes = cells.map(c => { const r = c.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; });
    return {id: slide.id, cells: cells.length, boxes, overflow: Math.round(Math.max(bottom - H, 0)),
            right_overflow: Math.round(Math.max(right - W, 0)), cut: bottom > H + 1, reachable: scrolls, wide,
            min_px: minPx, smallest, img_scale: imgScale, svg_label_px: svgLabel, graphs};
}"""


# the smallest label of the SVG pictures in an element, as shown, in px; and where the slideshow is
LABEL_PX = """element => Math.min(...Array.from(element.querySelectorAll('svg text'), text => {
    const ctm = text.getScreenCTM();
    return parseFloat(getComputedStyle(text).fontSize) * Math.hypot(ctm.a, ctm.b);
}))"""
PRESENT = ".reveal .slides > section.present > section.present"  # RISE's slide in view
WHERE = "() => [location.hash, Boolean(document.querySelector('.reveal.overview'))]"


def zoomed_label_px(page, picture, shot=None):
    """Click ``picture`` (a locator of a graph's ``.amlab-zoomable`` block), read the smallest label of the enlarged
    view in px (to 0.1 px: sub-pixel layout is noise), screenshot it to ``shot``, and close it with Esc: None if no
    enlarged view opened. Raises if Esc left the view open or moved the slideshow (another slide, reveal's overview)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    where = page.evaluate(WHERE)
    picture.locator("svg").first.click()
    try:
        page.wait_for_selector(".amlab-zoom", timeout=5_000)
    except PlaywrightTimeout:
        return None
    px = round(page.locator(".amlab-zoom").evaluate(LABEL_PX), 1)
    if shot is not None:
        page.screenshot(path=str(shot))
    page.keyboard.press("Escape")
    page.wait_for_selector(".amlab-zoom", state="detached", timeout=5_000)
    after = page.evaluate(WHERE)
    assert after == where, f"closing the enlarged graph moved the slideshow from {where} to {after}"
    return px


def measure_notebook(page, lab, name, shots=None, tag="", every=False):
    """Open ``name``'s slideshow on ``page`` and measure every (sub)slide; return the list of measurements. With
    ``shots`` (a folder), a screenshot of each cut slide and each slide with a graph (``every``: of every slide)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(f"{lab.base}/rise/{name}?token={lab.token}")
    page.wait_for_selector(".reveal.ready .slides > section.present > section.present", timeout=120_000)
    page.wait_for_timeout(1500)
    ids = page.evaluate("() => Array.from(document.querySelectorAll('.reveal .slides > section > section'))"
                        ".filter(s => s.querySelector('.jp-Cell:not(.reveal-skip)')).map(s => s.id)")
    slides = []
    for slide_id in ids:
        _, h, v = slide_id.split("-")
        for attempt in (1, 2):  # on a loaded machine reveal may miss a hash change: set it once more
            page.evaluate(f"() => {{ location.hash = '#/{h}/{v}'; }}")
            try:
                page.wait_for_selector(f".reveal .slides > section.present > section.present#{slide_id}",
                                       timeout=20_000 * attempt)
                break
            except PlaywrightTimeout:
                if attempt == 2:
                    raise
        # RISE's setScrollingSlide and reveal's layout run on slidechanged: measure after the next two frames
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        found = page.evaluate(MEASURE)
        for graph in found["graphs"]:  # a graph drawn with labels too small to read: read it as a click enlarges it
            graph["px"] = round(graph["px"], 1)
            if graph["zoom"] is not None and graph["px"] < display_settings.MIN_PX:
                pictures = page.locator(f"{PRESENT} .jp-OutputArea .amlab-zoomable")
                shot = shots and shots / f"{Path(name).stem}_{tag}_{slide_id}_zoom{graph['zoom']}.png"
                graph["zoomed_px"] = zoomed_label_px(page, pictures.nth(graph["zoom"]), shot)
        labels = [graph.get("zoomed_px") or graph["px"] for graph in found["graphs"]]
        found["graph_label_px"] = min(labels) if labels else None
        slides.append(found)
        if shots is not None and (every or found["cut"] or found["graphs"]):
            page.screenshot(path=str(shots / f"{Path(name).stem}_{tag}_{slide_id}.png"))
    return slides


def summary(slides):
    """Counts and extremes of one notebook's measurements at one size."""
    kinds = {}
    for slide in slides:
        for kind, px in slide["min_px"].items():
            if kind != "prompt":
                kinds[kind] = min(px, kinds.get(kind, px))
    labels = [s["svg_label_px"] for s in slides if s["svg_label_px"] is not None]
    graphs = [s["graph_label_px"] for s in slides if s["graph_label_px"] is not None]
    scales = [s["img_scale"] for s in slides if s["img_scale"] is not None]
    return {"slides": len(slides), "cut": sum(s["cut"] for s in slides),
            "unreachable": sum(s["cut"] and not s["reachable"] for s in slides),
            "wide": sum(bool(s["wide"]) for s in slides), "min_px": kinds,
            "smallest_text_px": min(kinds.values()) if kinds else None,
            "svg_label_px": min(labels) if labels else None, "img_scale": min(scales) if scales else None,
            "graph_slides": len(graphs), "graph_label_px": min(graphs) if graphs else None,
            "zoomed_graphs": sum(graph.get("zoomed_px") is not None for s in slides for graph in s["graphs"]),
            "cut_ids": [f"{s['id']} (+{s['overflow']} px)" for s in slides if s["cut"]]}


def unexecuted(nb):
    """The shown code cells of ``nb`` that have not run (no execution count): a slideshow of them measures nothing
    of what the room sees (the outputs are most of a slide's height).

    >>> import nbformat
    >>> shown = nbformat.v4.new_code_cell("1 + 1", metadata={"slideshow": {"slide_type": "slide"}})
    >>> ran = dict(shown, execution_count=1)
    >>> unexecuted(nbformat.v4.new_notebook(cells=[shown])), unexecuted(nbformat.v4.new_notebook(cells=[ran]))
    ([0], [])
    """
    return [i for i, cell in enumerate(nb.cells) if cell["cell_type"] == "code" and cell.get("execution_count") is None
            and cell.get("metadata", {}).get("slideshow", {}).get("slide_type") not in ("skip", "notes")]


def measure(notebooks, folder, port, sizes=slide_fit_record.SIZES, bare=False, shots=None, every=False):
    """``{notebook: {"WxH": summary}}`` for the notebooks (paths, each fully executed: a notebook with a shown cell
    that has not run is refused), served from ``folder`` (a temporary folder)."""
    import nbformat
    from nbformat.sign import NotebookNotary
    from playwright.sync_api import sync_playwright

    (folder / "notebooks").mkdir(parents=True)
    for notebook in notebooks:  # trusted, as a notebook run in the lecture is: its HTML outputs' SVG is drawn
        nb = nbformat.read(notebook, as_version=4)
        if unexecuted(nb):
            raise SystemExit(f"{notebook}: cells {unexecuted(nb)[:8]} are shown on slides but have not run: measure "
                             "an executed copy (python -m tools.executed, or --record, which runs them)")
        NotebookNotary().sign(nb)
        nbformat.write(nb, folder / "notebooks" / Path(notebook).name)
    settings = dict(LAB_SETTINGS)
    if bare:
        settings.pop(RISE_SETTINGS, None)
    else:
        shutil.copy(STYLESHEET, folder / "notebooks" / "rise.css")
    lab = Lab(folder, port, lab_settings=settings)
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    results = {}
    try:
        lab.wait_until_up()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            try:
                for width, height in sizes:
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.set_default_timeout(60_000)
                    for notebook in notebooks:
                        name = Path(notebook).name
                        tag = f"{width}x{height}_{'bare' if bare else 'course'}"
                        slides = measure_notebook(page, lab, name, shots, tag, every)
                        results.setdefault(name, {})[f"{width}x{height}"] = {**summary(slides), "per_slide": slides}
                    page.close()
            finally:
                browser.close()
    finally:
        lab.stop()
    return results


def record(port):
    """Run the lecture path in lecture mode, measure it at both sizes and write tools/slide_fit_record.py's record."""
    import os
    import tempfile

    from course_utils import lecture
    from tools import executed
    from tools.course import load
    from tools.lecture_edition import LECTURE, condensed_lecture_text

    os.environ[lecture.ENV_VAR] = "1"  # the kernels nbclient starts inherit it, as make present's kernels do
    course = load()
    with tempfile.TemporaryDirectory() as folder:
        copies = executed.execute(Path(folder) / "build", course.lecture_notebooks())
        condensed = Path(folder) / "condensed" / LECTURE  # the condensed lecture, one notebook of the executed copies
        condensed.parent.mkdir()
        executed_copies = {Path(copy).name: Path(copy) for copy in copies}
        condensed.write_text(condensed_lecture_text(course, [executed_copies[path.name] for path in course.live_notebooks()]))
        results = measure(copies, Path(folder) / "lab", port)
        results_condensed = measure([condensed], Path(folder) / "lab-condensed", port)
    path = ROOT / slide_fit_record.RECORD
    made = slide_fit_record.make(results, "python -m tools.slide_fit --record", condensed=results_condensed)
    path.write_text(json.dumps(made, indent=1) + "\n")
    print(f"[slide_fit] wrote {path.relative_to(ROOT)}")
    return results


def main(argv=None):
    import socket
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--record", action="store_true", help="measure the lecture path into data/slide_fit.json")
    parser.add_argument("--bare", action="store_true", help="RISE as it comes: no rise.css, no RISE settings")
    parser.add_argument("--sizes", default="1280x720,1920x1080")
    parser.add_argument("--json", type=Path, help="write every measurement here")
    parser.add_argument("--shots", type=Path, help="a screenshot of every cut slide, every slide with a graph and each "
                        "graph enlarged by a click, in this folder")
    parser.add_argument("--every", action="store_true", help="with --shots: a screenshot of every slide")
    args = parser.parse_args(argv)
    if bool(args.notebooks) == args.record:
        parser.error("name executed notebooks to measure, or --record (the lecture path, executed here)")
    sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes.split(",")]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.monotonic()
    if args.record:
        results = record(port)
    else:
        with tempfile.TemporaryDirectory() as folder:
            results = measure(args.notebooks, Path(folder), port, sizes, args.bare, args.shots, args.every)
    for name, by_size in results.items():
        for size, found in by_size.items():
            print(f"{name} {size}: {found['slides']} slides, {found['cut']} cut ({found['unreachable']} unreachable), "
                  f"{found['wide']} with a wide line; smallest text {found['smallest_text_px']} px {found['min_px']}; "
                  f"SVG labels {found['svg_label_px']} px; {found['graph_slides']} slides with a graph, its labels "
                  f">= {found['graph_label_px']} px as shown or enlarged ({found['zoomed_graphs']} enlarged); "
                  f"pictures at >= {found['img_scale']} of their size; "
                  f"cut: {', '.join(found['cut_ids'])}")
    print(f"[slide_fit] {time.monotonic() - start:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
