"""The handouts, built as `make slides` and `make site` build them, opened from disk with the network blocked.

One build (every notebook executed once into a temporary folder, then the decks and the site from those
copies) serves every test here. Debian's chromium (driven by Playwright, as in the live gauge's test) opens
the pages from file:// and aborts every request that is not a file: a page that needs the network fails.
Screenshots go to ``artifacts/slides_slide2.png``, ``artifacts/deck_explorer.png`` and ``artifacts/site_page.png``.
"""
import re
import shutil
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT

from course_utils import explorers, format_bytes
from tools import executed, handouts
from tools.course import load

# Sphinx 9 deprecations that sphinx-book-theme and myst-parser trigger while the site builds: theirs, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications")
NOTEBOOKS = load().paths
MIN_SLIDES = 8
DECK = "04_euler_ode_truncation"  # the lecture's centre: the deck whose second slide is screenshotted
SITE_PAGE = "04_euler_ode_truncation"
MATH = "06_which_laplacian"  # a notebook with $...$ formulas
WINDOWS = (1, 10, 60)  # the deck's window explorer (DECK's) is moved to these
# course_utils/explorers/static_html.py's block (the decks' exporter writes its attributes again, in double quotes)
STATIC_EXPLORER = re.compile(r"""class=["']amlab-explorer amlab-static-explorer["']""")
# What the test itself calls an asset from the network: src/href of script, link and img (the builder's own
# check, handouts.check_offline, parses more; this one is independent of it).
REMOTE_ASSET = re.compile(r"""<(?:script|img)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?//"""
                          r"""|<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//""", re.I)


@pytest.fixture(scope="module")
def build(tmp_path_factory, request):
    """The decks and the site, built once into a temporary folder from the executed notebooks: the copies nbval
    wrote while it ran them in this session (tools/executed.py's FromNbval; conftest runs notebooks first), and
    any it did not leave executed here, as `make slides` would."""
    folder = tmp_path_factory.mktemp("handouts")
    in_session = {Path(str(item.path)) for item in request.session.items}
    executed.wait_for_nbval([notebook for notebook in NOTEBOOKS if notebook in in_session])
    executed.execute(ROOT / "build", NOTEBOOKS)
    shutil.copytree(ROOT / "build" / "executed", folder / "executed", ignore=shutil.ignore_patterns("*.log", "*.partial"))
    copies = [folder / "executed" / notebook.name for notebook in NOTEBOOKS]
    handouts.build_slides(copies, folder / "slides")
    handouts.build_site(copies, folder / "site")
    return folder


@pytest.fixture(scope="module")
def browser():
    """``open(path) -> (page, requests it tried off the disk)`` in one headless chromium for the module."""
    assert Path(CHROMIUM).exists(), (
        f"{CHROMIUM} is missing: the browser tests need Debian's chromium. `make test` installs it "
        "(or run: sudo apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    (ROOT / "artifacts").mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        context = chromium.new_context(viewport={"width": 1280, "height": 800})
        tried = []
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                      else (tried.append(route.request.url), route.abort()))

        def open_page(path, wait_for="load"):
            tried.clear()
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(path.as_uri(), wait_until=wait_for)
            return page, tried, errors
        yield open_page
        chromium.close()


def deck_path(build, stem):
    return build / "slides" / f"{stem}.slides.html"


def test_one_deck_per_notebook_each_with_enough_slides(build):
    decks = sorted(path.name for path in (build / "slides").glob("*.slides.html"))
    assert decks == [f"{notebook.stem}.slides.html" for notebook in NOTEBOOKS]
    index = (build / "slides" / "index.html").read_text()
    assert all(f'href="{deck}"' in index for deck in decks), "build/slides/index.html must link every deck"
    counts = {deck: handouts.slide_count((build / "slides" / deck).read_text()) for deck in decks}
    short = {deck: count for deck, count in counts.items() if count < MIN_SLIDES}
    assert not short, (f"decks with fewer than {MIN_SLIDES} slides: {short} (all: {counts}); give the notebook's "
                       "cells slideshow metadata (tests/test_slide_metadata.py says how)")


def test_no_page_loads_anything_from_the_network(build):
    pages = [*(build / "slides").glob("*.html"), *(path for path in (build / "site").rglob("*.html")
                                                   if "_static" not in path.parts)]
    assert len(pages) >= 2 * len(NOTEBOOKS) + 2
    remote = {str(path.relative_to(build)): REMOTE_ASSET.findall(path.read_text()) for path in pages}
    assert not {path: found for path, found in remote.items() if found}, remote


def test_widgets_show_their_static_summary(build):
    for page in (deck_path(build, DECK), build / "site" / f"{SITE_PAGE}.html"):
        text = page.read_text()
        assert handouts.WIDGET_VIEW not in text, f"{page.name} still holds a widget view (blank without a kernel)"
        assert "amlab-gauge-summary" in text, f"{page.name} lacks the gauges' static summary tables"


def explorer_cells(notebook):
    """How many code cells of ``notebook`` display an explorer: a line that calls one of ``cu.explorers.PANELS``."""
    calls = tuple(f"cu.explorers.{name}(" for name in explorers.PANELS)
    return sum(any(line.startswith(calls) for line in cell.source.splitlines())
               for cell in nbformat.read(notebook, as_version=4).cells if cell.cell_type == "code")


def test_every_explorer_shows_as_its_static_html_explorer(build):
    wanted = {notebook.stem: explorer_cells(notebook) for notebook in NOTEBOOKS}
    assert sum(wanted.values()) >= len(explorers.PANELS), f"explorer cells found: {wanted}"
    shown = {notebook.stem: [len(STATIC_EXPLORER.findall(page.read_text())) for page in (
        deck_path(build, notebook.stem), build / "site" / f"{notebook.stem}.html")] for notebook in NOTEBOOKS}
    assert shown == {stem: [count, count] for stem, count in wanted.items()}, (
        f"static explorers in each notebook's [deck, site page]: {shown}; explorer cells: {wanted}")


def test_the_explorer_moves_on_its_slide_and_shows_the_measured_reading(build, browser):
    explorer = explorers.euler_window()
    wanted = {k: explorer.update(window=k).peak_saved for k in WINDOWS}
    assert len(set(wanted.values())) == len(WINDOWS), f"the windows' peaks should differ: {wanted}"
    page, tried, errors = browser(deck_path(build, DECK))
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=20_000)
    page.evaluate("""() => { const indices = Reveal.getIndices(document.querySelector('.amlab-static-explorer')
                                                                  .closest('section'));
                             Reveal.configure({transition: 'none'}); Reveal.slide(indices.h, indices.v); }""")
    explorer_slide = page.locator(".reveal section.present .amlab-static-explorer")
    shown = {}
    for k in WINDOWS:
        explorer_slide.locator("input.amlab-explorer-window").fill(str(explorer.controls["window"][1].index(k)))
        peak = explorer_slide.locator(".amlab-explorer-readout .amlab-explorer-peak")
        shown[k] = (explorer_slide.locator("input.amlab-explorer-window ~ output").inner_text(),
                    peak.inner_text(), peak.get_attribute("title"))
        if k == WINDOWS[1]:
            page.screenshot(path=str(ROOT / "artifacts" / "deck_explorer.png"))
    assert shown == {k: (str(k), format_bytes(peak), f"{peak:,} bytes") for k, peak in wanted.items()}, (
        f"the deck's explorer showed {shown}; explorer.update(window=k) measured {wanted}")
    assert not tried and not errors, f"the deck tried the network {tried} or raised {errors}"


def test_slide_2_shows_rendered_text_offline(build, browser):
    path = deck_path(build, DECK)
    page, tried, errors = browser(path)
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=20_000)
    assert page.evaluate("() => Reveal.getTotalSlides()") == handouts.slide_count(path.read_text())
    page.evaluate("() => Reveal.next()")
    page.wait_for_timeout(1000)  # the slide transition
    shown = page.evaluate("() => [Reveal.getIndices(), Reveal.getCurrentSlide().innerText]")
    page.screenshot(path=str(ROOT / "artifacts" / "slides_slide2.png"))
    indices, text = shown
    assert (indices["h"], indices["v"]) != (0, 0), "Reveal.next() did not move off the first slide"
    words = re.findall(r"[A-Za-z]{3,}", text)
    assert len(words) >= 5, f"slide 2 of {path.name} shows almost no text: {text!r}"
    assert not tried and not errors, f"the deck tried the network {tried} or raised {errors}"


def test_formulas_render_offline(build, browser):
    assert re.search(r"\$[^$\n]+\$", (ROOT / "notebooks" / f"{MATH}.ipynb").read_text()), f"{MATH} has no $...$ math"
    for path in (deck_path(build, MATH), build / "site" / f"{MATH}.html"):
        page, tried, errors = browser(path)
        page.wait_for_function("() => document.querySelectorAll('mjx-container svg').length > 0", timeout=20_000)
        failed = page.evaluate("() => document.querySelectorAll('mjx-merror, [data-mjx-error]').length")
        assert not failed and not tried and not errors, (
            f"{path.name}: {failed} formulas failed to typeset; network tried {tried}; errors {errors}")
        page.close()


def link_targets(page):
    """Every link of the page that stays on disk, resolved: ``[(href as written, file URL)]``."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('a[href]'))
        .map(a => [a.getAttribute('href'), a.href]).filter(([raw, url]) => url.startsWith('file:'))""")


def broken(links, ids_of):
    """The links whose file or anchor is missing (a folder is no page: from disk it opens as a bare listing)."""
    missing = []
    for raw, url in links:
        parts = urllib.parse.urlsplit(url)
        target = Path(urllib.parse.unquote(parts.path))
        anchor = urllib.parse.unquote(parts.fragment)
        if not target.is_file() or (anchor and target.suffix == ".html" and anchor not in ids_of(target)):
            missing.append(raw)
    return missing


def figures_made(notebook):
    """How many pictures the executed notebook holds (plots, graph pictures, inline SVG in HTML)."""
    count = 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            count += bool({"image/png", "image/svg+xml", "image/jpeg"} & set(data)) or "<svg" in data.get("text/html", "")
    return count


def test_site_pages_open_offline_with_headings_figures_and_working_links(build, browser):
    site = build / "site"
    ids = {}

    def ids_of(path):
        if path not in ids:
            ids[path] = set(re.findall(r"""\bid=["']([^"']+)""", path.read_text()))
        return ids[path]

    problems = []
    page, tried, errors = browser(site / "index.html")
    toc = page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))")
    problems += [f"index.html does not link {nb.stem}.html" for nb in NOTEBOOKS if f"{nb.stem}.html" not in toc]
    problems += [f"index.html: broken link {href}" for href in broken(link_targets(page), ids_of)]
    problems += [f"index.html tried the network: {tried}"] * bool(tried)
    problems += ["index.html does not link the instructor guide"] * ("instructors.html" not in toc)
    page.close()
    page, tried, errors = browser(site / "instructors.html")
    if "Instructor guide" not in page.locator("article h1").first.inner_text():
        problems.append("instructors.html: the guide's heading is missing")
    problems += [f"instructors.html: broken link {href}" for href in broken(link_targets(page), ids_of)]
    problems += [f"instructors.html tried the network: {tried}"] * bool(tried)
    page.close()
    no_figure = []
    for notebook in NOTEBOOKS:
        copy = nbformat.read(build / "executed" / notebook.name, as_version=4)
        page, tried, errors = browser(site / f"{notebook.stem}.html")
        name = f"{notebook.stem}.html"
        heading = handouts.first_heading(copy)
        title = page.locator("article h1").first.inner_text()
        if heading not in title:
            problems.append(f"{name}: first heading {title!r}, the notebook's is {heading!r}")
        shown = page.evaluate("""() => Array.from(document.querySelectorAll('.cell_output img, .cell_output svg'))
            .filter(e => e.tagName.toLowerCase() === 'svg' ? e.getBoundingClientRect().width > 0
                                                            : e.complete && e.naturalWidth > 0).length""")
        made = figures_made(copy)
        if shown < made:
            problems.append(f"{name}: {shown} rendered figures, the notebook made {made}")
        if not shown:
            no_figure.append(notebook.stem)
        problems += [f"{name}: broken link {href}" for href in broken(link_targets(page), ids_of)]
        problems += [f"{name} tried the network: {tried}"] * bool(tried)
        problems += [f"{name} raised {errors}"] * bool(errors)
        if notebook.stem == SITE_PAGE:
            page.locator(".amlab-gauge-summary").first.scroll_into_view_if_needed()
            page.screenshot(path=str(ROOT / "artifacts" / "site_page.png"))
        page.close()
    assert not problems, "\n".join(problems)
    assert not no_figure, (f"these pages show no figure: {no_figure}; their notebooks make none (no plot, graph "
                           "picture or gauge): the site cannot show one they do not make")
