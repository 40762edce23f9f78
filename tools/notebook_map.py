"""The notebook map (number, name, the question it answers) from course.toml's ``[[notebooks]]``, written into
README.md and 00's map cell by `python -m tools build` (`make generate`).

    >>> from tools.course import load
    >>> print(table(load(), "notebooks/").splitlines()[2])
    | 00 | [Start here](notebooks/00_start_here.ipynb) | Is my set-up ready, and how do the meters read? |
"""
from tools.blocks import filled, has_block
from tools.course import notebook_text, read

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
