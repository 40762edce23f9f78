"""The live gauge in a real browser: JupyterLab + headless Chromium, values read from the page's DOM.

Starts JupyterLab on localhost with a random token, opens ``live_gauge.ipynb`` in Debian's chromium
(driven by Playwright), runs its cell, and checks, with a MutationObserver on the page, that the
gauge's displayed value changed at least three times while the cell was still running ("[*]" prompt),
and that the final value is the meter's.
A screenshot goes to ``artifacts/live_gauge.png``. ``make test`` installs chromium when it is missing.
"""
import re
import shutil
import time
from pathlib import Path

from course_utils import format_bytes
from tools.lab_server import CHROMIUM, CHROMIUM_FLAGS, LAB_SETTINGS, Lab, api  # noqa: F401 (the tests' helpers)

ROOT = Path(__file__).resolve().parents[2]  # the repository (not from conftest: notebooks/ has one too)

HERE = Path(__file__).resolve().parent
NOTEBOOK = "live_gauge.ipynb"
GAUGE_VALUE = ".amlab-gauge-live .amlab-gauge-value span"


def dismiss_dialogs(page):
    """Accept any dialog JupyterLab opens (e.g. kernel selection); close notification toasts."""
    for button in page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").all():
        button.click(timeout=5000)
    for close in page.locator(".jp-toast-button, .Toastify__close-button").all():
        if close.is_visible():
            close.click(timeout=5000)


READ_STATE = """() => {
    const cell = document.querySelector('.jp-Notebook .jp-CodeCell');
    const value = document.querySelector('%s');
    const outputs = cell ? Array.from(cell.querySelectorAll('.jp-OutputArea-output pre')) : [];
    return {
        prompt: cell ? cell.querySelector('.jp-InputPrompt').textContent : '',
        value: value ? value.textContent : null,
        exact: value ? value.getAttribute('title') : null,
        printed: outputs.map(o => o.textContent).join('\\n'),
    };
}""" % GAUGE_VALUE



def watch(read_state):
    """JavaScript that records ``read_state()`` in ``window.__gaugeStates`` each time the DOM changes it
    (a MutationObserver, not polling, which can miss a redraw)."""
    return """() => {
    const read = %s;
    const states = window.__gaugeStates = [read()];
    new MutationObserver(() => {
        const state = read();
        if (JSON.stringify(state) !== JSON.stringify(states[states.length - 1])) {
            states.push(state);
        }
    }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
}""" % read_state


WATCH = watch(READ_STATE)


def in_chromium(tmp_path, port, notebook, drive, env=None):
    """Serve ``notebook`` (a name in this folder, or a path) with a fresh JupyterLab (``env``: more environment
    variables), open chromium, and return ``drive(page, lab)``; the browser and the server are stopped however
    it ends."""
    assert Path(CHROMIUM).exists(), (
        f"{CHROMIUM} is missing: the browser test needs Debian's chromium. `make test` installs it "
        "(or run: sudo apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise AssertionError("the Python package 'playwright' is missing: `make test` installs the test extras "
                             "(pip install -e '.[test]')") from error

    source = HERE / notebook
    (tmp_path / "notebooks").mkdir()
    shutil.copy(source, tmp_path / "notebooks" / source.name)
    (ROOT / "artifacts").mkdir(exist_ok=True)
    lab = Lab(tmp_path, port, env)
    try:
        lab.wait_until_up()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
                viewport={"width": 1400, "height": 900})
            try:
                return drive(browser.new_page(), lab)
            finally:
                browser.close()
    finally:
        lab.stop()


def open_when_idle(page, lab, notebook, deadline):
    """Open ``notebook`` in JupyterLab and wait until the course's kernel is idle."""
    page.set_default_timeout(60_000)
    page.goto(f"{lab.base}/lab/tree/{notebook}?token={lab.token}")
    page.locator(".jp-Notebook .jp-CodeCell").first.wait_for()
    # The toolbar says "idle" before a kernel exists; the status bar names the kernel once it is ready.
    while not page.locator(".jp-StatusBar-Widget", has_text="Autograd Memory Lab | Idle").count():
        assert time.monotonic() < deadline, "the 'Autograd Memory Lab' kernel never became idle"
        dismiss_dialogs(page)
        page.wait_for_timeout(250)


def test_gauge_updates_in_the_page_while_the_cell_runs(tmp_path, free_port):
    screenshot = ROOT / "artifacts" / "live_gauge.png"
    observed = in_chromium(tmp_path, free_port, NOTEBOOK, lambda page, lab: run_the_cell_and_watch(page, lab, screenshot))

    while_running = [state["value"] for state in observed if "*" in state["prompt"] and state["value"]]
    changes = sum(1 for before, after in zip(while_running, while_running[1:]) if after != before)
    assert changes >= 3, (f"the gauge's value changed {changes} times while the cell ran (want >= 3): "
                          f"seen {while_running[:20]}; the widget is not updated live")
    final = observed[-1]
    match = re.search(r"live meter at the end: (\d+) bytes after (\d+) steps", final["printed"])
    assert match, f"the cell did not print the meter's reading; its output: {final['printed']!r}"
    meter_bytes, steps = int(match[1]), int(match[2])
    assert meter_bytes == 4000 * steps
    assert final["exact"] == f"{meter_bytes:,} bytes" and final["value"] == format_bytes(meter_bytes), (
        f"the gauge ends on {final['value']!r} ({final['exact']}), the meter read {meter_bytes:,} bytes")


def run_the_cell_and_watch(page, lab, screenshot, timeout=120):
    """Open the notebook, run its code cell, and return every state (prompt, gauge value, output) the page went through."""
    deadline = time.monotonic() + timeout
    open_when_idle(page, lab, NOTEBOOK, deadline)
    page.evaluate(WATCH)
    page.locator(".jp-Notebook .jp-CodeCell .cm-content").first.click()
    page.keyboard.press("Shift+Enter")
    while time.monotonic() < deadline:
        observed = page.evaluate("() => window.__gaugeStates")
        prompts = [state["prompt"].strip() for state in observed]
        if "[*]:" in prompts and re.fullmatch(r"\[\d+\]:", prompts[-1]):
            break
        page.wait_for_timeout(250)
    else:
        page.screenshot(path=str(screenshot))
        raise AssertionError(f"the cell did not finish within {timeout} s; last prompt {observed[-1]['prompt']!r}")
    page.locator(".amlab-gauge-summary").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot), full_page=True)
    return observed
