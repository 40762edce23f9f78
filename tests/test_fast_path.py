"""The PINN fast path (course.toml's [fast_path], tools/fast_path.py): it reaches each case a learner with seed 000's
problem arrives with, every cell it runs is on it (its cells run alone, in order, in a fresh kernel), and 00, 05 and
the README state one time, from one place."""
import re

import nbformat
import pytest

from tools import fast_path, routes
from tools.course import FAST_PATH_MARK, HEADING, headings, load, title_cell

COURSE = load()
RUNS = fast_path.runs(COURSE)


def test_the_route_reaches_each_case_seed_000_arrives_with():
    reached = {(stop.notebook, found[2].split(" · ")[0].split(",")[0]) for stop, indices in fast_path.route(COURSE)
               for i in indices for cell in [fast_path.notebook_cells(COURSE, stop.notebook)[i]]
               if cell.cell_type == "markdown" for found in HEADING.finditer(cell.source)}
    assert {("05_laplacian_pinn", "The posted second derivatives"), ("05_laplacian_pinn", "Seed 000's own log")} <= reached, (
        "the route shows second derivatives without create_graph training to the wrong answer, and seed 000's log read "
        "as a price")
    assert ("05_laplacian_pinn", "The fixed loop: 200 iterations") in reached, "a leaking loop: the route reaches the fixed loop"
    assert ("06_which_laplacian", "When the price itself does not fit") in reached, "a price that does not fit: 06's section"


def test_where_find_leaks_reads_flat_the_text_sends_the_learner_to_the_price_section():
    cells = fast_path.notebook_cells(COURSE, "07")
    text = "\n".join(cells[i].source for i in RUNS["07_find_the_leak"] if cells[i].cell_type == "markdown")
    flat = re.search(r"\*\*If it reads flat\*\*(.*?)(?:\n\n|$)", text, re.S)
    assert flat and "[06](06_which_laplacian.ipynb) «When the price itself does not fit»" in flat[1], (
        "07 §5 says what a flat report means and sends the learner to 06's price section")


@pytest.mark.parametrize("notebook", list(RUNS))
def test_every_cell_the_route_needs_is_on_the_route(notebook):
    cells = fast_path.notebook_cells(COURSE, notebook)
    assert routes.missing_names(cells, RUNS[notebook]) == [], (
        f"{notebook}: a cell on the fast path reads a name that only a skipped cell binds: put that cell on the route")


def test_a_section_without_its_set_up_is_found():
    cells = fast_path.notebook_cells(COURSE, "07")
    section = list(range(*fast_path.stop_range(cells, fast_path.Stop("07_find_the_leak", "5 · Bring your own code", ""))))
    assert {"torch", "cu", "device"} <= {name for _, name, _ in routes.missing_names(cells, section)}, (
        "07 §5 alone reads the set-up cell's names")
    assert routes.closure(cells, section)[0] < section[0], "its closure takes in the set-up cell"


SET_UP = re.compile(r"set-up cell, the code cell that starts `([^`]+)`")


def section_5_as_written():
    """07 §5's cells, with the set-up cell its text names (found by the words it says the cell starts with) first:
    what a reader who came straight to §5 runs, following the instruction."""
    cells = fast_path.notebook_cells(COURSE, "07")
    section = list(range(*fast_path.stop_range(cells, fast_path.Stop("07_find_the_leak", "5 · Bring your own code", ""))))
    said = [found[1] for i in section if cells[i].cell_type == "markdown" for found in SET_UP.finditer(cells[i].source)]
    assert len(said) == 1, "07 §5 names its set-up cell once, as 'the code cell that starts `...`'"
    named = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and cell.source.startswith(said[0])]
    assert len(named) == 1, f"one code cell of 07 starts {said[0]!r}: {named}"
    return cells, [named[0], *section]


def test_07_s_set_up_instruction_names_the_cell_that_binds_what_section_5_reads():
    cells, as_written = section_5_as_written()
    assert routes.missing_names(cells, as_written) == [], "the cell 07 §5 names binds every name §5 reads"


@pytest.mark.slow
def test_07_s_section_5_runs_as_its_set_up_instruction_says():
    from nbclient import NotebookClient

    from tools import executed

    cells, as_written = section_5_as_written()
    alone = nbformat.read(COURSE.notebook("07").path, as_version=4)
    alone.cells = [cells[i] for i in as_written]
    NotebookClient(alone, timeout=executed.CELL_TIMEOUT, kernel_name=executed.KERNEL,
                   resources={"metadata": {"path": str(COURSE.folder("learner"))}}).execute()


def test_00_05_and_the_readme_state_one_time_from_one_place():
    _, total = fast_path.minutes(COURSE)
    for marked in COURSE.fast_path["marked_in"]:
        path = COURSE.notebook(marked).path
        notebook = nbformat.read(path, as_version=4)
        index = title_cell(notebook, path.name)
        boxes = [i for i, cell in enumerate(notebook.cells) if cell.source.startswith(FAST_PATH_MARK)]
        assert boxes == [index + 1], f"{path.name}: one fast-path cell, right below the title"
        assert notebook.cells[index + 1].source == fast_path.fast_path_text(COURSE, path.stem), "run `make generate`"
        assert f"**PINN fast path, about {round(total)} minutes.**" in notebook.cells[index + 1].source
    for entry in COURSE.fast_path["assumes"]:  # the back-links name sections that exist
        assert entry["heading"] in headings(COURSE.notebook(entry["notebook"]).path)
    assert fast_path.readme_paragraph(COURSE) in (COURSE.root / "README.md").read_text()
    assert f"about {round(total)} minutes" in fast_path.readme_paragraph(COURSE)


@pytest.mark.slow
@pytest.mark.parametrize("notebook", list(RUNS))
def test_the_routes_cells_run_alone_in_order_in_a_fresh_kernel(notebook):
    from nbclient import NotebookClient

    from tools import executed

    alone = nbformat.read(COURSE.notebook(notebook).path, as_version=4)
    alone.cells = [fast_path.notebook_cells(COURSE, notebook)[i] for i in RUNS[notebook]]
    client = NotebookClient(alone, timeout=executed.CELL_TIMEOUT, kernel_name=executed.KERNEL,
                            resources={"metadata": {"path": str(COURSE.folder("learner"))}})
    client.execute()  # a NameError (or any failing check cell) raises CellExecutionError with the cell and its traceback
    assert all(output.output_type != "error" for cell in alone.cells if cell.cell_type == "code" for output in cell.outputs)
