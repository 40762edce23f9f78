"""The course's order, from course.toml's ``[[notebooks]]``, written by `python -m tools build` (`make generate`): the
notebook map (number, name, the question it answers) in README.md and 00's map cell, and the link from each notebook's
last cell to the next notebook (the last one's back to the first) and the cheat sheet.

    >>> from tools.course import load
    >>> print(table(load(), "notebooks/").splitlines()[2])
    | 00 | [Start here](notebooks/00_start_here.ipynb) | Is my set-up ready, and how do the meters read? |
    >>> print(next_line(load(), 0).split(" All ")[0])
    **Next:** [01 · Graph lifecycle](01_graph_lifecycle.ipynb) — When does autograd let go of memory?
"""
import re

from tools.blocks import filled, has_block
from tools.course import notebook_text, read
from tools.editions import is_speaker_notes

BLOCK = "notebook map"


def table(course, folder=""):
    """The map as a markdown table; links point into ``folder`` ("notebooks/" from README)."""
    lines = ["| # | notebook | the question it answers |", "|---|---|---|"]
    lines += [f"| {n.id} | [{n.title}]({folder}{n.file}) | {n.question} |" for n in course.notebooks]
    return "\n".join(lines)


def readme_map(course):
    """The README-map target."""
    path = course.root / "README.md"
    return {path: filled(path.read_text(), BLOCK, table(course, course.manifest["editions"]["source"] + "/"), "README.md")}


def map_cell(course):
    """The map-cell target: the first notebook's one markdown cell that holds the map block."""
    path = course.paths[0]
    notebook = read(path)
    cells = [cell for cell in notebook.cells if cell.cell_type == "markdown" and has_block(cell.source, BLOCK)]
    if len(cells) != 1:
        raise SystemExit(f"{path.name} should have one markdown cell with the {BLOCK} block, found {len(cells)}")
    cells[0].source = filled(cells[0].source, BLOCK, table(course), path.name)
    return {path: notebook_text(notebook)}


CHEAT_SHEET = "../docs/cheat_sheet.md"
NEXT = re.compile(r"^\*\*(?:Next|Back to):\*\* \[[^\]]*\]\(([^)\s]+)\).*$", re.M)


def next_line(course, index):
    """The line that ends the learner's last cell of notebook ``index``: the next notebook, and the cheat sheet."""
    notebooks = course.notebooks
    sheet = f"All the rules of thumb on one page: [the cheat sheet]({CHEAT_SHEET})."
    if index + 1 < len(notebooks):
        n = notebooks[index + 1]
        return f"**Next:** [{n.id} · {n.title}]({n.file}) — {n.question} {sheet}"
    first = notebooks[0]
    return f"**Back to:** [{first.id} · {first.title}]({first.file}) for the course map. {sheet}"


def with_next_link(cell, wanted, line):
    """The cell's source ending with a link to ``wanted`` and the cheat sheet: a hand-written "**Next:**" (or "**Back
    to:**") line that links both is kept; another is replaced by ``line``; none gets ``line`` added."""
    found = NEXT.search(cell.source)
    if found and found[1] == wanted and f"]({CHEAT_SHEET})" in found[0]:
        return cell.source
    if found:
        return cell.source[:found.start()] + line + cell.source[found.end():]
    return cell.source.rstrip() + "\n\n" + line


def next_links(course):
    """The next-links target: ``{notebook: its text, its last cell but speaker notes ending with the next link}``."""
    found = {}
    for index, path in enumerate(course.paths):
        notebook = read(path)
        shown = [cell for cell in notebook.cells if cell.cell_type == "markdown" and not is_speaker_notes(cell)]
        if not shown or shown[-1] is not [c for c in notebook.cells if not is_speaker_notes(c)][-1]:
            raise SystemExit(f"{path.name}: its last cell but speaker notes should be markdown (its summary), which "
                             "ends with the link to the next notebook")
        wanted = (course.notebooks[index + 1] if index + 1 < len(course.notebooks) else course.notebooks[0]).file
        shown[-1].source = with_next_link(shown[-1], wanted, next_line(course, index))
        found[path] = notebook_text(notebook)
    return found
