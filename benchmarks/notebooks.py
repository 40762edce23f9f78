"""Run each notebook top to bottom the way a learner would and report wall time and the kernel's peak RSS.

    python benchmarks/notebooks.py [notebooks/01_graph_lifecycle.ipynb ...]
    python benchmarks/notebooks.py --json data/notebooks_cpu.json      also record them, with provenance
    python benchmarks/notebooks.py --json data/notebooks_cpu.json --add    only the notebooks the record lacks, each
                                                                         with its own provenance (`make generate` runs it)

The course promises each notebook runs in under 60 s on 2 CPU cores with at most 2 GB peak
RSS. Timing belongs here, not in the tests: this script prints the figures and marks any over budget.
``--json`` writes what it measured (seconds and peak RSS per notebook, the date, the machine's cores and load,
torch's version, the command) for the instructor guide (``tools/reading_model.py``) to read.
"""
import argparse
import datetime
import importlib.metadata
import json
import os
import pathlib
import platform
import re
import sys
import time
import tomllib

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
SECONDS, MAX_RSS, CORES = 60, 2e9, 2
# Appended to each notebook: the kernel reports its own high-water RSS (no sampling that can miss a spike).
PEAK_CELL = "import course_utils\nprint('peak RSS', course_utils.device_memory()['rss_peak'])"


def run(path):
    """Seconds to run the notebook in a fresh course kernel, and that kernel's peak RSS in bytes."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PEAK_CELL))
    client = NotebookClient(notebook, timeout=600, kernel_name="autograd-memory-lab",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    printed = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    return seconds, int(re.search(r"peak RSS (\d+)", printed)[1])


def pin_to_cores(count):
    """Run this script and the kernels it starts on ``count`` cores, as on the course's 2-core laptop."""
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > count:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:count])
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def provenance(cores, load_before, argv):
    """Where and how the figures were measured: what a reader needs to judge them."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python", "benchmarks/notebooks.py", *argv]),
        "torch": importlib.metadata.version("torch"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "machine_cores": os.cpu_count(),
        "cores_used": cores,
        # other programs share the cores; the 1-minute load average before and after says how much
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", help="notebooks to run (default: every one course.toml lists)")
    parser.add_argument("--json", type=pathlib.Path, help="also write the figures, with provenance, to this file")
    parser.add_argument("--add", action="store_true", help="with --json: run only the notebooks it lacks, and add them")
    args = parser.parse_args(argv)
    course = tomllib.loads((ROOT / "course.toml").read_text())  # the course's notebooks, as it declares them
    paths = [pathlib.Path(p) for p in args.paths] or [ROOT / "notebooks" / entry["file"] for entry in course["notebooks"]]
    if args.add:
        if not args.json:
            parser.error("--add goes with --json")
        old = json.loads(args.json.read_text())
        paths = [path for path in paths if path.stem not in old["notebooks"]]
    over, measured = 0, {}
    load_before = os.getloadavg()[0]
    cores = pin_to_cores(CORES)
    print(f"kernels run on {cores} cores")
    print(f"{'notebook':<34}{'seconds':>9}{'budget':>8}{'peak RSS':>11}")
    for path in paths:
        seconds, rss = run(path)
        flag = "" if seconds <= SECONDS and rss <= MAX_RSS else "   OVER BUDGET"
        over += bool(flag)
        measured[path.stem] = {"seconds": round(seconds, 1), "peak_rss_bytes": rss}
        print(f"{path.name:<34}{seconds:9.1f}{SECONDS:8d}{rss / 1e9:9.2f} GB{flag}")
    if args.json and args.add:
        where = provenance(cores, load_before, argv)
        old["notebooks"].update({name: {**figures, "provenance": where} for name, figures in measured.items()})
        args.json.write_text(json.dumps(old, indent=2) + "\n")
        print(f"added to {args.json}: {', '.join(measured) or 'nothing, it has every notebook'}")
    elif args.json:
        record = {"provenance": provenance(cores, load_before, argv),
                  "budget": {"seconds": SECONDS, "peak_rss_bytes": int(MAX_RSS)}, "notebooks": measured}
        args.json.write_text(json.dumps(record, indent=2) + "\n")
        print(f"written to {args.json}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
