"""README's "Tested range of PyTorch": its table is data/torch_versions.json's runs, and its range is what they show."""
import re

from tools import torch_table
from tools.project import torch_requirement


def _runs(root):
    return torch_table.load(root / "data" / "torch_versions.json")["runs"]


def test_every_run_says_what_ran_where_and_when(root):
    for run in _runs(root):
        assert run["suite"] in torch_table.SUITES, run
        assert re.fullmatch(r"\d+\.\d+\.\d+", run["torch"]) and re.fullmatch(r"[0-9a-f]{7,40}", run["commit"]), run
        assert run["passed"] > 0 and run["failed"] >= 0 and (run["seconds"] or 0) >= 0, run
        assert run["seconds"] is not None or run.get("note"), f"a run without its time says where it comes from: {run}"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", run["date"]) and run["wheel"] and run["machine"], run


def test_the_stated_range_is_what_the_runs_show(root):
    readme = (root / "README.md").read_text()
    oldest, newest = re.search(r"torch (\d+\.\d+\.\d+) \(the oldest supported\) to (\d+\.\d+\.\d+) \(the newest tested\)",
                               readme).groups()
    data = torch_table.load(root / "data" / "torch_versions.json")
    whole = {run["torch"]: run for run in data["runs"] if run["suite"] == "whole"}
    floor = whole.get(oldest)
    assert floor, f"no whole-suite run on the floor {oldest}"
    rerun = floor.get("rerun", {})
    accounted = rerun.get("passed", 0) + len(rerun.get("not_rerun", []))
    assert floor["failed"] == 0 or (rerun.get("failed") == 0 and accounted >= floor["failed"] and floor.get("note")), (
        f"the floor's whole-suite run failed without a passing re-run and a note on each failure: {floor}")
    assert torch_requirement(root).startswith(f"torch>={'.'.join(oldest.split('.')[:2])},"), (
        f"pyproject.toml's {torch_requirement(root)} must start at the floor {oldest}")
    named = " ".join(entry["torch"] for entry in data.get("not_run", []))
    assert any(run["torch"] == newest and (run["failed"] == 0 or run.get("note")) for run in data["runs"]) or newest in named, (
        f"the newest tested {newest} has neither a passing run (or one whose failures a note explains) nor a line "
        "saying why it was not run")
