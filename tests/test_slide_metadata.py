"""Every notebook is also a lecture: its cells carry RISE / nbconvert slide metadata chosen for a live class.

The rules a lecturer relies on (docs/writing.md, "Slides"):
- every cell says what it is on a slide (``metadata.slideshow.slide_type``);
- the Colab setup cell and check cells (only ``assert`` statements) are ``skip``: they still run, the room does
  not read them;
- the title and every ``## `` section open a slide, every ``### `` at least a sub-slide, and a heading starts its
  cell (a heading in the middle of a cell would put the end of one section on the next section's slide);
- the demos are on a slide: predictions (``cu.predict``), gauged loops (``.track(``) and explorer panels
  (a ``cu.explorers.<name>(...)`` call standing alone) are never skipped;
- speaker notes are ``notes`` cells that start with ``**Speaker notes.**`` (so a self-paced reader sees what
  they are), and every ``## `` section has at least one.
"""
import ast
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}
NOTES_MARK = "**Speaker notes.**"
DEMO_CALLS = ("cu.predict(", ".track(")
HEADING = re.compile(r"^#{1,3} ", re.MULTILINE)


def cells(path):
    """``[(index, cell, source, slide_type)]`` for one notebook."""
    notebook = json.loads(path.read_text())
    return [(i, cell, "".join(cell["source"]), cell["metadata"].get("slideshow", {}).get("slide_type"))
            for i, cell in enumerate(notebook["cells"])]


def only_asserts(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return bool(tree.body) and all(isinstance(statement, ast.Assert) for statement in tree.body)


def is_demo(source):
    """A prediction, a gauged loop, or an explorer panel shown by a statement of its own."""
    if any(call in source for call in DEMO_CALLS):
        return True
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
               and ast.unparse(statement.value.func).startswith("cu.explorers.") for statement in tree.body)


def sections(path):
    """``{heading: [slide types of its cells]}`` for each ``## `` section (the cells up to the next ``## ``)."""
    found, current = {}, None
    for _, cell, source, slide_type in cells(path):
        if cell["cell_type"] == "markdown" and source.startswith("## "):
            current = source.splitlines()[0]
            found[current] = []
        if current is not None:
            found[current].append(slide_type)
    return found


@pytest.fixture(params=NOTEBOOKS, ids=lambda path: path.stem)
def notebook(request):
    return request.param


def test_every_cell_says_what_it_is_on_a_slide(notebook):
    unmarked = [i for i, _, _, slide_type in cells(notebook) if slide_type not in SLIDE_TYPES]
    assert not unmarked, (f"{notebook.name}: cells {unmarked} have no slideshow.slide_type (one of "
                          f"{sorted(SLIDE_TYPES)}); in JupyterLab: Property Inspector > Slide Type")


def test_setup_and_check_cells_are_skipped_on_slides(notebook):
    listed = cells(notebook)
    assert listed[0][3] == "skip", f"{notebook.name}: the Colab setup cell (cell 0) should be 'skip' on slides"
    shown = [i for i, cell, source, slide_type in listed
             if cell["cell_type"] == "code" and only_asserts(source) and slide_type != "skip"]
    assert not shown, f"{notebook.name}: check cells {shown} hold only asserts: mark them 'skip' (they still run)"


def test_no_check_shows_on_a_slide(notebook):
    """A slide shows the demo, not its checks: an ``assert`` (anywhere in a cell, in a loop or an ``if`` too) goes to a
    ``skip`` cell of its own, after the one that shows."""
    shown = [i for i, cell, source, slide_type in cells(notebook) if cell["cell_type"] == "code" and slide_type != "skip"
             and any(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(source)))]
    assert not shown, f"{notebook.name}: cells {shown} show an assert on a slide: move it to a skip cell after them"


def test_headings_open_slides(notebook):
    wrong = []
    for i, cell, source, slide_type in cells(notebook):
        if cell["cell_type"] != "markdown":
            continue
        if (source.startswith(("# ", "## ")) and slide_type != "slide") or (
                source.startswith("### ") and slide_type not in {"slide", "subslide"}):
            wrong.append((i, source.splitlines()[0], slide_type))
    assert not wrong, f"{notebook.name}: '#'/'##' headings open a slide, '###' at least a sub-slide: {wrong}"
    buried = [(i, source[match.start():].splitlines()[0]) for i, cell, source, _ in cells(notebook)
              if cell["cell_type"] == "markdown" for match in HEADING.finditer(source) if match.start() > 0]
    assert not buried, f"{notebook.name}: split these cells so that the heading starts a cell of its own: {buried}"


def test_demos_are_on_the_slides(notebook):
    hidden = [(i, source.splitlines()[0]) for i, cell, source, slide_type in cells(notebook)
              if cell["cell_type"] == "code" and slide_type == "skip" and is_demo(source)]
    assert not hidden, f"{notebook.name}: these demo cells (prediction, gauged loop, explorer) are skipped: {hidden}"


def test_speaker_notes_are_marked_and_in_every_section(notebook):
    listed = cells(notebook)
    unmarked = [i for i, cell, source, slide_type in listed
                if slide_type == "notes" and not (cell["cell_type"] == "markdown" and source.startswith(NOTES_MARK))]
    mislabelled = [i for i, _, source, slide_type in listed if source.startswith(NOTES_MARK) and slide_type != "notes"]
    assert not unmarked, f"{notebook.name}: notes cells {unmarked} should be markdown starting with {NOTES_MARK!r}"
    assert not mislabelled, f"{notebook.name}: cells {mislabelled} start with {NOTES_MARK!r} but are not 'notes'"
    silent = [heading for heading, types in sections(notebook).items() if "notes" not in types]
    assert not silent, f"{notebook.name}: these sections have no speaker notes: {silent}"

