"""Every generated file is what `make generate` (``python -m tools build``) makes from course.toml, the notebooks and
the records in data/: one test per target of tools/targets.py. A measured record (the run times, the slide fit) is
checked against what it measured. The build itself is text from text: deterministic, and it starts no program."""
import pathlib
import subprocess
import sys

import nbformat
import pytest

from tools import targets
from tools.course import load


@pytest.mark.parametrize("target", targets.TARGETS, ids=[target.name for target in targets.TARGETS])
def test_the_target_is_current(target, root):
    found = target.stale(load(root))
    renew = f"`{target.command}`" if isinstance(target, targets.Measured) else "`make generate`"
    assert not found, f"{target.name} is stale: {'; '.join(found)}. Run {renew} and commit what it changes"


def _snapshot(folder):
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.slow
def test_the_build_is_text_from_text_the_same_bytes_twice_and_starts_no_program(tmp_path, root, monkeypatch):
    """On a copy of the course with a generated file edited by hand, one build restores it, a second writes
    nothing, and neither starts a program (no notebook kernel, no benchmark, no browser, no deploy/ script)."""
    copy = _copy(root, tmp_path)
    learner = copy / "learner" / load(root).notebooks[1].file
    learner.write_text(learner.read_text().replace("Objectives", "Goals", 1))

    def refuse(self, args, *more, **options):
        pytest.fail(f"the build started {args!r}: it only reads and writes files")
    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    wrote = []
    targets.build(copy, log=wrote.append)
    first = _snapshot(copy)
    again = []
    targets.build(copy, log=again.append)
    assert wrote == [f"[learner edition] wrote learner/{learner.name}"] and not again, (wrote, again)
    assert _snapshot(copy) == first
    assert learner.read_bytes() == (root / "learner" / learner.name).read_bytes()


@pytest.mark.slow
def test_check_exits_1_listing_a_stale_target(tmp_path, root):
    """`python -m tools check` on a copy with one hand-edited generated file names it and exits 1."""
    copy = _copy(root, tmp_path)
    learner = copy / "learner" / load(root).notebooks[1].file
    learner.write_text(learner.read_text().replace("Objectives", "Goals", 1))
    done = subprocess.run([sys.executable, "-m", "tools", "check"], cwd=copy, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "[learner edition] stale" in done.stdout and learner.name in done.stdout, done.stdout


def _copy(root, to, left_out=(":!instruments", ":!tests")):
    """What the build reads and writes, copied (the files git tracks or would, but ``left_out``: no .venv, no
    build/)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".", *left_out],
                           cwd=root, capture_output=True, text=True, check=True).stdout
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


def _committed(cells):
    """A notebook of ``cells`` as the course commits one: its kernel, nbformat 4.4 (no cell ids)."""
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "autograd-memory-lab", "display_name": "Autograd Memory Lab", "language": "python"}})
    nb.nbformat_minor = 4
    for cell in nb.cells:
        del cell["id"]
    return nb


def _throwaway_notebook():
    cells = [nbformat.v4.new_markdown_cell(f"# {NUMBER} · A throwaway notebook\n\n**Time:** about 5 minutes.\n\n"
                                           "**Objectives.** In this notebook you\n- add a notebook to the course\n"),
             nbformat.v4.new_markdown_cell("## 1 · One check"),
             nbformat.v4.new_code_cell("x = 1\nassert x == 1, 'x should be 1'"),
             nbformat.v4.new_markdown_cell("## Summary\n\n- **A notebook joins the course** with one manifest entry.")]
    return _committed(cells)


@pytest.mark.slow
def test_a_new_notebook_is_its_files_one_manifest_entry_and_one_command(tmp_path, root):
    """In a copy of the course: the next notebook and its course.toml entry, then `python -m tools build` (what `make
    generate` runs) writes everything in one pass, counting its budget as its run time. What stays stale is what no
    build can make, each naming `make measure`: its run time, and the slide fit of 00, whose map slide grew a row."""
    copy = _copy(root, tmp_path)
    nbformat.write(_throwaway_notebook(), copy / "notebooks" / NEW)
    (copy / "course.toml").write_text((copy / "course.toml").read_text() + NEW_ENTRY)

    built = subprocess.run([sys.executable, "-m", "tools", "build"], cwd=copy, capture_output=True, text=True, timeout=300)
    wrote = [line for line in built.stdout.splitlines() if "] wrote " in line]
    assert len(wrote) == len(set(wrote)), f"each file written once, in dependency order: {wrote}"
    assert built.returncode == 0, "a stale measured record is reported, not a failure: `make measure` builds after it"
    checked = subprocess.run([sys.executable, "-m", "tools", "check"], cwd=copy, capture_output=True, text=True, timeout=120)
    stale = checked.stdout.splitlines()
    assert len(stale) == 2 and stale[0].startswith(f"[notebook run times] stale (run `make measure`): {NUMBER}_throwaway") and (
        stale[1].startswith("[slide-fit record] stale (run `make measure`)") and "00_start_here" in stale[1]), (
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
    assert f"{NUMBER}_throwaway" not in (copy / "data" / "notebooks_cpu.json").read_text(), "the build measures nothing"


def _newcomers_notebook():
    """The next notebook as CONTRIBUTING.md and docs/writing.md ask a newcomer to write it: a title cell with its Time line
    and objectives, a section that predicts, measures and checks, speaker notes, a summary; each cell's slide type
    chosen by hand. No setup cell and no link to the next notebook: the build writes those."""
    slide = {"slideshow": {"slide_type": "slide"}}
    cells = [
        nbformat.v4.new_markdown_cell(f"# {NUMBER} · Runge-Kutta steps\n\n**Time:** about 5 minutes.\n\n**Objectives.** In "
                                      "this notebook you\n- measure what a Runge-Kutta step saves for backward\n",
                                      metadata=slide),
        nbformat.v4.new_code_cell("import torch\n\nimport course_utils as cu", metadata={"slideshow": {"slide_type": "skip"}}),
        nbformat.v4.new_markdown_cell("## 1 · One step\n\n**Predict:** how many tensors does one step save?",
                                      metadata=slide),
        nbformat.v4.new_code_cell('guess = cu.predict("tensors one step saves", guess=...)',
                                  metadata={"slideshow": {"slide_type": "-"}}),
        nbformat.v4.new_code_cell("x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\nsaved = 1\n"
                                  "guess.reveal(saved, why='x * x saves x once')", metadata={"slideshow": {"slide_type": "-"}}),
        nbformat.v4.new_code_cell("assert saved == 1, 'one step saves one tensor'",
                                  metadata={"slideshow": {"slide_type": "skip"}}),
        nbformat.v4.new_markdown_cell("**Speaker notes.** Ask the room for a guess before running the step.",
                                      metadata={"slideshow": {"slide_type": "notes"}}),
        nbformat.v4.new_markdown_cell("## Summary\n\n- **A step saves what its backward needs** (Section 1).\n",
                                      metadata=slide),
        nbformat.v4.new_markdown_cell("**Speaker notes.** Ask which section showed the rule.",
                                      metadata={"slideshow": {"slide_type": "notes"}}),
    ]
    return _committed(cells)


NEWCOMER = f"{NUMBER}_runge_kutta.ipynb"
NEWCOMER_ENTRY = f'''
[[notebooks]]
id = "{NUMBER}"
file = "{NEWCOMER}"
title = "Runge-Kutta steps"
question = "What does a Runge-Kutta step keep for backward?"
'''
# The fast suite's tests of the notebooks and of what the build writes from them.
STRUCTURAL = ["test_slide_metadata.py", "test_notebook_hygiene.py", "test_learner_links.py", "test_learner_edition_seams.py",
              "test_editions.py", "test_setup_cell.py", "test_notebook_map.py", "test_reading_model.py",
              "test_lecturer_sheets.py", "test_fast_path.py", "test_executed.py", "test_generated.py",
              "test_lecture_edition.py", "test_my_notebooks.py", "test_docs.py"]
# What only `make measure` renews (a run in the course's kernel, chromium): the build leaves them stale, saying so.
MEASURED = ["tests/test_generated.py::test_the_target_is_current[notebook run times]",
            "tests/test_generated.py::test_the_target_is_current[slide-fit record]",
            "tests/test_slide_fit_record.py"]
GUIDE_SECTION = f"""**Discussion questions.**
1. How many tensors does one Runge-Kutta step save?
2. Which of them does the next step need?
3. What would checkpointing a step save?

**Common misconceptions.**
- "A step saves nothing once it returns." Refuted in {NUMBER} «1 · One step».

**The live demo.** One step, its saved tensors counted.

"""


def _clone(root, to):
    """A checkout of the course as a contributor has it: git's history (a clone sharing this one's objects), the files
    as they are here, committed or not, and this checkout's environment (.venv)."""
    subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(root), str(to)], check=True)
    subprocess.run(["git", "reset", "--quiet"], cwd=to, check=True)
    _copy(root, to, left_out=())
    (to / ".venv").symlink_to(root / ".venv")
    return to


@pytest.mark.slow
def test_a_newcomer_adds_the_next_notebook_as_contributing_says_and_the_fast_suite_passes(tmp_path, root):
    """The whole path of CONTRIBUTING.md's "Adding a notebook", in a checkout of the course: the notebook file, one
    [[notebooks]] entry, `python -m tools build`, its section of the instructor guide written; then the fast suite's
    tests of the notebooks and of what the build writes pass, but for the measured records, which fail naming `make
    measure` (it runs the notebook, and the lecture's slides in chromium)."""
    copy = _clone(root, tmp_path / "course")
    nbformat.write(_newcomers_notebook(), copy / "notebooks" / NEWCOMER)
    (copy / "course.toml").write_text((copy / "course.toml").read_text() + NEWCOMER_ENTRY)
    built = subprocess.run([sys.executable, "-m", "tools", "build"], cwd=copy, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0 and "run `make measure`" in built.stdout, built.stdout + built.stderr
    guide = copy / "docs" / "instructors.md"
    text = guide.read_text()
    at = text.index(f"<!-- checks-{NUMBER}:")
    guide.write_text(text[:at] + GUIDE_SECTION + text[at:])
    subprocess.run(["git", "add", "-A"], cwd=copy, check=True)

    suite = [sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider"]
    passed = subprocess.run([*suite, *(f"tests/{name}" for name in STRUCTURAL), *(f"--deselect={t}" for t in MEASURED)],
                            cwd=copy, capture_output=True, text=True, timeout=600)
    assert passed.returncode == 0, passed.stdout[-6000:] + passed.stderr[-2000:]
    measured = subprocess.run([*suite, *MEASURED], cwd=copy, capture_output=True, text=True, timeout=300)
    assert measured.returncode == 1 and measured.stdout.count("make measure") >= 2, measured.stdout[-4000:]
