"""Every notebook's first cell (the Colab setup) and the README's Colab/Binder links, written from one URL.
The links open learner/, the learner's edition of the notebooks (tools/editions.py).

Both are targets of `python -m tools build` (`make generate`). The URL is pyproject.toml's [project.urls]
Repository: a fork changes that line and runs `make generate`.
The setup cell is a no-op except on Google Colab, where it fetches the course next to the notebook, installs what
Colab lacks (tools/colab_setup.py; Colab's own torch stays) and makes ``import course_utils`` work.
"""
import nbformat

from tools.blocks import filled
from tools.course import notebook_text, read
from tools.project import ROOT, github_path, repository

MARKER = "# Setup for Google Colab"
CELL = MARKER + """ (a no-op anywhere else): fetch the course, install what Colab lacks, keep Colab's torch.
# Written by `make generate` from pyproject.toml's repository URL (docs/setup.md: "Your own fork").
import sys

if "google.colab" in sys.modules:
    import os, subprocess
    course = os.path.abspath("{name}")
    if not os.path.isdir(course):
        subprocess.run(["git", "clone", "--depth=1", "{url}", course], check=True)
    subprocess.run([sys.executable, "-m", "tools.colab_setup"], cwd=course, check=True)
    if course not in sys.path:
        sys.path.insert(0, course)"""


def setup_source(root=ROOT):
    url = repository(root)
    return CELL.format(url=url, name=url.rsplit("/", 1)[1])


def is_setup_cell(cell):
    return cell.cell_type == "code" and cell.source.startswith(MARKER)


# The links open the learner's edition (no speaker notes), which tools/editions.py writes into learner/.
def colab_url(course, notebook):
    return (f"https://colab.research.google.com/github/{github_path(course.root)}/blob/{course.branch}/"
            f"{course.manifest['editions']['learner']}/{notebook}")


def binder_url(course, notebook):
    return (f"https://mybinder.org/v2/gh/{github_path(course.root)}/{course.branch}?urlpath=lab/tree/"
            f"{course.manifest['editions']['learner']}/{notebook}")


def links_block(course):
    """The README's badges and a Colab link per notebook."""
    first = course.notebooks[0].file
    per_notebook = " · ".join(f"[{n.id}]({colab_url(course, n.file)})" for n in course.notebooks)
    return "\n".join([
        f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder_url(course, first)})",
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(course, first)})",
        f"On Colab, open any notebook: {per_notebook}. Run its first cell, which installs the course there."])


def with_setup_cell(notebook, source):
    """``notebook`` with ``source`` as its first cell, the setup cell (added the first time), skipped on slides (it
    still runs).

    >>> nb = with_setup_cell(nbformat.v4.new_notebook(), "# Setup for Google Colab")
    >>> nb.cells[0].metadata
    {'slideshow': {'slide_type': 'skip'}}
    """
    if not (notebook.cells and is_setup_cell(notebook.cells[0])):
        cell = nbformat.v4.new_code_cell()
        if notebook.nbformat_minor < 5:
            del cell["id"]  # cell ids came with nbformat 4.5; the course's notebooks are older
        notebook.cells.insert(0, cell)
    notebook.cells[0].source = source
    notebook.cells[0].metadata.setdefault("slideshow", {})["slide_type"] = "skip"
    return notebook


def setup_cells(course):
    """The setup-cell target: ``{notebook: its text with the current setup cell first}``."""
    source = setup_source(course.root)
    return {path: notebook_text(with_setup_cell(read(path), source)) for path in course.paths}


def readme_links(course):
    """The README-links target."""
    path = course.root / "README.md"
    return {path: filled(path.read_text(), "links", links_block(course), "README.md")}
