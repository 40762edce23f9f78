"""The memory viewer of a CPU training step, opened from disk in chromium with every network request aborted.

The page ``Timeline.save_html`` writes (its script and d3 inlined, the step's snapshot embedded) must load nothing,
and its Active Memory Timeline must draw the step's allocations: one band per storage the timeline saw (those alive
at the start, and each the step allocated), of the timeline's sizes, stacked to the timeline's peak; hovering the
largest band shows the line of the step that made it. The bands are read from the page: each band's ``<path>`` says
its size and its highest point in bytes (``data-size``, ``data-top``). A screenshot at 1280x720 goes to
``artifacts/memory_viewer/``.
"""
import torch
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT

import autograd_memory as am

SHOTS = ROOT / "artifacts" / "memory_viewer"
# each band of the Active Memory Timeline: its size and its highest point, in bytes
BANDS = """() => Array.from(document.querySelectorAll('#plot path.band'),
                         band => ({size: Number(band.dataset.size), top: Number(band.dataset.top)}))"""
# the text the page draws at a size: its axes' tick labels, their titles, the page's title, the peak's label
TEXT_PX = """() => Array.from(document.querySelectorAll('#plot text, h1'),
                         text => [text.textContent, parseFloat(getComputedStyle(text).fontSize)])"""


def training_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = torch.randn(512, 64)
    target = data[:, :1].sin()

    def train_step():
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(data), target)
        loss.backward()
        optimizer.step()
    train_step()  # Adam's state exists from here on
    return train_step, model, optimizer


def test_the_viewer_draws_a_cpu_steps_allocations_offline(tmp_path):
    from playwright.sync_api import sync_playwright

    memory = am.timeline(*training_step())
    page_file = memory.save_html(tmp_path / "step.html")
    sizes = sorted(nbytes for index, action, _, _, nbytes, _ in memory.blocks if action == "alloc" or not index)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            requests, errors = [], []
            context.route("**/*", lambda route: (requests.append(route.request.url), route.abort())
                          if not route.request.url.startswith("file:") else route.continue_())
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(page_file.as_uri())
            page.wait_for_function("() => document.querySelectorAll('#plot path.band').length > 1", timeout=20_000)
            drawn = page.evaluate(BANDS)
            texts = page.evaluate(TEXT_PX)
            devices_hidden = page.locator("#devices").is_hidden()
            largest = page.locator("#plot path.band").nth(max(range(len(drawn)), key=lambda i: drawn[i]["size"]))
            largest.hover(force=True)
            context_text = page.locator("#detail").inner_text()
            page.screenshot(path=str(SHOTS / "cpu_step.png"))
        finally:
            browser.close()
    assert requests == [], f"the page tried the network: {requests}"
    assert errors == [], f"the page raised: {errors}"
    assert len(drawn) == memory.allocations + memory.alive_at_start, (
        f"{len(drawn)} bands drawn for {memory.allocations} allocations and {memory.alive_at_start} storages alive at the start")
    assert sorted(band["size"] for band in drawn) == sizes, "each band is one storage, of its size"
    assert max(band["top"] for band in drawn) == memory.peak, "the bands stack to the timeline's peak"
    assert any(text.startswith("peak ") for text, _ in texts), f"the peak is labelled: {texts}"
    assert min(px for _, px in texts) >= 12, f"text of 12 px or more at 1280x720: {texts}"
    assert devices_hidden, "one device: no device selector"
    assert "test_memory_viewer.py:" in context_text and ":train_step" in context_text, (
        f"the largest band's stack should name the step's line: {context_text}")


def test_a_snapshot_of_two_devices_has_a_selector_that_redraws(tmp_path):
    from playwright.sync_api import sync_playwright

    frames = [("train.py", 4, "step")]
    snapshot = am.memory_snapshot([("alloc", 0, 4096, 1000, frames), ("alloc", 1, 4096, 300, frames),
                                ("alloc", 1, 8192, 500, frames), ("free", 1, 4096, 300, frames)])
    page_file = am.save_viewer(snapshot, tmp_path / "two.html")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(page_file.as_uri())
            page.wait_for_function("() => document.querySelectorAll('#plot path.band').length > 0", timeout=20_000)
            assert page.locator("#device").is_visible(), "two devices: a selector"
            options = page.locator("#device option").all_inner_texts()
            first = page.evaluate(BANDS)
            page.select_option("#device", "0")
            other = page.evaluate(BANDS)
            peak = page.locator(".peak-label").text_content()
        finally:
            browser.close()
    assert options == ["device 0: 1 allocation", "device 1: 2 allocations"], options
    assert sorted(band["size"] for band in first) == [300, 500], "it opens at the device with the most events"
    assert [band["size"] for band in other] == [1000] and peak.startswith("peak 1.00 kB"), (other, peak)
