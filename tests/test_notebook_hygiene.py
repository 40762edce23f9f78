"""Notebooks are committed clean, name the course kernel, and match the README's map."""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

KERNEL = "autograd-memory-lab"


def notebooks(root):
    return sorted((root / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks(root):
    assert (root / "notebooks" / "00_start_here.ipynb").exists()


@pytest.mark.parametrize("name", [p.name for p in notebooks(ROOT)])
def test_notebook_is_clean_and_uses_course_kernel(root, name):
    nb = json.loads((root / "notebooks" / name).read_text())
    dirty = [i for i, cell in enumerate(nb["cells"])
             if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None)]
    assert not dirty, (f"{name}: cells {dirty} hold outputs or execution counts; clear them with "
                       "`jupyter nbconvert --clear-output --inplace notebooks/*.ipynb`")
    assert nb["metadata"].get("kernelspec", {}).get("name") == KERNEL, f"{name} must use the '{KERNEL}' kernel"


def test_readme_map_lists_exactly_the_notebooks(root):
    readme = (root / "README.md").read_text()
    mapped = set(re.findall(r"\(notebooks/(\d\d_[\w]+\.ipynb)\)", readme))
    present = {p.name for p in notebooks(root)}
    assert mapped == present, (f"README map and notebooks/ differ: only in README {mapped - present}, "
                               f"only on disk {present - mapped}")


def test_start_here_links_every_notebook(root):
    text = (root / "notebooks" / "00_start_here.ipynb").read_text()
    missing = [p.name for p in notebooks(root) if p.name not in text]
    assert not missing, f"00_start_here.ipynb's map does not link {missing}"
