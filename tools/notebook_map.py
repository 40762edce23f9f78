"""The notebook map (number, name, the question it answers), written into README.md and 00's map cell from the
notebooks themselves: each notebook's metadata holds its own row, so a new notebook brings its row with it.

    python tools/notebook_map.py --write     bring README.md and notebooks/00_start_here.ipynb up to date
    python tools/notebook_map.py --check     list what is out of date; exit 1 if anything is

A notebook's row is ``metadata["amlab"]["map"] = {"name": ..., "question": ...}``.

>>> rows(ROOT)[0]
('00', '00_start_here.ipynb', 'Start here', 'Is my set-up ready, and how do the meters read?')
"""
import re
import sys

import nbformat

from project import ROOT, write_or_check

START, END = "<!-- notebook map: written by tools/notebook_map.py --write -->", "<!-- /notebook map -->"
MAP_NOTEBOOK = "00_start_here.ipynb"


def rows(root=ROOT):
    """``(number, file name, name, question)`` of every course notebook, in order."""
    found = []
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        entry = nbformat.read(path, as_version=4).metadata.get("amlab", {}).get("map")
        if not (isinstance(entry, dict) and entry.get("name") and entry.get("question")):
            raise SystemExit(f"{path.name} has no map row: add {{\"amlab\": {{\"map\": {{\"name\": ..., \"question\": ...}}}}}} "
                             "to its notebook metadata (Edit > Notebook metadata in JupyterLab)")
        found.append((path.name[:2], path.name, entry["name"], entry["question"]))
    return found


def table(root=ROOT, folder=""):
    """The map as a markdown table between its markers; links point into ``folder`` ("notebooks/" from README)."""
    lines = ["| # | notebook | the question it answers |", "|---|---|---|"]
    lines += [f"| {number} | [{name}]({folder}{file}) | {question} |" for number, file, name, question in rows(root)]
    return "\n".join([START, *lines, END])


def _filled(text, block, where):
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{where} has no {START} ... {END} block to fill in")
    return pattern.sub(lambda _: block, text)


def stale(root=ROOT, write=False):
    """Files whose map is not current; with ``write``, bring them up to date."""
    out_of_date = []
    readme = (root / "README.md").read_text()
    new = _filled(readme, table(root, "notebooks/"), "README.md")
    if new != readme:
        out_of_date.append("README.md")
        if write:
            (root / "README.md").write_text(new)
    path = root / "notebooks" / MAP_NOTEBOOK
    notebook = nbformat.read(path, as_version=4)
    cells = [cell for cell in notebook.cells if cell.cell_type == "markdown" and START in cell.source]
    if len(cells) != 1:
        raise SystemExit(f"{MAP_NOTEBOOK} should have one markdown cell with the {START} block, found {len(cells)}")
    source = _filled(cells[0].source, table(root), MAP_NOTEBOOK)
    if source != cells[0].source:
        out_of_date.append(f"notebooks/{MAP_NOTEBOOK}")
        if write:
            cells[0].source = source
            nbformat.write(notebook, path)
    return out_of_date


def main(argv=None):
    return write_or_check("notebook_map", __doc__, stale, "README.md and 00's map cell", argv)


if __name__ == "__main__":
    sys.exit(main())
