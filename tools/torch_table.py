"""The tested range of PyTorch: each run recorded in data/torch_versions.json, and README's table written from it.

    python -m tools.torch_table record --torch 2.8.0 --suite whole --junit junit.xml --seconds 812

README's table is a target of `python -m tools build` (`make generate`); each run's notes stay in the data file.

A run is one pytest run on one torch (`make test TORCH=x.y.z PYTEST_ARGS=--junitxml=junit.xml`): which suite
(``whole``: everything `make test` runs; ``fast``: ``-m "not slow"``, no notebooks and no browser), how many tests
passed and failed (failed counts pytest's errors too), its wall time and the commit it ran. A later run of the
same torch and suite replaces the earlier one.

    >>> print(table([{"torch": "2.8.0", "suite": "whole", "passed": 9, "failed": 0, "skipped": 1, "seconds": 61.2,
    ...               "commit": "abc1234", "date": "2026-12-02", "wheel": "CUDA build on CPU"}]))
    | torch | suite | passed | failed | skipped | time | commit | date | wheel |
    |---|---|---|---|---|---|---|---|---|
    | 2.8.0 | whole suite | 9 | 0 | 1 | 1 min 1 s | abc1234 | 2026-12-02 | CUDA build on CPU |
"""
import argparse
import datetime
import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from tools.blocks import filled
from tools.project import ROOT

DATA = ROOT / "data" / "torch_versions.json"
SUITES = {"whole": "whole suite", "fast": 'fast suite (`-m "not slow"`)'}


def version_key(version):
    return tuple(int(part) for part in version.split("+")[0].split("."))


def load(path=DATA):
    return json.loads(path.read_text())


def duration(seconds):
    if seconds is None:
        return "not recorded"
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def table(runs):
    """README's table of ``runs``, newest torch first, the whole suite before the fast one."""
    rows = ["| torch | suite | passed | failed | skipped | time | commit | date | wheel |", "|---|---|---|---|---|---|---|---|---|"]
    for run in sorted(runs, key=lambda r: (version_key(r["torch"]), r["suite"] == "whole"), reverse=True):
        rows.append(f"| {run['torch']} | {SUITES[run['suite']]} | {run['passed']} | {run['failed']} | {run['skipped']} "
                    f"| {duration(run['seconds'])} | {run['commit']} | {run['date']} | {run['wheel']} |")
    return "\n".join(rows)


def readme_table(course):
    """The README torch-table target: the table of data/torch_versions.json's runs."""
    path = course.root / "README.md"
    data = load(course.root / "data" / "torch_versions.json")
    return {path: filled(path.read_text(), "torch table", table(data["runs"]), "README.md")}


def junit_totals(path):
    """``(passed, failed, skipped)`` from a pytest --junitxml file (failed counts errors too)."""
    root = ElementTree.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    tests, failures, errors, skipped = (sum(int(s.get(key, 0)) for s in suites)
                                        for key in ("tests", "failures", "errors", "skipped"))
    return tests - failures - errors - skipped, failures + errors, skipped


def record(args):
    data = load() if DATA.exists() else {"runs": []}
    passed, failed, skipped = junit_totals(args.junit)
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                           text=True, check=True).stdout.strip()
    run = {"torch": args.torch, "suite": args.suite, "passed": passed, "failed": failed, "skipped": skipped,
           "seconds": round(args.seconds, 1), "commit": commit, "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
           "wheel": args.wheel, "machine": args.machine}
    data["runs"] = [r for r in data["runs"] if (r["torch"], r["suite"]) != (args.torch, args.suite)] + [run]
    data["runs"].sort(key=lambda r: (version_key(r["torch"]), r["suite"]))
    DATA.write_text(json.dumps(data, indent=2) + "\n")
    print(f"[torch_table] {args.torch} {SUITES[args.suite]}: {passed} passed, {failed} failed in {duration(args.seconds)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="add one run to data/torch_versions.json")
    rec.add_argument("--torch", required=True, help="the torch version the run used, e.g. 2.8.0")
    rec.add_argument("--suite", required=True, choices=sorted(SUITES))
    rec.add_argument("--junit", required=True, type=pathlib.Path, help="the run's pytest --junitxml file")
    rec.add_argument("--seconds", required=True, type=float, help="the run's wall time")
    rec.add_argument("--commit", help="the commit the run tested (default: this checkout's HEAD)")
    rec.add_argument("--wheel", default="registry's CUDA build, run on CPU")
    rec.add_argument("--machine", default="CPU, 2 cores")
    record(parser.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
