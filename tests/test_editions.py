"""Two editions from one source (tools/editions.py): the learner's edition (`make lab`'s my_notebooks/, learner/
that the Colab and Binder links open, the reading site) has no speaker notes; the lecture edition (`make present`'s
lecture_notebooks/, the decks of `make slides`) keeps every one, with the lecture path's minutes (tools/lecture_edition.py)."""
import pathlib
import re
import subprocess

import nbformat
import pytest

from tools import editions, handouts, lecture_edition, my_notebooks, setup_cell
from tools.course import load

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

NOTEBOOKS = load().paths


def _notes(nb):
    return [cell for cell in nb.cells if editions.is_speaker_notes(cell)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_learner_edition_is_the_source_without_its_speaker_notes_and_slide_marks(path):
    source = nbformat.read(path, as_version=4)
    learner = nbformat.read(ROOT / "learner" / path.name, as_version=4)
    assert _notes(source), f"{path.name} has speaker notes (the lecture edition keeps them)"
    assert not _notes(learner) and "**Speaker notes.**" not in (ROOT / "learner" / path.name).read_text(), (
        f"learner/{path.name} still carries speaker notes")
    kept = [(c.cell_type, editions.MARK.sub("", c.source) if c.cell_type == "markdown" else c.source, c.metadata)
            for c in source.cells if not editions.is_speaker_notes(c)]
    assert [(c.cell_type, c.source, c.metadata) for c in learner.cells] == kept, (
        "every other cell kept, in order, with the condensed lecture's marks (<!-- slide -->) left out")
    if learner.nbformat_minor >= 5:
        assert [c.id for c in learner.cells] == [str(i) for i in range(len(learner.cells))], "ids as the hook writes them"


def test_make_lab_copies_the_learners_edition_and_make_present_the_lecture_edition(tmp_path, root):
    mine, lecture = tmp_path / "my_notebooks", tmp_path / "lecture_notebooks"
    my_notebooks.copy_missing(root / "notebooks", mine)
    my_notebooks.copy_missing(root / "notebooks", lecture, lecture=True)
    for path in NOTEBOOKS:
        assert (mine / path.name).read_text() == (root / "learner" / path.name).read_text()
        copy = nbformat.read(lecture / path.name, as_version=4)
        assert [lecture_edition.TIMING.sub("", c.source) for c in copy.cells] == [
            c.source for c in nbformat.read(path, as_version=4).cells], (
            "the lecturer's copy keeps the speaker notes, and adds only the lecture path's minutes to them")
    dry_run = {target: subprocess.run(["make", "-n", target, "PYTHON=true"], cwd=root, capture_output=True, text=True).stdout
               for target in ("lab", "present")}
    assert "tools.my_notebooks\n" in dry_run["lab"] and " my_notebooks/00_start_here.ipynb" in dry_run["lab"]
    assert "tools.my_notebooks --lecture" in dry_run["present"] and " lecture_notebooks/" in dry_run["present"], (
        "`make present` serves the lecture edition")


def test_colab_and_binder_links_open_the_learners_edition(root):
    readme = (root / "README.md").read_text()
    links = re.findall(r"\((https://(?:colab\.research\.google\.com|mybinder\.org)/[^)]*\.ipynb)\)", readme)
    assert links
    for path in NOTEBOOKS:
        assert setup_cell.colab_url(load(root), path.name) in readme, f"the README's Colab link to {path.name}"
    opened = [re.search(r"(?:blob/main/|tree/)(.*\.ipynb)$", url)[1] for url in links]
    assert all(name.startswith("learner/") and (root / name).exists() for name in opened), opened


def test_decks_keep_the_speaker_notes_and_the_site_leaves_them_out():
    nb = nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4)
    deck, _ = handouts.slides_exporter().from_notebook_node(nb)
    assert deck.count('<aside class="notes">') == len(_notes(nb)), "every speaker note is in the deck's speaker view"
    page = handouts.site_page(nb)
    assert not _notes(page) and len(page.cells) == len(nb.cells) - len(_notes(nb))
    conf = (ROOT / "docs" / "site" / "conf.py").read_text()
    assert '"path_to_docs": "learner"' in conf, "the site's Colab/Binder buttons open the learner's edition"
