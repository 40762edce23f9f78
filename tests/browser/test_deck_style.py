"""A deck as `make slides` builds it reads like the live slides: text of 24 px or more on every slide at a projector's
1280x720, and a PDF beside it with a page per slide (chromium's print of reveal.js's ``?print-pdf`` view).

The deck is built by tools/handouts.py's ``build_slides`` from a small executed notebook that holds each kind of text
a course slide shows: a heading and prose, code, printed output and an HTML table. Screenshot:
``artifacts/deck_style.png``.
"""
import re

import nbformat
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT

from tools import handouts

MIN_PX = 24
SMALLEST = """() => {
    const scale = Reveal.getScale(), slide = Reveal.getCurrentSlide(), found = [];
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode, element = node.parentElement;
        if (!node.textContent.trim() || !element.getClientRects().length) continue;
        if (element.closest('aside.notes, .jp-InputPrompt, .jp-OutputPrompt')) continue;
        found.push([parseFloat(getComputedStyle(element).fontSize) * scale, node.textContent.trim().slice(0, 30)]);
    }
    return found.sort((a, b) => a[0] - b[0])[0];
}"""


def executed_notebook(path):
    kind = lambda slide_type: {"slideshow": {"slide_type": slide_type}}  # noqa: E731
    table = "<table><tr><th>meter</th><th>bytes</th></tr><tr><td>live</td><td>4,000</td></tr></table>"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 09 · A deck\n\nProse under the title, as a slide shows it.", metadata=kind("slide")),
        nbformat.v4.new_code_cell("print('saved for backward: 4.00 kB')", metadata=kind("slide"), execution_count=1,
                                  outputs=[nbformat.v4.new_output("stream", name="stdout",
                                                                  text="saved for backward: 4.00 kB\n")]),
        nbformat.v4.new_code_cell("table", metadata=kind("subslide"), execution_count=2,
                                  outputs=[nbformat.v4.new_output("execute_result", data={"text/html": table},
                                                                  execution_count=2)]),
        nbformat.v4.new_markdown_cell("**Speaker notes.** Ask first.", metadata=kind("notes"))])
    nbformat.write(nb, path)
    return path


def test_a_decks_text_is_24_px_and_it_prints_a_page_per_slide(tmp_path):
    from playwright.sync_api import sync_playwright

    notebook = executed_notebook(tmp_path / "09_deck.ipynb")
    decks = handouts.build_slides([notebook], tmp_path / "slides", log=lambda line: None)
    deck = tmp_path / "slides" / "09_deck.slides.html"
    smallest = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(deck.as_uri())
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        for _ in range(decks[deck.name]):
            page.wait_for_timeout(300)
            smallest.append(page.evaluate(SMALLEST))
            page.evaluate("() => Reveal.next()")
        page.evaluate("() => Reveal.slide(1, 0)")
        page.wait_for_timeout(800)
        page.screenshot(path=str(ROOT / "artifacts" / "deck_style.png"))
        browser.close()
    small = [(index + 1, px, text) for index, (px, text) in enumerate(smallest) if px < MIN_PX - 0.5]
    assert not small, f"text under {MIN_PX} px on the deck's slides (slide, px, text): {small}"
    pdf = deck.with_suffix(".pdf").read_bytes()
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages == decks[deck.name] == 3, f"the PDF has {pages} pages for the deck's {decks[deck.name]} slides"
