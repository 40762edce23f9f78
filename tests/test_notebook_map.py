"""The notebook map in README.md and 00 is written from course.toml's [[notebooks]] (tools/notebook_map.py)."""
import pytest

from tools.course import load


def test_the_map_has_a_row_per_notebook_with_its_question(root):
    course = load(root)
    readme = (root / "README.md").read_text()
    for notebook in course.notebooks:
        assert f"| {notebook.id} | [{notebook.title}](notebooks/{notebook.file}) | {notebook.question} |" in readme


def test_a_notebook_missing_from_the_manifest_says_what_to_add(tmp_path, root):
    (tmp_path / "notebooks").mkdir()
    for notebook in load(root).notebooks:
        (tmp_path / "notebooks" / notebook.file).write_text("{}")
    (tmp_path / "notebooks" / "08_new_topic.ipynb").write_text("{}")
    (tmp_path / "course.toml").write_text((root / "course.toml").read_text())
    with pytest.raises(SystemExit, match=r"08_new_topic.ipynb.*add a \[\[notebooks\]\] entry"):
        load(tmp_path)
