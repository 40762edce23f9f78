"""RISE's speaker view (key T) with the course's patch (tools/labextensions/amlab-rise-speaker), in chromium.

jupyterlab-rise 0.43.1 as it comes: pressing T mid-deck sends the projected deck back to its first slide, and the
speaker window shows each note twice (the Markdown source, then the rendered text). The test serves a small deck of
four slides, each with a speaker note, the way `make present` serves the lecture (JupyterLab with
``--LabServerApp.extra_labextensions_path=tools/labextensions``), goes to the third slide, presses T, waits until the
speaker window is connected and well past the patch's guard, and checks: the deck is still on the third slide, the
speaker window shows the third slide's note once, and the next slide's note after the deck moves on. Run it with
``AMLAB_UNPATCHED=1`` to see the bug (the test then fails). Screenshot: ``artifacts/speaker_view.png``.
The patch also shows each slide's minute of the lecture, read from its notes, when the lecturer presses M
(``artifacts/pace_marker.png``), and
fits each slide whole into the speaker window's previews (``artifacts/speaker_previews.png``).
"""
import contextlib
import os
import time

import nbformat
from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS, ROOT, Lab

EXTENSIONS = ROOT / "tools" / "labextensions"
NOTES = [f"Note {n}: say what slide {n} is for." for n in range(4)]

READ_NOTES = """() => {
    const value = document.querySelector('.speaker-controls-notes .value');
    if (!value) return null;
    const shown = Array.from(value.querySelectorAll('*')).filter(el => el.getClientRects().length > 0
        && Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()));
    return shown.map(el => Array.from(el.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim());
}"""


def deck(path, notes=NOTES, body="What the room sees on slide {n}."):
    cells = []
    for n, note in enumerate(notes):
        cells.append(nbformat.v4.new_markdown_cell(f"# Slide {n}\n\n" + body.format(n=n),
                                                   metadata={"slideshow": {"slide_type": "slide"}}))
        cells.append(nbformat.v4.new_markdown_cell(f"**Speaker notes.** {note}",
                                                   metadata={"slideshow": {"slide_type": "notes"}}))
    kernel = {"name": "autograd-memory-lab", "display_name": "Autograd Memory Lab", "language": "python"}
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernel}), path)


def present(page, lab, name):
    page.goto(f"{lab.base}/rise/{name}?token={lab.token}")
    page.wait_for_selector(".reveal.ready .slides > section.present", timeout=120_000)
    page.wait_for_timeout(1000)


def shown_slide(page):
    return page.evaluate("() => document.querySelector('.reveal .slides > section.present > section.present').id")


def go_to(page, h):
    page.evaluate(f"() => {{ location.hash = '#/{h}/0'; }}")
    page.wait_for_selector(f".reveal .slides > section.present > section.present#slide-{h}-0")


def wait_for_notes(speaker, want, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        notes = speaker.evaluate(READ_NOTES)
        if notes and any(want in line for line in notes):
            return notes
        speaker.wait_for_timeout(500)
    raise AssertionError(f"the speaker window never showed {want!r}; it shows {notes!r}")


@contextlib.contextmanager
def presenting(tmp_path, port, notes, patched=True, **slides):
    """A page of chromium at 1280x720 on a deck of one slide per note (``body=``: each slide's text), served as `make
    present` serves the lecture."""
    from playwright.sync_api import sync_playwright

    (tmp_path / "notebooks").mkdir()
    deck(tmp_path / "notebooks" / "deck.ipynb", notes, **slides)
    (ROOT / "artifacts").mkdir(exist_ok=True)
    lab = Lab(tmp_path, port, args=[f"--LabServerApp.extra_labextensions_path={EXTENSIONS}"] if patched else [])
    try:
        lab.wait_until_up()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.set_default_timeout(60_000)
                present(page, lab, "deck.ipynb")
                yield page
            finally:
                browser.close()
    finally:
        lab.stop()


def open_speaker_view(page):
    page.locator("section.present section.present .jp-MarkdownCell").first.click()  # command mode, focused
    with page.expect_popup() as popup:
        page.keyboard.press("t")
    return popup.value


def test_pressing_t_keeps_the_deck_on_its_slide_and_shows_each_note_once(tmp_path, free_port):
    patched = not os.environ.get("AMLAB_UNPATCHED")
    with presenting(tmp_path, free_port, NOTES, patched) as page:
        go_to(page, 2)
        speaker = open_speaker_view(page)
        notes = wait_for_notes(speaker, NOTES[2])
        page.wait_for_timeout(6000)  # past the patch's guard: RISE's reset would have arrived by now
        after_t = shown_slide(page)
        notes = speaker.evaluate(READ_NOTES)
        speaker.set_viewport_size({"width": 1100, "height": 700})
        speaker.screenshot(path=str(ROOT / "artifacts" / f"speaker_view{'' if patched else '_unpatched'}.png"))
        page.keyboard.press("ArrowRight")
        followed = wait_for_notes(speaker, NOTES[3], timeout=30)
        moved_to = shown_slide(page)

    assert after_t == "slide-2-0", f"after T the projected deck shows {after_t}, not the slide it was on (slide-2-0)"
    assert sum(NOTES[2] in line for line in notes) == 1 and not any("**Speaker notes.**" in line for line in notes), (
        f"the speaker window should show the note once, rendered; it shows {notes}")
    assert moved_to == "slide-3-0" and any(NOTES[3] in line for line in followed), (
        "the speaker window follows the deck")


READ_PACE = """() => {
    const badge = document.getElementById('amlab-pace');
    return badge && getComputedStyle(badge).display !== 'none' ? badge.textContent : '';
}"""


def test_the_lecture_minute_shows_only_for_the_lecturer_who_presses_m(tmp_path, free_port):
    """The room sees the slide, not the lecturer's pace: the minute each slide's speaker notes give (the speaker
    window shows them) stays off the projector until the lecturer presses M, and M again hides it."""
    from tools.lecture_edition import pace, timing

    notes = ["no place in the lecture", pace(2, 14, 90), timing(6, 8, 90)]  # as the lecture edition writes them
    with presenting(tmp_path, free_port, notes) as page:
        def press(key):
            page.keyboard.press(key)
            page.wait_for_timeout(800)
            return page.evaluate(READ_PACE)

        hidden = [page.evaluate(READ_PACE), press("ArrowRight")]  # as a clicker moves the deck
        shown = [press("m"), press("ArrowRight"), press("ArrowLeft"), press("ArrowLeft")]
        page.screenshot(path=str(ROOT / "artifacts" / "pace_marker.png"))
        press("ArrowRight")
        off = press("m")
        where = shown_slide(page)

    assert hidden == ["", ""], f"the projector shows the lecturer's pace before it is asked for: {hidden}"
    assert shown == ["minute 14 of 90", "minute 8 of 90", "minute 14 of 90", ""], (
        f"after M each slide should show the minute its speaker notes give, and nothing without one; they show {shown}")
    assert off == "" and where == "slide-1-0", f"M again hides it ({off!r}) and leaves the deck where it was ({where})"


SLIDE_FITS = """() => {
    const slide = document.querySelector('.reveal .slides > section.present > section.present');
    const box = slide.getBoundingClientRect();
    return [Math.round(box.right), Math.round(box.bottom), innerWidth, innerHeight];
}"""


def test_the_speaker_windows_previews_show_each_slide_whole_as_the_room_sees_it(tmp_path, free_port):
    """The previews are the deck in small frames: laid out at the frame's size, the projector's 24 px text ran off the
    bottom of the upcoming slide's frame. Laid out at the projector's 1280x720 and shrunk, each shows its slide whole."""
    body = "\n".join(f"- point {i} of slide {{n}}, a line as long as a slide's line gets" for i in range(10))
    with presenting(tmp_path, free_port, NOTES, body=body) as page:
        speaker = open_speaker_view(page)
        wait_for_notes(speaker, NOTES[0])
        speaker.set_viewport_size({"width": 1280, "height": 800})
        speaker.wait_for_timeout(1500)
        fits = [frame.evaluate(SLIDE_FITS) for frame in speaker.frames if "receiver" in frame.url]
        speaker.screenshot(path=str(ROOT / "artifacts" / "speaker_previews.png"))
    assert len(fits) == 2, f"the speaker window should show two previews (this slide, the next): {fits}"
    assert all(right <= width + 1 and bottom <= height + 1 for right, bottom, width, height in fits), (
        f"a preview cuts its slide off (slide's right and bottom edge, frame's width and height): {fits}")
