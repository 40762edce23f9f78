"""An explorer with no widget manager (course_utils.explorer_html): notebook 04's window explorer measured over a few
windows in the kernel, written as one HTML page and opened from disk in Debian's chromium with every non-file request
aborted. Moving the range input shows the measured reading of that window: the peak graph memory in the page is the
one ``explorer.update(window=k)`` measures. Screenshot: ``artifacts/explorer_html.png``.
"""
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT

from course_utils import explorers, format_bytes
from course_utils.explorer_html import static_explorer

WINDOWS = (1, 10, 60)


def test_moving_the_range_input_shows_that_settings_measured_reading(tmp_path):
    from playwright.sync_api import sync_playwright

    explorer = explorers.euler_window()
    view = static_explorer(explorer, only={"window": WINDOWS})
    page_file = tmp_path / "explorer.html"
    page_file.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{view._repr_html_()}</body></html>")
    wanted = {k: format_bytes(explorer.update(window=k).peak_saved) for k in WINDOWS}
    assert len(set(wanted.values())) == len(WINDOWS), f"the windows' peaks should differ: {wanted}"

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            fetched = []
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                       else (fetched.append(route.request.url), route.abort()))
            page.goto(page_file.as_uri())
            shown = {}
            for index, window in enumerate(WINDOWS):
                page.locator("input.amlab-explorer-window").fill(str(index))
                shown[window] = (page.locator(".amlab-explorer-readout .amlab-explorer-peak").inner_text(),
                                 page.locator("input.amlab-explorer-window + output").inner_text())
            page.screenshot(path=str(ROOT / "artifacts" / "explorer_html.png"))
        finally:
            browser.close()
    assert not fetched, f"the page asked the network for {fetched}"
    assert shown == {k: (wanted[k], str(k)) for k in WINDOWS}, f"the page showed {shown}, measured {wanted}"
