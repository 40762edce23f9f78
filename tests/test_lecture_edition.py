"""The lecture edition (tools/lecture_edition.py), read off course.toml's lecture path: each live section's minutes open
its first speaker note; condensed, only the title slide and the live sections are on slides, every cell is still there
to run; a heading the table names that a notebook lacks stops it with the row to fix. No notebook is executed.
"""
import doctest
import re
import subprocess

import nbformat
import pytest

from tools import handouts, lecture_edition, my_notebooks
from tools.course import NOTES_MARK, SETUP_MARK, is_notes, load, title_cell


def _cell(kind, source, slide_type):
    new = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    return new(source, metadata={"slideshow": {"slide_type": slide_type}})


NOTES = NOTES_MARK
CELLS = [  # (kind, source, slide type); the table below makes 1 and 4 live, 1's «Going further» homework
    ("code", SETUP_MARK + "\nimport sys", "skip"),                         # 0
    ("markdown", "# 09 · A title\n\n**Time:** about 5 minutes.", "slide"),      # 1 the title slide ...
    ("markdown", "What it runs on.", "subslide"),                               # 2 ... and its sub-slide
    ("markdown", NOTES + " Run it all first.", "notes"),                        # 3 ... and its notes
    ("code", "import torch", "skip"),                                           # 4
    ("markdown", "## 1 · Live", "slide"),                                       # 5 live, 6 min
    ("code", "x = 1", "-"),                                                     # 6
    ("markdown", NOTES + " Ask first.", "notes"),                               # 7 gets "In class: 6 min"
    ("code", "assert x == 1", "skip"),                                          # 8 hidden already: stays so
    ("markdown", "A verdict.", "subslide"),                                     # 9
    ("markdown", NOTES + " Then this.", "notes"),                               # 10 a later note: unchanged
    ("markdown", "### Going further", "subslide"),                              # 11 homework, inside 1
    ("code", "y = 2", "-"),                                                     # 12
    ("markdown", "## 2 · Not on the path", "slide"),                            # 13
    ("markdown", NOTES + " Skip me.", "notes"),                                 # 14
    ("markdown", "### 3 · Live again", "subslide"),                             # 15 live, 4 min, no notes
    ("code", "z = 3", "-"),                                                     # 16
    ("markdown", "## Summary", "slide"),                                        # 17
]
ROWS = [("09", "1 · Live", "live", 6), ("09", "Going further", "homework", 0), ("09", "3 · Live again", "live", 4),
        ("08", "Elsewhere", "live", 80)]


def notebook():
    return nbformat.v4.new_notebook(cells=[_cell(*cell) for cell in CELLS])


def types(nb):
    return [lecture_edition.slide_type(cell) for cell in nb.cells]


def test_the_docstring_examples_run():
    result = doctest.testmod(lecture_edition)
    assert result.attempted >= 4 and result.failed == 0, f"tools/lecture_edition.py's examples: {result}"


def test_condensed_shows_the_title_slide_and_the_live_sections_only():
    nb = notebook()
    condensed = lecture_edition.lecture_edition(nb, "09_example", ROWS, condensed=True)
    shown = [i for i, kind in enumerate(types(condensed)) if kind != "skip"]
    assert shown == [1, 2, 3, 5, 6, 7, 9, 10, 15, 16, 17], "the title slide, 1 without «Going further», and 3"
    assert types(condensed)[15] == "slide", "a live section after hidden ones starts its own slide"
    assert types(condensed)[16] == "notes" and condensed.cells[17].source == "z = 3", (
        "3 had no speaker note: one is added after its heading, for its minutes")
    assert types(nb)[13] == "slide", "the notebook given is not changed"
    code = [(cell.source) for cell in condensed.cells if cell.cell_type == "code"]
    assert code == [cell.source for cell in nb.cells if cell.cell_type == "code"], (
        "every code cell is still there, in order: running it all builds the same state")


def test_the_live_sections_notes_open_with_their_minutes():
    lecture = lecture_edition.lecture_edition(notebook(), "09_example", ROWS)
    notes = [cell.source for cell in lecture.cells if is_notes(cell)]
    assert notes == [NOTES + " Run it all first.",
                     NOTES + " **In class: 6 min** (lecture path, from minute 0 of 90). Ask first.",
                     NOTES + " Then this.",
                     NOTES + " Skip me.",
                     NOTES + " **In class: 4 min** (lecture path, from minute 6 of 90)."]
    assert [cell.source for cell in lecture.cells if not is_notes(cell)] == [s for _, s, kind in CELLS if kind != "notes"]
    assert types(lecture) == [kind for *_, kind in CELLS[:16]] + ["notes"] + [kind for *_, kind in CELLS[16:]], (
        "without condensing, only the added note's cell is new")


def _older(nb):
    """``nb`` as nbformat 4.4 writes it: no cell ids (most of the course's notebooks)."""
    nb.nbformat_minor = 4
    for cell in nb.cells:
        del cell["id"]
    return nb


@pytest.mark.parametrize("condensed", [False, True])
@pytest.mark.parametrize("make", [notebook, lambda: _older(notebook())], ids=["nbformat 4.5", "nbformat 4.4"])
def test_the_edition_of_an_edition_is_the_same_and_valid(condensed, make):
    nb = make()
    once = lecture_edition.lecture_edition(nb, "09_example", ROWS, condensed)
    text = nbformat.writes(once)
    nbformat.validate(nbformat.reads(text, as_version=4))
    assert nbformat.writes(lecture_edition.lecture_edition(nb, "09_example", ROWS, condensed)) == text, (
        "the same notebook gives the same file (an added note's id too)")
    assert nbformat.writes(lecture_edition.lecture_edition(once, "09_example", ROWS, condensed)) == text


def test_a_row_whose_heading_is_gone_fails_with_the_row_to_fix():
    rows = ROWS + [("09", "4 · Renamed since", "live", 3)]
    with pytest.raises(SystemExit, match=r"names 09 «4 · Renamed since», but 09_example has no such heading"):
        lecture_edition.lecture_edition(notebook(), "09_example", rows)


def test_the_course_condensed(root):
    """Every notebook with a live row, condensed: on slides only its title slide (up to the next slide) and its live
    rows' cells, every code cell kept in order; a notebook marked for the cut shows only its kept cells, each slide
    opening its notes with its minutes, and an unmarked one opens each live row's first note with the row's minutes."""
    course = load(root)
    rows = course.lecture_path
    timed = lecture_edition.timings(rows)
    paths = course.live_notebooks()
    assert [path.stem[:2] for path in paths] == sorted({number for number, _ in timed})
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        condensed = lecture_edition.lecture_edition(nb, path.stem, rows, True, course.cut)
        assert [c.source for c in condensed.cells if c.cell_type == "code"] == [
            c.source for c in nb.cells if c.cell_type == "code"], f"{path.name}: every code cell kept, in order"
        deciding = lecture_edition.deciding_rows(condensed.cells, path.stem, rows)
        if any(map(lecture_edition.is_kept, nb.cells)):
            shown = [(cell, row) for cell, row, kind in zip(condensed.cells, deciding, types(condensed))
                     if kind not in ("skip", "notes")]
            assert all(lecture_edition.is_kept(cell) for cell, _ in shown), f"{path.name}: only slide-keep cells shown"
            stray = [cell.source[:40] for cell, row in shown if not (row and row[2] == "live") and
                     not cell.source.startswith("# ")]
            assert not stray, f"{path.name}: {stray} are on slides, outside the title and the live sections"
            continue
        first = title_cell(condensed, path.stem)
        end = next(i for i in range(first + 1, len(condensed.cells)) if types(condensed)[i] == "slide")
        stray = [i for i, (kind, row) in enumerate(zip(types(condensed), deciding))
                 if kind != "skip" and not first <= i < end and not (row and row[2] == "live")]
        assert not stray, f"{path.name}: cells {stray} are on slides, outside the title slide and the live sections"
        opened = sorted(lecture_edition.TIMING.match(cell.source.removeprefix(NOTES + " "))[0].strip()
                        for cell in condensed.cells if is_notes(cell) and "**In class:" in cell.source)
        assert opened == sorted(lecture_edition.timing(*when) for (number, _), when in timed.items()
                                if number == path.stem[:2]), f"{path.name}: one note per live row opens with its minutes"


def condensed_slides(course):
    """``[(notebook, row or None for its title, minutes, the slide's first note)]``: every slide of the condensed
    lecture, in order."""
    slides = []
    for path in course.live_notebooks():
        nb = lecture_edition.lecture_edition(nbformat.read(path, as_version=4), path.stem, course.lecture_path, True,
                                             course.cut)
        deciding = lecture_edition.deciding_rows(nb.cells, path.stem, course.lecture_path)
        for index, cell in enumerate(nb.cells):
            if types(nb)[index] == "slide":
                note = nb.cells[index + 1].source if is_notes(nb.cells[index + 1]) else ""
                slides.append((path.stem[:2], deciding[index], lecture_edition.slide_minutes(cell), note))
    return slides


NOT_FOR_THE_ROOM = re.compile(r"raise NotImplementedError|\bassert\b|\.assert_\w+\(|\bchecks\.check_\w+\(")


def test_the_condensed_slides_show_the_lecture_not_its_checks_or_exercises(root):
    """What the room sees is the lecture: no exercise stub (its checker answers "not attempted yet"), no ``assert``
    and no checker call on a condensed slide (they run in skipped cells)."""
    course = load(root)
    for path in course.live_notebooks():
        nb = lecture_edition.lecture_edition(nbformat.read(path, as_version=4), path.stem, course.lecture_path, True,
                                             course.cut)
        shown = [cell.source for cell, kind in zip(nb.cells, types(nb)) if kind not in ("skip", "notes")]
        found = [(source[:60], NOT_FOR_THE_ROOM.search(source)[0]) for source in shown if NOT_FOR_THE_ROOM.search(source)]
        assert not found, f"{path.name}: condensed slides show exercises or checks (untag them slide-keep): {found}"


def test_the_condensed_lecture_fits_its_90_minutes(root):
    """The condensed lecture as it is projected: at most 75 slides, each stating its minutes in its speaker notes,
    and those minutes with the questions' at most the lecture's; each live row's slides take the row's minutes, each
    title slide the cut's title minutes."""
    course = load(root)
    cut, slides = course.cut, condensed_slides(course)
    assert len(slides) <= 75, f"the condensed lecture has {len(slides)} slides: at most 75 fit 90 minutes (aim 60-70)"
    unstated = [(number, row and row[1]) for number, row, minutes, _ in slides if minutes is None]
    assert not unstated, f"slides without their minutes (tag the cell that opens each slide-N-min): {unstated}"
    minutes = sum(minutes for _, _, minutes, _ in slides)
    assert minutes + cut.questions <= cut.total, (
        f"{len(slides)} slides take {minutes} min, with {cut.questions} min of questions {minutes + cut.questions}: "
        f"more than the lecture's {cut.total}")
    clock = 0
    for number, row, length, note in slides:
        assert note.startswith(f"{NOTES} {lecture_edition.pace(length, clock, cut.total)}"), (
            f"{number} «{row and row[1]}»: the slide's notes should open with its minutes and place: {note[:90]!r}")
        clock += length
    for row in (row for row in course.lecture_path if row.mode in cut.shown):
        taken = sum(minutes for _, decided, minutes, _ in slides if decided == row)
        assert taken == row.minutes, f"{row.notebook} «{row.section}»: its slides take {taken} min, the path says {row.minutes}"
    titles = [minutes for _, row, minutes, _ in slides if row is None]
    assert titles == [cut.title_minutes] * len(course.live_notebooks()), f"each title slide {cut.title_minutes} min"


def test_the_rest_is_a_second_session_of_the_same_bound(root):
    """The live sections the lecture leaves out make a second 90-minute session, questions included."""
    course = load(root)
    second = [row for row in course.lecture_path if row.mode == "second"]
    minutes = sum(row.minutes for row in second)
    assert second and minutes + course.cut.questions <= course.cut.total, (
        f"the second session's {len(second)} sections take {minutes} min, with questions more than {course.cut.total}")


def test_the_slide_count_is_the_decks():
    nb = lecture_edition.lecture_edition(notebook(), "09_example", ROWS, condensed=True)
    page, _ = handouts.slides_exporter().from_notebook_node(nb)
    assert handouts.slide_count(page) == lecture_edition.slide_count(nb) == 5


def test_the_condensed_lecture_is_one_notebook_its_parts_in_order(root):
    """One slideshow, one kernel, one set-up: the condensed editions of the lecture's notebooks one after another, every
    cell of each (the hidden ones still run), each cell id unique, and the slides the parts' slides."""
    course = load(root)
    parts = {path.stem: lecture_edition.lecture_edition(nbformat.read(path, as_version=4), path.stem,
                                                        course.lecture_path, True, course.cut)
             for path in course.live_notebooks()}
    lecture = lecture_edition.one_lecture(parts)
    nbformat.validate(lecture)
    assert [cell.source for cell in lecture.cells] == [cell.source for part in parts.values() for cell in part.cells]
    assert len({cell.id for cell in lecture.cells}) == len(lecture.cells), "every cell id once"
    assert lecture_edition.slide_count(lecture) == sum(map(lecture_edition.slide_count, parts.values()))
    assert lecture.metadata.kernelspec.name == "autograd-memory-lab"


def test_make_present_condensed_copies_the_lecture_once_as_one_notebook(tmp_path, root):
    folder = tmp_path / "lecture_condensed"
    copied = my_notebooks.copy_missing(root / "notebooks", folder, condensed=True)
    assert copied == [lecture_edition.LECTURE], copied
    assert (folder / copied[0]).read_text() == lecture_edition.condensed_lecture_text(load(root))
    (folder / copied[0]).write_text("my work")
    assert my_notebooks.copy_missing(root / "notebooks", folder, condensed=True) == []
    assert (folder / copied[0]).read_text() == "my work", "a lecturer's copy is never overwritten"
    dry_run = {target: subprocess.run(["make", "-n", target, "PYTHON=true", "CONDENSED=1"], cwd=root,
                                      capture_output=True, text=True).stdout for target in ("present", "slides")}
    assert "tools.my_notebooks --condensed" in dry_run["present"], dry_run["present"]
    assert f" lecture_condensed/{lecture_edition.LECTURE}" in dry_run["present"], "it opens the one condensed lecture"
    assert "tools.handouts slides --condensed" in dry_run["slides"], dry_run["slides"]
    ignored = subprocess.run(["git", "check-ignore", "-q", f"lecture_condensed/{lecture_edition.LECTURE}"], cwd=root)
    assert ignored.returncode == 0, "lecture_condensed/ holds the lecturer's copies: git ignores them"


def test_make_slides_condensed_is_one_deck_of_the_lectures_slides(root):
    course = load(root)
    decks = handouts.deck_notebooks(course.live_notebooks(), condensed=True)
    assert list(decks) == ["lecture"], f"the condensed lecture is one deck, not {list(decks)}"
    slides = sum(count for count, _ in lecture_edition.condensed_summary(course).values())
    assert lecture_edition.slide_count(decks["lecture"]) == slides
