"""The cheat sheet prints on one page: docs/cheat_sheet.html printed to PDF by Debian's chromium, pages counted."""
import re

from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT


def test_the_cheat_sheet_prints_on_one_a4_page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            requested = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto((ROOT / "docs" / "cheat_sheet.html").as_uri())
            pdf = page.pdf(prefer_css_page_size=True)
            page.screenshot(path=str(ROOT / "artifacts" / "cheat_sheet.png"), full_page=True)
        finally:
            browser.close()
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages == 1, f"the cheat sheet prints on {pages} pages"
    assert all(url.startswith("file:") for url in requested), f"the sheet fetched {requested}"
