"""`make lab` opens the learner's own copies in my_notebooks/: copied once, never overwritten, and they run.
(Which edition each folder holds: tests/test_editions.py.)"""
import datetime
import subprocess

import nbformat
import pytest

from tools import my_notebooks


def test_copies_are_made_once_and_never_overwritten(tmp_path, root):
    mine = tmp_path / "my_notebooks"
    first = my_notebooks.copy_missing(root / "notebooks", mine)
    assert first == sorted(p.name for p in (root / "notebooks").glob("*.ipynb"))
    edited = mine / first[0]
    edited.write_text("my work")
    assert my_notebooks.copy_missing(root / "notebooks", mine) == [], "nothing new to copy"
    assert edited.read_text() == "my work", "a learner's copy is never overwritten"


def test_fresh_copy_keeps_the_old_one(tmp_path, root):
    mine = tmp_path / "my_notebooks"
    my_notebooks.copy_missing(root / "notebooks", mine)
    (mine / "01_graph_lifecycle.ipynb").write_text("my work")
    kept = my_notebooks.fresh_copy("01", root / "notebooks", mine, now=datetime.datetime(2026, 12, 1, 9, 30))
    assert kept.name == "01_graph_lifecycle.20261201-093000.ipynb" and kept.read_text() == "my work"
    assert (mine / "01_graph_lifecycle.ipynb").read_text() == (root / "learner" / "01_graph_lifecycle.ipynb").read_text(), (
        "a fresh copy is the learner's edition, as learner/ holds it")
    with pytest.raises(SystemExit, match="give one of 00_start_here"):
        my_notebooks.fresh_copy("99", root / "notebooks", mine)


def test_my_notebooks_is_ignored_by_git(root):
    ignored = subprocess.run(["git", "check-ignore", "-q", "my_notebooks/00_start_here.ipynb"], cwd=root)
    assert ignored.returncode == 0, "my_notebooks/ must be git-ignored, or `git pull` could conflict with a learner's work"


@pytest.mark.slow
def test_a_copied_notebook_runs_where_it_was_copied(tmp_path, root):
    """A copy sits in another folder than notebooks/: it must find the course and its data all the same."""
    from nbclient import NotebookClient

    mine = tmp_path / "my_notebooks"
    my_notebooks.copy_missing(root / "notebooks", mine)
    notebook = nbformat.read(mine / "00_start_here.ipynb", as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="autograd-memory-lab", resources={"metadata": {"path": str(mine)}}).execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
