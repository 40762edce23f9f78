"""An explorer in a real browser: JupyterLab + headless Chromium, a slider moved with the keyboard.

Opens ``explorer.ipynb`` (the trapezoid explorer) in Debian's chromium driven by Playwright, runs its
cell, moves the ``points`` slider one notch, and checks that the readout then shows, to the byte,
the saved activations that ``trapezoid_reading`` measures for the setting the slider now shows.
Set-up (server, settings, chromium flags) is shared with the live gauge's test.
A screenshot goes to ``artifacts/explorer.png``.
"""
import shutil
import time
from pathlib import Path

from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, HERE, ROOT, Lab, dismiss_dialogs

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
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: the browser test needs Debian's chromium (apt-get install chromium)"
    from playwright.sync_api import sync_playwright

    (tmp_path / "notebooks").mkdir()
    shutil.copy(HERE / NOTEBOOK, tmp_path / "notebooks" / NOTEBOOK)
    screenshot = ROOT / "artifacts" / "explorer.png"
    screenshot.parent.mkdir(exist_ok=True)
    lab = Lab(tmp_path, free_port)
    try:
        lab.wait_until_up()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
                viewport={"width": 1400, "height": 900})
            try:
                before, after = run_and_move_the_slider(browser.new_page(), lab, screenshot)
            finally:
                browser.close()
    finally:
        lab.stop()

    start = int(before["points"].replace(",", ""))
    moved = int(after["points"].replace(",", ""))
    assert moved > start, f"the points slider should have moved up one notch from {start:,}; it reads {moved:,}"
    assert exact_bytes(before["exact"]) == trapezoid_reading(start, 32, 2).activations
    assert exact_bytes(after["exact"]) == trapezoid_reading(moved, 32, 2).activations, (
        f"after the move to {moved:,} points the readout says {after['exact']}; the meter reads "
        f"{trapezoid_reading(moved, 32, 2).activations:,} bytes for that setting")


def run_and_move_the_slider(page, lab, screenshot, timeout=120):
    """Run the notebook's cell, read the panel, press ArrowRight on the points slider, read it again."""
    page.set_default_timeout(60_000)
    page.goto(f"{lab.base}/lab/tree/{NOTEBOOK}?token={lab.token}")
    deadline = time.monotonic() + timeout
    page.locator(".jp-Notebook .jp-CodeCell").first.wait_for()
    while not page.locator(".jp-StatusBar-Widget", has_text="Autograd Memory Lab | Idle").count():
        assert time.monotonic() < deadline, "the 'Autograd Memory Lab' kernel never became idle"
        dismiss_dialogs(page)
        page.wait_for_timeout(250)
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
