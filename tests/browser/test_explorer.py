"""An explorer in a real browser: JupyterLab + headless Chromium, a slider moved with the keyboard.

Opens ``explorer.ipynb`` (the trapezoid explorer) in Debian's chromium driven by Playwright, runs its
cell, moves the ``points`` slider one notch, and checks that the readout then shows, to the byte,
the saved activations that ``trapezoid_reading`` measures for the setting the slider now shows.
Server, settings and chromium come from the live gauge's test (``in_chromium``).
A screenshot goes to ``artifacts/explorer.png``.
"""
import time

from test_live_gauge import ROOT, in_chromium, open_when_idle

from course_utils.explorers import trapezoid_reading

NOTEBOOK = "explorer.ipynb"
READOUT = ".amlab-explorer-readout .amlab-explorer-activations"
SLIDER = ".amlab-explorer-points"

READ = """() => {
    const value = document.querySelector('%s');
    const slider = document.querySelector('%s .widget-readout');
    return {exact: value ? value.getAttribute('title') : null, points: slider ? slider.textContent : null};
}""" % (READOUT, SLIDER)


def exact_bytes(title):
    return int(title.removesuffix(" bytes").replace(",", ""))


def test_moving_a_slider_shows_the_meters_reading_for_the_new_setting(tmp_path, free_port):
    screenshot = ROOT / "artifacts" / "explorer.png"
    before, after = in_chromium(tmp_path, free_port, NOTEBOOK,
                                lambda page, lab: run_and_move_the_slider(page, lab, screenshot))

    start = int(before["points"].replace(",", ""))
    moved = int(after["points"].replace(",", ""))
    assert moved > start, f"the points slider should have moved up one notch from {start:,}; it reads {moved:,}"
    assert exact_bytes(before["exact"]) == trapezoid_reading(start, 32, 2).activations
    assert exact_bytes(after["exact"]) == trapezoid_reading(moved, 32, 2).activations, (
        f"after the move to {moved:,} points the readout says {after['exact']}; the meter reads "
        f"{trapezoid_reading(moved, 32, 2).activations:,} bytes for that setting")


def run_and_move_the_slider(page, lab, screenshot, timeout=120):
    """Run the notebook's cell, read the panel, press ArrowRight on the points slider, read it again."""
    deadline = time.monotonic() + timeout
    open_when_idle(page, lab, NOTEBOOK, deadline)
    page.locator(".jp-Notebook .jp-CodeCell .cm-content").first.click()
    page.keyboard.press("Shift+Enter")
    page.locator(READOUT).wait_for()
    before = page.evaluate(READ)
    page.locator(f"{SLIDER} .noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    while time.monotonic() < deadline:
        after = page.evaluate(READ)
        if after["exact"] != before["exact"]:
            break
        page.wait_for_timeout(100)
    page.screenshot(path=str(screenshot), full_page=True)
    return before, after
