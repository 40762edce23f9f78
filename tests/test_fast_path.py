"""The PINN fast path (tools/fast_path.py): it reaches each case a learner with seed 000's problem arrives with, every
cell it runs is on it (its cells run alone, in order, in a fresh kernel), and 00, 05 and the README state one time."""
import pathlib
import re

import nbformat
import pytest

import fast_path
import instructor_guide

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)


def route_text(notebook):
    """The markdown and code the route shows in ``notebook``, one string."""
    cells = fast_path.notebook_cells(notebook)
    return "\n".join(cells[i].source for i in fast_path.runs()[notebook])


def test_the_route_reaches_each_case_seed_000_arrives_with():
    headings = {(stop.notebook, found[2]) for stop, indices in fast_path.route() for i in indices
                for found in instructor_guide.HEADING.finditer(fast_path.notebook_cells(stop.notebook)[i].source)
                if fast_path.notebook_cells(stop.notebook)[i].cell_type == "markdown"}
    titles = {title.split(" · ")[0].split(",")[0] for _, title in headings}
    assert {"The posted second derivatives", "Seed 000's own log"} <= titles, (
        "the route shows second derivatives without create_graph training to the wrong answer, and seed 000's log read as a price")
    assert "The fixed loop: 200 iterations" in titles, "a leaking loop: the route reaches the fixed loop"
    assert ("06_which_laplacian", "When the price itself does not fit") in headings, "the price case: 06's section"
    assert [stop.notebook for stop in fast_path.STOPS][-1] == "06_which_laplacian"


def test_where_find_leaks_reads_flat_the_text_sends_the_learner_to_the_price_section():
    section = route_text("07_find_the_leak")
    flat = [paragraph for paragraph in re.split(r"\*\*If ", section) if paragraph.startswith("it reads flat")]
    assert flat and "[06](06_which_laplacian.ipynb) «When the price itself does not fit»" in flat[0], (
        "07 §5 says what a flat report means and sends the learner to 06's price section")


@pytest.mark.parametrize("notebook", list(fast_path.runs()))
def test_every_cell_the_route_needs_is_on_the_route(notebook):
    cells = fast_path.notebook_cells(notebook)
    assert fast_path.missing_names(cells, fast_path.runs()[notebook]) == [], (
        f"{notebook}: a cell on the fast path reads a name that only a skipped cell binds: put that cell on the route")


def test_a_section_without_its_set_up_is_found():
    cells = fast_path.notebook_cells("07_find_the_leak")
    _, section = fast_path.route([fast_path.Stop("07_find_the_leak", "5 · Bring your own code", "x")])[0]
    missing = {name for _, name, _ in fast_path.missing_names(cells, section)}
    assert {"torch", "cu", "device"} <= missing, "07 §5 alone needs the set-up cell's names"
    assert fast_path.closure(cells, section)[0] < section[0], "its closure takes in the set-up cell"


def test_00_05_and_the_readme_state_one_time_from_one_place():
    _, total = fast_path.minutes()
    for name in fast_path.MARKED_IN:
        notebook = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        index = instructor_guide.title_cell(notebook, name)
        boxes = [i for i, cell in enumerate(notebook.cells) if cell.source.startswith(fast_path.MARK)]
        assert boxes == [index + 1], f"{name}: one fast-path box, right below the title"
        assert notebook.cells[index + 1].source == fast_path.box(name), f"{name}: run tools/instructor_guide.py --write"
        assert f"**PINN fast path, about {round(total)} minutes.**" in notebook.cells[index + 1].source
        for stop in fast_path.ASSUMES:  # the back-links name sections that exist
            assert stop.heading is None or stop.heading in instructor_guide.headings(ROOT / "notebooks" / f"{stop.notebook}.ipynb")
    readme = (ROOT / "README.md").read_text()
    assert fast_path.readme_block() in readme and f"about {round(total)} minutes" in fast_path.readme_block()
    assert instructor_guide.fast_path_block() in (ROOT / instructor_guide.GUIDE).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("notebook", list(fast_path.runs()))
def test_the_routes_cells_run_alone_in_order_in_a_fresh_kernel(notebook, tmp_path):
    from nbclient import NotebookClient

    import executed

    cells = fast_path.notebook_cells(notebook)
    alone = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    alone.cells = [cells[i] for i in fast_path.runs()[notebook]]
    client = NotebookClient(alone, timeout=executed.CELL_TIMEOUT, kernel_name=executed.KERNEL,
                            resources={"metadata": {"path": str(ROOT / "learner")}})
    client.execute()  # a NameError (or any failing check cell) raises CellExecutionError with the cell and its traceback
    errors = [output for cell in alone.cells if cell.cell_type == "code" for output in cell.outputs
              if output.output_type == "error"]
    assert not errors
