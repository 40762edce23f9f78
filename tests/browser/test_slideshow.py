"""Notebook 04 as a live RISE slideshow: the gauge moves on its own slide (JupyterLab + jupyterlab-rise + chromium).

What a lecturer does after ``make present`` (which sets AMLAB_LECTURE=1, so every kernel is in lecture mode):
open the notebook in JupyterLab and run it from the top, so that the cells the slides skip (imports, the problem's
set-up) have run; open the slideshow, RISE's ``/rise/<notebook>`` page ("Open as Reveal Slideshow"), which joins the
notebook's kernel session rather than starting a kernel of its own; on the gauge's slide, run the cell with Ctrl+Enter
(it stays on the slide; Shift+Enter would run it and move on). Here "from the top" is Run > "Run All Above Selected
Cell" on the gauge's cell: the kernel is as a run-through leaves it for that cell, in a third of the time.

A MutationObserver on the slideshow page records the gauge's cell: while it runs ("[*]") on the slide shown, the
gauge's value must change at least three times, and it must end on the live meter's reading after the last step,
which the test asks the kernel for (jupyter_client, on the kernel's own connection file). Lecture mode shows the gauge as HTML
replaced in place: ipywidgets do not load in jupyterlab-rise 0.43.1's app (its shared modules lack the
@jupyterlab/console that ipywidgets 8's manager needs), and the test checks the gauge's text is >= 16 px there.
The gauge's cell is found by its content (``gauge.track(`` under the "## 2 · Full backpropagation" heading), its
slide by RISE's ``activeCellIndex``. A screenshot of the slide goes to ``artifacts/slideshow_04.png``.

Then, in the same slideshow, the lecturer goes to the window explorer's slide and runs its cell there: with no widget
manager, RISE shows the explorer's static HTML version (course_utils/explorers/static_html.py, measured in the
kernel), and moving its range input must show the peak graph memory that ``explorer.update(window=k)`` measures.
Screenshot: ``artifacts/slideshow_explorer_04.png``.
"""
import re
import time

import nbformat
import pytest
from jupyter_client import BlockingKernelClient
from test_live_gauge import ROOT, api, dismiss_dialogs, in_chromium, open_when_idle, watch

from course_utils import explorers, format_bytes, lecture

NOTEBOOK = ROOT / "notebooks" / "04_euler_ode_truncation.ipynb"
SECTION = "## 2 · Full backpropagation"
EXPLORER = "cu.explorers.euler_window()"  # the explorer's cell, found by its content
WINDOWS = (1, 10, 60)  # where the explorer's range input is moved to

READ_SLIDE = """() => {
    const cell = Array.from(document.querySelectorAll('.jp-CodeCell'))
        .find(c => c.querySelector('.jp-InputArea').textContent.includes('gauge.track('));
    if (!cell) return {found: false};
    const value = cell.querySelector('.amlab-gauge-live .amlab-gauge-value span');
    return {
        found: true,
        shown: cell.closest('section.present') !== null,
        prompt: cell.querySelector('.jp-InputPrompt').textContent,
        value: value ? value.textContent : null,
        exact: value ? value.getAttribute('title') : null,
        px: value ? parseFloat(getComputedStyle(value).fontSize) : null,
        errors: Array.from(cell.querySelectorAll('[data-mime-type="application/vnd.jupyter.error"]')).map(e => e.textContent),
    };
}"""


def gauge_cell_index(path=NOTEBOOK):
    """The index of the first cell that runs ``gauge.track(`` in the section headed ``SECTION``."""
    section = ""
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "markdown":
            section = next((line for line in reversed(cell.source.splitlines()) if line.startswith("## ")), section)
        elif "gauge.track(" in cell.source and section.startswith(SECTION):
            return index
    raise AssertionError(f"{path.name} has no code cell with `gauge.track(` under its {SECTION!r} heading")


@pytest.fixture(scope="module")
def slideshow(tmp_path_factory, unused_port):
    """04 presented once in lecture mode: ``{"gauge": (states, meter bytes), "explorer": what explore returned, or
    the AssertionError it raised}``."""
    folder = tmp_path_factory.mktemp("slideshow")

    def drive(page, lab):
        observed, meter, slides = present(page, lab, folder, ROOT / "artifacts" / "slideshow_04.png")
        try:
            shown = explore(slides, ROOT / "artifacts" / "slideshow_explorer_04.png")
        except AssertionError as error:  # the gauge's test still reports on its own
            shown = error
        return {"gauge": (observed, meter), "explorer": shown}
    return in_chromium(folder, unused_port(), NOTEBOOK, drive, env={lecture.ENV_VAR: "1"})


def test_the_gauge_moves_on_its_slide_and_ends_on_the_meter(slideshow):
    observed, meter = slideshow["gauge"]
    while_running = [state for state in observed if "*" in state["prompt"]]
    assert while_running and all(state["shown"] for state in while_running), (
        "the gauge's cell left the slide shown while it ran: RISE moved to another slide")
    values = [state["value"] for state in while_running if state["value"]]
    changes = sum(1 for before, after in zip(values, values[1:]) if after != before)
    assert changes >= 3, (f"on the slide, the gauge's value changed {changes} times while the cell ran (want >= 3): "
                          f"seen {values[:20]}; the gauge is not live in the slideshow")
    final = observed[-1]
    assert not final["errors"], f"the gauge's cell raised on its slide: {final['errors']}"
    assert final["exact"] == f"{meter:,} bytes" and final["value"] == format_bytes(meter), (
        f"the gauge ends on {final['value']!r} ({final['exact']}); after the last step the live meter read {meter:,} bytes")
    assert final["px"] >= lecture.MIN_PX, f"the gauge's text is {final['px']} px on the slide; lecture mode wants >= 16"


def test_the_explorer_moves_on_its_slide_and_shows_the_measured_reading(slideshow):
    shown = slideshow["explorer"]
    if isinstance(shown, AssertionError):
        raise shown
    explorer = explorers.euler_window()
    wanted = {k: explorer.update(window=k).peak_saved for k in WINDOWS}
    assert len(set(wanted.values())) == len(WINDOWS), f"the windows' peaks should differ: {wanted}"
    assert shown == {k: (str(k), format_bytes(peak), f"{peak:,} bytes") for k, peak in wanted.items()}, (
        f"on the slide the explorer showed {shown}; explorer.update(window=k) measured {wanted}")


def present(page, lab, folder, screenshot, timeout=300, slide_timeout=180):  # deadlines, not timings: it runs 04's cells
    """Run the notebook above the gauge in JupyterLab, open the slideshow on the gauge's slide, run the gauge's cell
    there; return the states the page went through, the live meter's final bytes (read from the kernel) and the
    slideshow's page."""
    deadline = time.monotonic() + timeout
    index = gauge_cell_index()
    open_when_idle(page, lab, NOTEBOOK.name, deadline)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    assert "gauge.track(" in cell.text_content(), f"JupyterLab's cell {index} is not the gauge's cell"
    cell.locator(".jp-InputPrompt").click()
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Above Selected Cell").first.click()
    above = f"() => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell')).slice(0, {index})"
    while True:
        errors = page.evaluate(f"{above}.flatMap(c => Array.from(c.querySelectorAll("
                               "'[data-mime-type=\"application/vnd.jupyter.error\"]')).map(e => e.textContent))")
        assert not errors, f"a cell above the gauge raised in JupyterLab: {errors[0][:500]}"
        prompts = page.evaluate(f"{above}.filter(c => c.classList.contains('jp-CodeCell'))"
                                ".map(c => c.querySelector('.jp-InputPrompt').textContent.trim())")
        if all(re.fullmatch(r"\[\d+\]:", prompt) for prompt in prompts):
            break
        assert time.monotonic() < deadline, f"the cells above the gauge did not finish: prompts {prompts}"
        page.wait_for_timeout(250)

    # The slideshow gets its own deadline: on a loaded machine the cells above can use most of the first one.
    deadline = time.monotonic() + slide_timeout
    connected = kernel_connections(lab)
    slides = page.context.new_page()
    slides.set_default_timeout(60_000)
    slides.goto(f"{lab.base}/rise/{NOTEBOOK.name}?activeCellIndex={index}&token={lab.token}")
    gauge_cell = slides.locator("section.present .jp-CodeCell", has_text="gauge.track(")
    gauge_cell.wait_for()
    # A key pressed before the slideshow's own connection to the kernel is up runs nothing (seen in CI: the prompt
    # stayed "[ ]:"); the server counts the kernel's websocket connections, and the slideshow adds one.
    while kernel_connections(lab) <= connected:
        dismiss_dialogs(slides)
        assert time.monotonic() < deadline, (
            f"the slideshow never connected to the notebook's kernel (connections stayed {connected}); "
            f"{dialog_text(slides)}")
        slides.wait_for_timeout(250)
    slides.evaluate(watch(READ_SLIDE))
    gauge_cell.locator(".jp-InputPrompt").click()
    slides.keyboard.press("Control+Enter")
    while time.monotonic() < deadline:
        observed = slides.evaluate("() => window.__gaugeStates")
        if any("*" in state["prompt"] for state in observed) and re.fullmatch(r"\[\d+\]:", observed[-1]["prompt"].strip()):
            break
        slides.wait_for_timeout(250)
    else:
        slides.screenshot(path=str(screenshot))
        raise AssertionError(f"the gauge's cell did not finish on its slide within {slide_timeout} s; "
                             f"last state {observed[-1]}; {dialog_text(slides)}; screenshot {screenshot}")
    slides.screenshot(path=str(screenshot))
    # the meter's reading after the last step (the cell's backward() frees the graph after the loop: it reads less now)
    return observed, int(kernel_prints(lab, folder, "print(gauge.trace.values['live'][-1])")), slides


def explore(slides, screenshot, timeout=120):  # a deadline, not a timing: the cell measures the explorer's grid
    """Go to the explorer's slide, run its cell there (Ctrl+Enter) and move the static explorer's range input to each
    of WINDOWS; return ``{window: (the input's label, the peak shown, its exact bytes)}``."""
    deadline = time.monotonic() + timeout
    slides.evaluate("""call => {
        const cell = Array.from(document.querySelectorAll('.jp-CodeCell'))
            .find(c => c.querySelector('.jp-InputArea').textContent.includes(call));
        const [, h, v] = cell.closest('section').id.split('-');
        location.hash = '#/' + h + '/' + v;
    }""", EXPLORER)
    cell = slides.locator("section.present .jp-CodeCell", has_text=EXPLORER)
    cell.wait_for()
    cell.locator(".jp-InputPrompt").click()
    slides.keyboard.press("Control+Enter")
    while not re.fullmatch(r"\[\d+\]:", cell.locator(".jp-InputPrompt").text_content().strip()):
        assert time.monotonic() < deadline, f"the explorer's cell did not finish on its slide; {dialog_text(slides)}"
        slides.wait_for_timeout(250)
    errors = cell.locator('[data-mime-type="application/vnd.jupyter.error"]').all_text_contents()
    assert not errors, f"the explorer's cell raised on its slide: {errors[0][:500]}"
    view = cell.locator(".amlab-static-explorer")
    assert view.count() == 1, f"the explorer's cell shows no static explorer on its slide: {cell.inner_text()[:500]!r}"
    options = explorers.WINDOWS
    shown = {}
    for k in WINDOWS:
        view.locator("input.amlab-explorer-window").fill(str(options.index(k)))
        peak = view.locator(".amlab-explorer-readout .amlab-explorer-peak")
        shown[k] = (view.locator("input.amlab-explorer-window ~ output").inner_text(), peak.inner_text(),
                    peak.get_attribute("title"))
        if k == WINDOWS[1]:
            slides.screenshot(path=str(screenshot))
    return shown


def kernel_connections(lab):
    """How many websockets the server has open to the notebook's one kernel."""
    kernels = api(f"{lab.base}/api/kernels", lab.token)
    assert len(kernels) == 1, f"{len(kernels)} kernels run: the slideshow should join the notebook's, not start its own"
    return kernels[0]["connections"]


def dialog_text(page):
    """What a JupyterLab dialog on ``page`` says, if one is open (it would take the keys meant for the slide)."""
    dialogs = [text.strip() for text in page.locator(".jp-Dialog").all_text_contents()]
    return f"a dialog is open: {dialogs[0][:300]!r}" if dialogs else "no dialog is open"


def kernel_prints(lab, folder, code):
    """What ``code`` prints in the notebook's own kernel (the session JupyterLab and the slideshow share)."""
    kernels = api(f"{lab.base}/api/kernels", lab.token)
    assert len(kernels) == 1, f"{len(kernels)} kernels run: the slideshow should join the notebook's, not start its own"
    (session,) = [s for s in api(f"{lab.base}/api/sessions", lab.token) if s["path"].endswith(NOTEBOOK.name)]
    client = BlockingKernelClient(connection_file=str(folder / "runtime" / f"kernel-{session['kernel']['id']}.json"))
    client.load_connection_file()
    client.start_channels()
    printed = []
    try:
        reply = client.execute_interactive(code, timeout=30, output_hook=lambda message: printed.append(
            message["content"]["text"]) if message["msg_type"] == "stream" else None)
    finally:
        client.stop_channels()
    assert reply["content"]["status"] == "ok", f"the kernel could not run {code!r}: {reply['content']}"
    return "".join(printed)
