"""The tested range of PyTorch: each run recorded in data/torch_versions.json, and README's table written from it.

    python tools/torch_table.py record --torch 2.8.0 --suite whole --junit junit.xml --seconds 812
    python tools/torch_table.py --write    # README's "Tested range of PyTorch" table, from the data file
    python tools/torch_table.py --check    # exit 1 when README's table differs from the data file

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

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "torch_versions.json"
README = ROOT / "README.md"
BEGIN = "<!-- torch table: written by tools/torch_table.py --write from data/torch_versions.json -->"
END = "<!-- /torch table -->"
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


def readme_text(data):
    """The table, and a line per release the data file says was not run (and why)."""
    notes = [f"torch {run['torch']}, {SUITES[run['suite']]}: {run['note']}." for run in data["runs"] if run.get("note")]
    notes += [f"Not run: torch {entry['torch']} ({entry['why']})." for entry in data.get("not_run", [])]
    return "\n\n".join([table(data["runs"]), *notes])


def readme_block(text):
    """The table README holds between its markers, or None."""
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def write_readme(data, readme=README):
    text = readme.read_text()
    if readme_block(text) is None:
        raise SystemExit(f"{readme.name} lacks the markers {BEGIN!r} ... {END!r}: put them where the table goes")
    before, rest = text.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    readme.write_text(f"{before}{BEGIN}\n{readme_text(data)}\n{END}{after}")


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
    parser.add_argument("--write", action="store_true", help="write README's table from the data file")
    parser.add_argument("--check", action="store_true", help="exit 1 when README's table differs from the data file")
    commands = parser.add_subparsers(dest="command")
    rec = commands.add_parser("record", help="add one run to data/torch_versions.json")
    rec.add_argument("--torch", required=True, help="the torch version the run used, e.g. 2.8.0")
    rec.add_argument("--suite", required=True, choices=sorted(SUITES))
    rec.add_argument("--junit", required=True, type=pathlib.Path, help="the run's pytest --junitxml file")
    rec.add_argument("--seconds", required=True, type=float, help="the run's wall time")
    rec.add_argument("--commit", help="the commit the run tested (default: this checkout's HEAD)")
    rec.add_argument("--wheel", default="registry's CUDA build, run on CPU")
    rec.add_argument("--machine", default="CPU, 2 cores")
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args)
    if args.write:
        write_readme(load())
    if args.check:
        expected, found = readme_text(load()), readme_block(README.read_text())
        if found != expected:
            print("README's torch table differs from data/torch_versions.json: run python tools/torch_table.py --write")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
