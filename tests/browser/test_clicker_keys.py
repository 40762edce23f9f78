"""A presenter's clicker on an explorer's slide: the keys it sends move the deck, never the explorer.

A clicker sends ArrowRight/ArrowLeft (some PageDown/PageUp, some Space). A deck of three slides, the middle one an
explorer's static HTML (course_utils/explorers/static_html.py, what RISE's slideshow, the decks and the site show),
is built as `make slides` builds its decks (tools/handouts.py's exporter, reveal.js from disk) and opened in Debian's
chromium. On the explorer's slide, with its range input focused (as a click on it leaves it), each key must move the
deck one slide and leave the range input and the readout as they were; the explorer's own visible + button still
moves it one option. Screenshot: ``artifacts/clicker_keys.png``.
"""
import nbformat
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT

from course_utils.explorers import Explorer
from course_utils.explorers.static_html import static_explorer
from tools import handouts

FORWARD, BACK = ("ArrowRight", "PageDown", "Space"), ("ArrowLeft", "PageUp")  # what clickers send
SLIDER = ".amlab-static-explorer input[type=range]"
STATE = """() => ({slide: Reveal.getIndices().h, value: document.querySelector('%s').value,
                   readout: document.querySelector('.amlab-static-explorer .amlab-explorer-readout').textContent,
                   focused: document.activeElement.tagName})""" % SLIDER


class Square:
    def __init__(self, x):
        self.x = x

    def text(self):
        return f"{self.x} squared is {self.x ** 2}"

    def html(self):
        return f"<b>{self.x} squared is {self.x ** 2}</b>"


def deck(folder):
    """The three-slide deck, its middle slide the explorer at x=3 of 1..5, written as `make slides` writes one."""
    explorer = Explorer("Squares", {"x": ("x", (1, 2, 3, 4, 5), 3)}, Square, cap="five values")
    page = nbformat.v4.new_output("display_data", data={"text/html": static_explorer(explorer)._repr_html_()})
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Before", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_code_cell("explorer", outputs=[page], metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell("# After", metadata={"slideshow": {"slide_type": "slide"}})])
    handouts.copy_reveal(folder / "reveal.js")
    html, _ = handouts.slides_exporter().from_notebook_node(nb)
    (folder / "deck.slides.html").write_text(html)
    return folder / "deck.slides.html"


def test_a_clickers_keys_move_the_deck_and_leave_a_focused_explorer_alone(tmp_path):
    from playwright.sync_api import sync_playwright

    path = deck(tmp_path)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(path.as_uri() + "#/1")
        page.wait_for_function("() => window.Reveal && Reveal.isReady() && Reveal.getIndices().h === 1")
        start = page.evaluate(STATE)
        assert start["value"] == "2" and "3 squared is 9" in start["readout"], start
        moves = {}
        for key in FORWARD + BACK:
            page.evaluate("() => Reveal.slide(1)")
            page.locator(SLIDER).focus()
            assert page.evaluate(STATE)["focused"] == "INPUT", "the range input holds the focus before the key"
            page.keyboard.press(key)
            page.wait_for_timeout(100)
            moves[key] = page.evaluate(STATE)
        page.evaluate("() => Reveal.slide(1)")
        page.wait_for_timeout(1000)  # the slide's transition
        page.screenshot(path=str(ROOT / "artifacts" / "clicker_keys.png"))
        for key, state in moves.items():
            assert state["slide"] == (2 if key in FORWARD else 0), (
                f"{key} on a focused explorer left the deck on slide {state['slide'] + 1} of 3: a clicker's key must "
                "move the deck")
            assert (state["value"], state["readout"]) == (start["value"], start["readout"]), (
                f"{key} moved the explorer ({start['value']} -> {state['value']}): a clicker's key must leave it alone")
        page.locator(".amlab-static-explorer .amlab-static-step[data-step='1']").click()
        stepped = page.evaluate(STATE)
        browser.close()
    assert stepped["value"] == "3" and "4 squared is 16" in stepped["readout"], (
        f"the explorer's own + button should move it one option, to x=4: {stepped}")
