"""Run each notebook top to bottom the way a learner would and report wall time and the kernel's peak RSS.

    python benchmarks/notebooks.py [notebooks/01_graph_lifecycle.ipynb ...]

The course promises each notebook runs in under 60 s on 2 CPU cores with at most 2 GB peak
RSS. Timing belongs here, not in the tests: this script prints the figures and marks any over budget.
"""
import os
import pathlib
import re
import sys
import time

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


def main(paths):
    paths = [pathlib.Path(p) for p in paths] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    over = 0
    print(f"kernels run on {pin_to_cores(CORES)} cores")
    print(f"{'notebook':<34}{'seconds':>9}{'budget':>8}{'peak RSS':>11}")
    for path in paths:
        seconds, rss = run(path)
        flag = "" if seconds <= SECONDS and rss <= MAX_RSS else "   OVER BUDGET"
        over += bool(flag)
        print(f"{path.name:<34}{seconds:9.1f}{SECONDS:8d}{rss / 1e9:9.2f} GB{flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
