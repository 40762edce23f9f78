"""The course's two editions, both generated from notebooks/ (the one source):

- the **lecture edition** is notebooks/ with its speaker notes, each live section's minutes added to them
  (tools/lecture_edition.py, which also condenses it): `make present` (lecture_notebooks/) and `make slides` (the
  decks, where the notes are the speaker view, key S);
- the **learner's edition** leaves out the speaker-notes cells (markdown cells whose slide type is ``notes``):
  `make lab` (my_notebooks/), the reading site (`make site`), and learner/, the committed copy that the README's
  Colab and Binder links open (Colab opens a path on GitHub, so that copy has to be in the repository).

    python tools/editions.py --write     bring learner/ up to date with notebooks/ (idempotent)
    python tools/editions.py --check     list what is out of date; exit 1 if anything is

learner/ is never edited by hand: tests/test_editions.py fails when it differs from what this file makes.

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"),
    ...     nbformat.v4.new_markdown_cell("**Speaker notes.** Ask the room first.", metadata=NOTES)])
    >>> [cell.source for cell in learner_edition(nb).cells]
    ['# Title']
"""
import copy
import sys

import nbformat

from project import ROOT, write_or_check

SOURCE, LEARNER = ROOT / "notebooks", ROOT / "learner"
NOTES = {"slideshow": {"slide_type": "notes"}}


def is_speaker_notes(cell):
    """A speaker-notes cell: a markdown cell whose slide type is ``notes`` (RISE and reveal.js show it to the
    lecturer only)."""
    return cell.cell_type == "markdown" and cell.get("metadata", {}).get("slideshow", {}).get("slide_type") == "notes"


def learner_edition(nb):
    """A copy of ``nb`` without its speaker notes; cell ids (nbformat 4.5) renumbered as the pre-commit hook
    writes them, so that the copy is what a commit of it would hold."""
    nb = copy.deepcopy(nb)
    nb.cells = [cell for cell in nb.cells if not is_speaker_notes(cell)]
    for number, cell in enumerate(nb.cells):
        if "id" in cell:
            cell.id = str(number)
    return nb


def learner_text(path):
    """The learner's edition of the notebook at ``path``, as the text of an .ipynb file."""
    return nbformat.writes(learner_edition(nbformat.read(path, as_version=4))) + "\n"


def stale(source=SOURCE, learner=LEARNER, write=False):
    """learner/'s files that differ from what notebooks/ makes, or should not be there; ``write`` fixes them."""
    wanted = {path.name: learner_text(path) for path in sorted(source.glob("*.ipynb"))}
    out_of_date = [name for name, text in wanted.items()
                   if not (learner / name).exists() or (learner / name).read_text() != text]
    extra = sorted(path.name for path in learner.glob("*.ipynb") if path.name not in wanted) if learner.exists() else []
    if write:
        learner.mkdir(exist_ok=True)
        for name in out_of_date:
            (learner / name).write_text(wanted[name])
        for name in extra:
            (learner / name).unlink()
    return out_of_date + extra


def main(argv=None):
    return write_or_check("editions", __doc__, stale, "learner/ from notebooks/", argv)


if __name__ == "__main__":
    sys.exit(main())
