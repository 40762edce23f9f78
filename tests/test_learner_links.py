"""Links a learner follows: each exercise to its worked solution (a separate file, opened on purpose), each notebook's
end to the cheat sheet and to the next notebook; every relative link resolves where the learner's copies live
(learner/ for Colab's and Binder's links, my_notebooks/ for `make lab`: both one folder below the repository's root),
and on the reading site, where tools/handouts.py sends them to the repository."""
import pathlib
import re

import nbformat
import pytest

from tools import handouts

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)
LEARNER = sorted((ROOT / "learner").glob("[0-9][0-9]_*.ipynb"))
LINK = re.compile(r"\]\(([^)\s]+)\)")
CHECKER_CALL = re.compile(r"\bcheck_\w+\(")
CHEAT_SHEET = "../docs/cheat_sheet.md"


def exercises(cells):
    """``[(statement cell, exercise cell)]``: each exercise (a code cell that raises NotImplementedError and calls
    a checker) with the markdown cell above it that states it."""
    found = []
    for index, cell in enumerate(cells):
        if cell.cell_type == "code" and "raise NotImplementedError" in cell.source and CHECKER_CALL.search(cell.source):
            statement = max(i for i in range(index) if cells[i].cell_type == "markdown")
            found.append((statement, index))
    return found


@pytest.mark.parametrize("path", LEARNER, ids=[p.stem[:2] for p in LEARNER])
def test_each_exercise_links_its_worked_solution_without_showing_it(path):
    cells = nbformat.read(path, as_version=4).cells
    solution = f"../solutions/{path.stem}.py"
    for statement, exercise in exercises(cells):
        assert f"]({solution})" in cells[statement].source, (
            f"learner/{path.name} cell {statement}: the exercise below it links its worked solution, [...]({solution})")
        solution_text = (path.parent / solution).read_text()
        for name in re.findall(r"^def (\w+)", cells[exercise].source, re.M):
            worked = name if f"def {name}(" in solution_text else name.removeprefix("fix_")  # 07: fix_x's answer is x
            assert f"def {worked}(" in solution_text and f"`{worked}`" in cells[statement].source, (
                f"the link names the function to look for in {solution}, `{worked}`, which holds the worked answer")


@pytest.mark.parametrize("path", LEARNER, ids=[p.stem[:2] for p in LEARNER])
def test_each_notebook_ends_with_the_cheat_sheet_and_the_next_notebook(path):
    last = nbformat.read(path, as_version=4).cells[-1]
    following = LEARNER[LEARNER.index(path) + 1] if path != LEARNER[-1] else LEARNER[0]  # the last one: back to 00
    assert last.cell_type == "markdown" and f"]({CHEAT_SHEET})" in last.source, (
        f"learner/{path.name} ends with a link to the cheat sheet, [...]({CHEAT_SHEET})")
    assert f"]({following.name})" in last.source, f"learner/{path.name} ends with a link to {following.name}"


@pytest.mark.parametrize("path", LEARNER, ids=[p.stem[:2] for p in LEARNER])
def test_relative_links_resolve_in_the_learners_copies_and_on_the_site(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for target in LINK.findall(cell.source):
            if re.match(r"[a-z]+:|#", target):
                continue
            assert (path.parent / target.split("#")[0]).exists(), f"learner/{path.name}: {target} does not exist"
    page = handouts.site_page(nb)
    outside = [target for cell in page.cells if cell.cell_type == "markdown" for target in LINK.findall(cell.source)
               if target.startswith("../")]
    assert not outside, f"the site has no ../ beside its pages: tools/handouts.py sends these to the repository: {outside}"
