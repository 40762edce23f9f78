"""Run each notebook top to bottom the way a learner would and report wall time and the kernel's peak RSS.

    python benchmarks/notebooks.py [notebooks/01_graph_lifecycle.ipynb ...]

The course promises each notebook runs in under 60 s (05: 90 s) on 2 CPU cores with at most 2 GB peak
RSS. Timing belongs here, not in the tests: this script prints the figures and marks any over budget.
"""
import pathlib
import sys
import threading
import time

import nbformat
import psutil
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
SECONDS = {"05_laplacian_pinn.ipynb": 90}
DEFAULT_SECONDS, MAX_RSS = 60, 2e9


def run(path):
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="autograd-memory-lab",
                            resources={"metadata": {"path": str(path.parent)}})
    peak, done = [0], threading.Event()

    def watch():
        while not done.is_set():
            kernel = getattr(client, "km", None)
            pid = getattr(getattr(kernel, "provisioner", None), "pid", None) if kernel else None
            if pid:
                try:
                    proc = psutil.Process(pid)
                    rss = proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True))
                    peak[0] = max(peak[0], rss)
                except psutil.Error:
                    pass
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.perf_counter()
    try:
        client.execute()
    finally:
        seconds = time.perf_counter() - start
        done.set()
        watcher.join()
    return seconds, peak[0]


def main(paths):
    paths = [pathlib.Path(p) for p in paths] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    over = 0
    print(f"{'notebook':<34}{'seconds':>9}{'budget':>8}{'peak RSS':>11}")
    for path in paths:
        seconds, rss = run(path)
        budget = SECONDS.get(path.name, DEFAULT_SECONDS)
        flag = "" if seconds <= budget and rss <= MAX_RSS else "   OVER BUDGET"
        over += bool(flag)
        print(f"{path.name:<34}{seconds:9.1f}{budget:8d}{rss / 1e9:9.2f} GB{flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
