"""Every notebook's first cell (the Colab setup) and the README's Colab/Binder links, written from one URL.
The links open learner/, the learner's edition of the notebooks (tools/editions.py).

    python tools/setup_cell.py --write     bring notebooks/*.ipynb and README.md up to date (idempotent)
    python tools/setup_cell.py --check     list what is out of date; exit 1 if anything is

The URL is pyproject.toml's [project.urls] Repository: a fork changes that line and runs --write.
The setup cell is a no-op except on Google Colab, where it fetches the course next to the notebook, installs what
Colab lacks (tools/colab_setup.py; Colab's own torch stays) and makes ``import course_utils`` work.
"""
import pathlib
import re
import sys

import nbformat

from project import BRANCH, ROOT, github_path, repository, write_or_check

MARKER = "# Setup for Google Colab"
CELL = MARKER + """ (a no-op anywhere else): fetch the course, install what Colab lacks, keep Colab's torch.
# Written by tools/setup_cell.py from pyproject.toml's repository URL (README: "Your own fork").
import sys

if "google.colab" in sys.modules:
    import os, subprocess
    course = os.path.abspath("{name}")
    if not os.path.isdir(course):
        subprocess.run(["git", "clone", "--depth=1", "{url}", course], check=True)
    subprocess.run([sys.executable, os.path.join(course, "tools", "colab_setup.py")], check=True)
    if course not in sys.path:
        sys.path.insert(0, course)"""
LINKS_START, LINKS_END = "<!-- links: written by tools/setup_cell.py --write -->", "<!-- /links -->"


def setup_source(root=ROOT):
    url = repository(root)
    return CELL.format(url=url, name=url.rsplit("/", 1)[1])


def is_setup_cell(cell):
    return cell.cell_type == "code" and cell.source.startswith(MARKER)


# The links open the learner's edition (no speaker notes), which tools/editions.py writes into learner/.
def colab_url(notebook, root=ROOT):
    return f"https://colab.research.google.com/github/{github_path(root)}/blob/{BRANCH}/learner/{notebook}"


def binder_url(notebook, root=ROOT):
    return f"https://mybinder.org/v2/gh/{github_path(root)}/{BRANCH}?urlpath=lab/tree/learner/{notebook}"


def links_block(root=ROOT):
    """The README's badges and a Colab link per notebook."""
    notebooks = [p.name for p in sorted((root / "notebooks").glob("*.ipynb"))]
    first = notebooks[0]
    per_notebook = " · ".join(f"[{name[:2]}]({colab_url(name, root)})" for name in notebooks)
    return "\n".join([
        LINKS_START,
        f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder_url(first, root)})",
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(first, root)})",
        f"On Colab, open any notebook: {per_notebook}. Run its first cell, which installs the course there.",
        LINKS_END])


def updated_notebook(path, root=ROOT):
    """The notebook at ``path`` with the current setup cell first (None when it already has it)."""
    notebook = nbformat.read(path, as_version=4)
    source = setup_source(root)
    if notebook.cells and is_setup_cell(notebook.cells[0]):
        if notebook.cells[0].source == source:
            return None
        notebook.cells[0].source = source
    else:
        cell = nbformat.v4.new_code_cell(source)
        if notebook.nbformat_minor < 5:
            del cell["id"]  # cell ids came with nbformat 4.5; the course's notebooks are older
        notebook.cells.insert(0, cell)
    return notebook


def updated_readme(root=ROOT):
    """README.md's text with the current links block (None when it already has it)."""
    text = (root / "README.md").read_text()
    pattern = re.compile(re.escape(LINKS_START) + r".*?" + re.escape(LINKS_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {LINKS_START} ... {LINKS_END} block to fill in")
    new = pattern.sub(lambda _: links_block(root), text)
    return None if new == text else new


def stale(root=ROOT, write=False):
    """Files whose setup cell or links are not current; with ``write``, bring them up to date."""
    out_of_date = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        notebook = updated_notebook(path, root)
        if notebook is not None:
            out_of_date.append(path.relative_to(root).as_posix())
            if write:
                nbformat.write(notebook, path)
    readme = updated_readme(root)
    if readme is not None:
        out_of_date.append("README.md")
        if write:
            (root / "README.md").write_text(readme)
    return out_of_date


def main(argv=None):
    return write_or_check("setup_cell", __doc__, stale, "the notebooks and README.md", argv)


if __name__ == "__main__":
    sys.exit(main())
