"""The notebook map in README.md and 00 is written from the notebooks' own metadata (tools/notebook_map.py)."""
import shutil

import nbformat
import pytest

import notebook_map


def test_the_map_is_current(root):
    assert notebook_map.stale(root) == [], "README's or 00's notebook map is stale: run `python tools/notebook_map.py --write`"


def copy_course(root, to):
    shutil.copytree(root / "notebooks", to / "notebooks", ignore=shutil.ignore_patterns("clinic"))
    shutil.copy(root / "README.md", to / "README.md")


def test_a_new_notebook_brings_its_row(tmp_path, root):
    copy_course(root, tmp_path)
    notebook = nbformat.read(tmp_path / "notebooks" / "07_find_the_leak.ipynb", as_version=4)
    notebook.metadata["amlab"]["map"] = {"name": "A new topic", "question": "What does the new notebook answer?"}
    nbformat.write(notebook, tmp_path / "notebooks" / "08_new_topic.ipynb")

    assert notebook_map.stale(tmp_path, write=True) == ["README.md", "notebooks/00_start_here.ipynb"]
    row = "| 08 | [A new topic]({}08_new_topic.ipynb) | What does the new notebook answer? |"
    assert row.format("notebooks/") in (tmp_path / "README.md").read_text()
    assert row.format("") in (tmp_path / "notebooks" / "00_start_here.ipynb").read_text().replace('\\"', '"')
    assert notebook_map.stale(tmp_path) == [], "a second --write changes nothing"


def test_a_notebook_without_its_row_says_what_to_add(tmp_path, root):
    copy_course(root, tmp_path)
    notebook = nbformat.read(tmp_path / "notebooks" / "07_find_the_leak.ipynb", as_version=4)
    del notebook.metadata["amlab"]
    nbformat.write(notebook, tmp_path / "notebooks" / "08_new_topic.ipynb")
    with pytest.raises(SystemExit, match="08_new_topic.ipynb has no map row: add"):
        notebook_map.stale(tmp_path)
