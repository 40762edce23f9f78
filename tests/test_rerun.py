"""Run All twice in one kernel, as a lecturer does (rehearse in the morning, run again before class): the second run
passes every check and shows the same outputs as the first, numbers aside (timings and RSS readings move; what a cell
says must not). A demo resting on a once-per-process event (PyTorch warns about a ``create_graph`` cycle once) fails
here. And no output names a machine path (the checkout's folder, a package's install folder): what a slide shows must
not depend on where the course was cloned."""
import json
import re

import nbformat
import pytest

from tools.course import ROOT, load
from tools.executed import KERNEL
from tools.lecture_edition import LECTURE, condensed_lecture_text

# an object's address, a count, a signed reading with its unit (an RSS reading moves by bytes or by kilobytes)
NUMBER = re.compile(r"0x[0-9a-f]+|[+-]?\d+(?:[.,]\d+)*(?: ?(?:[kMG]i?B|B)\b)?")
# cells that rank by a timing (the profiler's table, the fastest method): on a shared CPU the order can change
TIMED = re.compile(r"sort_by=|fastest")
SPACE = re.compile(r"\s+")  # a table's padding follows its numbers' widths
NOTEBOOKS = [notebook.path for notebook in load().notebooks]
pytestmark = pytest.mark.slow


def shown_text(cell):
    """What a code cell printed and returned, as text, numbers replaced by '#'."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
        elif "text/plain" in output.get("data", {}):
            parts.append(output.data["text/plain"])
    return SPACE.sub(" ", NUMBER.sub("#", "".join(parts)))


def run_all_twice(path, timeout=180):
    """Run every cell of the notebook at ``path`` twice in one kernel; ``(first, second)``: each code cell's
    :func:`shown_text` on each run (but the cells that rank by a timing), and the paths any output of either run
    names (:func:`machine_paths`). A cell that raises on either run raises CellExecutionError."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL, resources={"metadata": {"path": str(path.parent)}})
    runs, paths = [], set()
    with client.setup_kernel():
        for _ in range(2):
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            runs.append([shown_text(cell) for cell in nb.cells
                         if cell.cell_type == "code" and not TIMED.search(cell.source)])
            paths |= {found for cell in nb.cells for found in machine_paths(cell)}
    return (*runs, sorted(paths))


def machine_paths(cell):
    """The machine paths a cell's outputs name (in any form: text, HTML, a warning on stderr): the checkout's folder
    or a Python package's install folder, each with what follows it.

    >>> machine_paths({"outputs": [{"output_type": "stream", "text": f"{ROOT}/notebooks/x.py:3: UserWarning"}]})
    ['<checkout>/notebooks/x.py:3:']
    """
    text = json.dumps(cell.get("outputs", [])).replace(str(ROOT), "<checkout>")
    return re.findall(r'[^\s"]*(?:<checkout>|site-packages)[^\s"\\]*', text)


def where_they_differ(first, second, width=120):
    """The two texts from the first character where they differ.

    >>> where_they_differ("total # kB", "total # MB")
    ('kB', 'MB')
    """
    at = next((k for k, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second)))
    return first[at:at + width], second[at:at + width]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_a_second_run_all_in_the_same_kernel_shows_the_same_and_no_machine_path(path):
    first, second, paths = run_all_twice(path)
    assert not paths, f"{path.relative_to(ROOT)}: its outputs name machine paths: {paths[:4]}"
    changed = [(i, *where_they_differ(a, b)) for i, (a, b) in enumerate(zip(first, second)) if a != b]
    assert not changed, (
        f"{path.relative_to(ROOT)}: the second Run All printed otherwise (code cell, first, second): {changed[:3]}")


def test_the_condensed_lecture_one_notebook_runs_all_twice_in_one_kernel_the_same():
    """`make present CONDENSED=1`'s one notebook (its parts in order, one kernel), beside the course as the lecturer's
    copy is (build/ holds it here, so that the lecturer's own lecture_condensed/ is left alone)."""
    path = ROOT / "build" / "condensed-rerun" / LECTURE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(condensed_lecture_text(load()))
    first, second, paths = run_all_twice(path)
    assert not paths, f"the condensed lecture's outputs name machine paths: {paths[:4]}"
    changed = [(i, *where_they_differ(a, b)) for i, (a, b) in enumerate(zip(first, second)) if a != b]
    assert not changed, f"the second Run All of the condensed lecture printed otherwise: {changed[:3]}"
