"""The reference data in data/reference/ ships with its provenance, and the loader always shows it."""
import json

import pytest

import course_utils as cu
from course_utils.setup import reference
from course_utils.setup.reference import REFERENCE_DIR, reference_names


def test_every_reference_file_is_indexed_with_its_script():
    index = json.loads((REFERENCE_DIR / "index.json").read_text())
    shipped = {path.name for path in REFERENCE_DIR.glob("*.json")} - {"index.json"}
    assert shipped == {entry["file"] for entry in index.values()}, "every data file has exactly one index entry"
    for entry in index.values():
        assert (REFERENCE_DIR / entry["script"]).exists(), f"{entry['script']} (the script that measured it) ships too"
        assert {"device", "torch", "date", "configuration", "units"} <= set(entry)


@pytest.fixture
def fresh_kernel(monkeypatch):
    """As in a kernel that has loaded no reference yet."""
    monkeypatch.setattr(reference, "_SHOWN", {})


@pytest.mark.parametrize("name", reference_names())
def test_loading_prints_the_provenance(name, capsys, fresh_kernel):
    ref = cu.load_reference(name)
    printed = capsys.readouterr().out
    assert ref.citation() in printed and "not measured here" in printed
    assert ref.provenance["device"] in printed and ref.provenance["script"] in printed
    assert ref.data, "the data file is not empty"


def cell(name):
    """A notebook cell that loads a reference: ipykernel compiles each cell under a file name of its own, the same
    for the same source."""
    code = compile(f"reference = cu.load_reference({name!r})", f"cell_{name}_{len(CELLS)}.py", "exec")
    CELLS.append(code)
    return lambda: (namespace := {"cu": cu}, exec(code, namespace))[0]["reference"]


CELLS = []


def test_a_second_load_prints_one_short_line_that_points_back(capsys, fresh_kernel):
    first = cell("h200_pinn_figures")()
    again = cell("h200_pinn_figures")()
    printed = capsys.readouterr().out.splitlines()
    assert printed == [first.citation(), again.reminder()], printed
    assert len(printed[1]) < len(printed[0]) / 3 and "printed above" in printed[1]
    assert first.provenance["device"] in printed[1] and first.provenance["script"] in printed[1]


def test_quiet_loading_prints_nothing(capsys):
    cu.load_reference("h200_laplacian_scaling", show=False)
    assert capsys.readouterr().out == ""


def test_an_unknown_name_says_which_names_exist():
    with pytest.raises(KeyError, match="h200_pinn_figures"):
        cu.load_reference("h100")


def test_a_cell_run_again_prints_the_whole_provenance_again(capsys, fresh_kernel):
    """Run All twice: the cell that printed the provenance prints it again (what it printed before is gone), not a
    line that points to "above"."""
    loading = cell("h200_pinn_figures")
    first, again = loading(), loading()
    printed = capsys.readouterr().out.splitlines()
    assert printed == [first.citation(), again.citation()], printed
