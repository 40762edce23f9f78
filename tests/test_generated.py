"""Every generated file is what `make generate` (``python -m tools build``) makes from course.toml and the notebooks:
one test per target of tools/targets.py. A measured record (the slide fit) is checked against what it measured."""
import pathlib
import subprocess
import sys

import nbformat
import pytest

from tools import targets
from tools.course import load


@pytest.mark.parametrize("target", [
    pytest.param(target, marks=pytest.mark.slow) if target.name == "class sizing" else target  # deploy/ runs as scripts
    for target in targets.TARGETS], ids=[target.name for target in targets.TARGETS])
def test_the_target_is_current(target, root):
    found = target.stale(load(root))
    renew = f"`{target.command}`" if isinstance(target, targets.Measured) else "`make generate`"
    assert not found, f"{target.name} is stale: {'; '.join(found)}. Run {renew} and commit what it changes"


@pytest.mark.slow
def test_check_exits_1_listing_a_stale_target(tmp_path, root):
    """`python -m tools check` on a copy with one hand-edited generated file names it and exits 1."""
    copy = _copy(root, tmp_path)
    learner = copy / "learner" / load(root).notebooks[1].file
    learner.write_text(learner.read_text().replace("Objectives", "Goals", 1))
    done = subprocess.run([sys.executable, "-m", "tools", "check"], cwd=copy, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "[learner edition] stale" in done.stdout and learner.name in done.stdout, done.stdout


def _copy(root, to):
    """What the build reads and writes, copied (the files git tracks or would, but the instruments and the tests:
    no .venv, no build/)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".",
                            ":!instruments", ":!tests"], cwd=root, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (root / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            (to / name).write_bytes((root / name).read_bytes())
    return to


NUMBER = f"{len(load(pathlib.Path(__file__).resolve().parents[1]).notebooks):02d}"  # the next free number
NEW = f"{NUMBER}_throwaway.ipynb"
NEW_ENTRY = f'''
[[notebooks]]
id = "{NUMBER}"
file = "{NEW}"
title = "A throwaway notebook"
question = "Does adding a notebook take one manifest entry and one command?"
'''


def _throwaway_notebook():
    cells = [nbformat.v4.new_markdown_cell(f"# {NUMBER} · A throwaway notebook\n\n**Time:** about 5 minutes.\n\n"
                                           "**Objectives.** In this notebook you\n- add a notebook to the course\n"),
             nbformat.v4.new_markdown_cell("## 1 · One check"),
             nbformat.v4.new_code_cell("x = 1\nassert x == 1, 'x should be 1'"),
             nbformat.v4.new_markdown_cell("## Summary\n\n- **A notebook joins the course** with one manifest entry.")]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "autograd-memory-lab", "display_name": "Autograd Memory Lab", "language": "python"}})
    nb.nbformat_minor = 4
    for cell in nb.cells:
        del cell["id"]
    return nb


@pytest.mark.slow
def test_a_new_notebook_is_its_files_one_manifest_entry_and_one_command(tmp_path, root):
    """In a copy of the course: the next notebook and its course.toml entry, then `python -m tools build` (what `make
    generate` runs) measures its run time and writes everything else in one pass. What stays stale is the one record
    no build can make: 00's map slide grew a row, so the slide fit of 00 is measured again in chromium."""
    copy = _copy(root, tmp_path)
    nbformat.write(_throwaway_notebook(), copy / "notebooks" / NEW)
    (copy / "course.toml").write_text((copy / "course.toml").read_text() + NEW_ENTRY)

    built = subprocess.run([sys.executable, "-m", "tools", "build"], cwd=copy, capture_output=True, text=True, timeout=300)
    wrote = [line for line in built.stdout.splitlines() if "] wrote " in line]
    assert len(wrote) == len(set(wrote)), f"each file written once, in dependency order: {wrote}"
    checked = subprocess.run([sys.executable, "-m", "tools", "check"], cwd=copy, capture_output=True, text=True, timeout=120)
    stale = checked.stdout.splitlines()
    assert len(stale) == 1 and stale[0].startswith("[slide-fit record] stale") and "00_start_here" in stale[0], (
        built.stdout + built.stderr + checked.stdout)

    readme, guide = (copy / "README.md").read_text(), (copy / "docs" / "instructors.md").read_text()
    assert f"| {NUMBER} | [A throwaway notebook](notebooks/{NEW}) |" in readme, "the README's map"
    assert f"learner/{NEW}" in readme, "the README's Colab link"
    assert f"## {NUMBER} · A throwaway notebook" in guide and "`x == 1`: x should be 1" in guide, "the guide's section"
    first = nbformat.read(copy / "notebooks" / NEW, as_version=4)
    assert first.cells[0].source.startswith("# Setup for Google Colab"), "its setup cell"
    assert "**Time:** about 5 minutes (by section: intro" in first.cells[1].source, "its Time line"
    assert (copy / "learner" / NEW).exists(), "the learner's edition"
    assert f"| {NUMBER} | [A throwaway notebook]({NEW}) |" in (copy / "notebooks" / "00_start_here.ipynb").read_text(), "00's map"
    assert "A notebook joins the course" in (copy / "docs" / "cheat_sheet.md").read_text(), "the cheat sheet"
    assert f"{NUMBER}_throwaway" in (copy / "data" / "notebooks_cpu.json").read_text(), "its measured run time"
