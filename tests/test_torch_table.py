"""README's "Tested range of PyTorch": its table is data/torch_versions.json's runs, and its range is what they show."""
import re

import torch_table
from project import torch_requirement


def _runs(root):
    return torch_table.load(root / "data" / "torch_versions.json")["runs"]


def test_readme_table_is_written_from_the_data_file(root):
    found = torch_table.readme_block((root / "README.md").read_text())
    assert found is not None, "README lacks the torch table's markers"
    expected = torch_table.readme_text(torch_table.load(root / "data" / "torch_versions.json"))
    assert found == expected, "README's torch table is stale: run python tools/torch_table.py --write"


def test_every_run_says_what_ran_where_and_when(root):
    for run in _runs(root):
        assert run["suite"] in torch_table.SUITES, run
        assert re.fullmatch(r"\d+\.\d+\.\d+", run["torch"]) and re.fullmatch(r"[0-9a-f]{7,40}", run["commit"]), run
        assert run["passed"] > 0 and run["failed"] >= 0 and run["seconds"] > 0, run
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", run["date"]) and run["wheel"] and run["machine"], run


def test_the_stated_range_is_what_the_runs_show(root):
    readme = (root / "README.md").read_text()
    oldest, newest = re.search(r"torch (\d+\.\d+\.\d+) \(the oldest supported\) to (\d+\.\d+\.\d+) \(the newest tested\)",
                               readme).groups()
    runs = _runs(root)
    whole = {run["torch"]: run for run in runs if run["suite"] == "whole"}
    assert oldest in whole and whole[oldest]["failed"] == 0, f"the whole suite must pass on the floor {oldest}: {whole.get(oldest)}"
    older = [run for run in runs if torch_table.version_key(run["torch"]) < torch_table.version_key(oldest)
             and run["suite"] == "whole" and run["failed"] == 0]
    assert not older, f"the whole suite passed on an older torch than the floor: {older}"
    assert any(run["torch"] == newest and run["failed"] == 0 for run in runs), f"no passing run on the newest {newest}"
    assert torch_requirement(root).startswith(f"torch>={'.'.join(oldest.split('.')[:2])},"), (
        f"pyproject.toml's {torch_requirement(root)} must start at the floor {oldest}")
    failing = [run for run in runs if run["failed"]]
    outside = [run for run in failing if torch_table.version_key(oldest) <= torch_table.version_key(run["torch"])
               <= torch_table.version_key(newest)]
    assert not outside, f"runs inside the stated range failed: {outside}"
