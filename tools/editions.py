"""The course's two editions, both generated from notebooks/ (the one source):

- the **lecture edition** is notebooks/ with its speaker notes, each live section's minutes added to them
  (tools/lecture_edition.py, which also condenses it): `make present` (lecture_notebooks/) and `make slides` (the
  decks, where the notes are the speaker view, key S);
- the **learner's edition** leaves out the speaker-notes cells (markdown cells whose slide type is ``notes``) and
  the condensed lecture's marks (``<!-- slide -->``, ``<!-- /slide -->``: a learner who edits a cell would read them):
  `make lab` (my_notebooks/), the reading site (`make site`), and learner/, the committed copy that the README's
  Colab and Binder links open (Colab opens a path on GitHub, so that copy has to be in the repository).

learner/ is a target of `python -m tools build` (`make generate`), never edited by hand.

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"),
    ...     nbformat.v4.new_markdown_cell("**Speaker notes.** Ask the room first.", metadata=NOTES),
    ...     nbformat.v4.new_markdown_cell("Prose. <!-- slide -->The point.<!-- /slide -->")])
    >>> [cell.source for cell in learner_edition(nb).cells]
    ['# Title', 'Prose. The point.']
"""
import copy
import re

from tools.course import notebook_text, read

NOTES = {"slideshow": {"slide_type": "notes"}}
MARK = re.compile(r"<!-- /?slide -->")  # tools/lecture_edition.py's marks of what a condensed slide shows


def is_speaker_notes(cell):
    """A speaker-notes cell: a markdown cell whose slide type is ``notes`` (RISE and reveal.js show it to the
    lecturer only)."""
    return cell.cell_type == "markdown" and cell.get("metadata", {}).get("slideshow", {}).get("slide_type") == "notes"


def learner_edition(nb):
    """A copy of ``nb`` without its speaker notes and slide marks; cell ids (nbformat 4.5) renumbered as the
    pre-commit hook writes them, so that the copy is what a commit of it would hold."""
    nb = copy.deepcopy(nb)
    nb.cells = [cell for cell in nb.cells if not is_speaker_notes(cell)]
    for number, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            cell.source = MARK.sub("", cell.source)
        if "id" in cell:
            cell.id = str(number)
    return nb


def learner_text(path):
    """The learner's edition of the notebook at ``path``, as the text of an .ipynb file."""
    return notebook_text(learner_edition(read(path)))


def learner(course):
    """The learner/ target: ``{file: its learner's edition}``, and None for a file there of no course notebook."""
    folder = course.folder("learner")
    wanted = {folder / path.name: learner_text(path) for path in course.paths}
    extra = {path: None for path in folder.glob("*.ipynb") if path not in wanted}
    return {**wanted, **extra}
