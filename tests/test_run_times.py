"""`make measure`'s run times (tools/run_times.py): a run over its budget is reported and never written; a run
within it is written with its provenance; a notebook runs again only when its code or the code it imports changed
(jupyter-cache, keyed on content)."""
import json

import nbformat
import pytest

from tools import run_times
from tools.course import Course

TINY = "00_tiny.ipynb"
BUDGET = {"seconds": 60, "peak_rss_bytes": 2_000_000_000}


def _tiny_course(root):
    """A course of one notebook of one cell, with an empty run-time record."""
    (root / "notebooks").mkdir()
    (root / "course_utils").mkdir()
    (root / "course_utils" / "meters.py").write_text("READING = 1\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\nassert x == 1, 'x should be 1'")],
                                  metadata={"kernelspec": {"name": run_times.KERNEL, "display_name": "Autograd Memory Lab",
                                                           "language": "python"}})
    nbformat.write(nb, root / "notebooks" / TINY)
    (root / "data").mkdir()
    (root / run_times.RECORD).write_text(json.dumps({"budget": BUDGET, "notebooks": {}}, indent=2) + "\n")
    return Course(root, {"editions": {"source": "notebooks"},
                         "notebooks": [{"id": "00", "file": TINY, "title": "Tiny", "question": "Does it run?"}]})


def test_a_notebook_not_measured_yet_counts_its_budget_and_the_check_says_so(tmp_path):
    course = _tiny_course(tmp_path)
    record = run_times.load(tmp_path)
    assert run_times.seconds(record, "00_tiny") == BUDGET["seconds"]
    assert run_times.unmeasured(course) == ["00_tiny has no measured run time (the build counts its budget until then)"]


def test_the_key_covers_the_notebooks_code_and_the_code_it_imports_not_its_prose(tmp_path):
    _tiny_course(tmp_path)
    path = tmp_path / "notebooks" / TINY

    def key():
        return run_times.fingerprint(run_times.runnable(path, run_times.imported_fingerprint(tmp_path)))
    first = key()
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("# Tiny"))
    nbformat.write(nb, path)
    assert key() == first, "prose runs nothing: the run time stays measured"
    (tmp_path / "course_utils" / "meters.py").write_text("READING = 2\n")
    changed_import = key()
    assert changed_import != first, "a change to course_utils/ changes what the notebook shows"
    nb.cells[-1].source = "x = 2\nassert x == 2, 'x should be 2'"
    nbformat.write(nb, path)
    assert key() not in (first, changed_import), "a change to the notebook's code"


@pytest.mark.slow
def test_measure_refuses_a_run_over_budget_then_records_one_within_it_and_reruns_only_what_changed(tmp_path):
    """Real executions of a one-cell notebook in the course's kernel: over a tiny budget it is reported and the record
    stays as it was (nor is the run cached); within the budget it is written with its provenance; measured again it is
    current; its record lost, jupyter-cache gives it back without running it."""
    course = _tiny_course(tmp_path)
    before = (tmp_path / run_times.RECORD).read_bytes()
    said = []
    over = run_times.measure(course, budget={"seconds": 0.001, "peak_rss_bytes": BUDGET["peak_rss_bytes"]},
                             log=said.append)
    assert over == ["00_tiny"] and "OVER BUDGET" in said[-1] and "not recorded" in said[-1], said
    assert (tmp_path / run_times.RECORD).read_bytes() == before, "a run over budget is never written"

    said.clear()
    assert run_times.measure(course, log=said.append) == []
    entry = run_times.load(tmp_path)["notebooks"]["00_tiny"]
    assert "ran in" in said[0] and 0 < entry["seconds"] <= BUDGET["seconds"], said
    assert entry["provenance"]["cores_used"] >= 1 and entry["provenance"]["torch"], entry
    assert {"date", "machine", "load_average_before", "load_average_after", "commit"} <= set(entry["provenance"])

    said.clear()
    assert run_times.measure(course, log=said.append) == [] and "current" in said[0], said
    record = run_times.load(tmp_path)
    del record["notebooks"]["00_tiny"]
    (tmp_path / run_times.RECORD).write_text(json.dumps(record))
    said.clear()
    assert run_times.measure(course, log=said.append) == [] and "from the cache" in said[0], said
    assert run_times.load(tmp_path)["notebooks"]["00_tiny"] == entry
