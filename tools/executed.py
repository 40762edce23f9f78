"""The notebooks run once, top to bottom, for the handouts (`make slides`, `make site`): build/executed/NN_name.ipynb.

    python tools/executed.py                 # run what is stale into build/executed/, print each one's time
    python tools/executed.py --build /tmp/b  # the same into /tmp/b/executed/

Each notebook runs with nbclient on the course's kernel, in notebooks/ (so relative data paths work), two at a
time, at most 180 s per cell. A copy newer than its notebook and than every file of course_utils/ is reused.

    >>> [path.name for path in NOTEBOOKS][:2]
    ['00_start_here.ipynb', '01_graph_lifecycle.ipynb']
"""
import argparse
import pathlib
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
KERNEL = "autograd-memory-lab"
CELL_TIMEOUT = 180


def is_fresh(notebook, copy):
    """True when ``copy`` is newer than ``notebook`` and than every ``course_utils/**/*.py``."""
    if not copy.exists():
        return False
    newest = max([notebook.stat().st_mtime, *(p.stat().st_mtime for p in (ROOT / "course_utils").rglob("*.py"))])
    return copy.stat().st_mtime > newest


def run_one(notebook, copy, timeout=CELL_TIMEOUT):
    """Execute ``notebook`` into ``copy`` (written only when every cell ran); return the seconds it took."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    start = time.perf_counter()
    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL,
                            resources={"metadata": {"path": str(notebook.parent)}})
    log = copy.with_suffix(".log")  # the kernel's own stdout/stderr (warnings, profiler chatter), kept out of ours
    try:
        with open(log, "w") as kernel_output:
            client.execute(stdout=kernel_output, stderr=kernel_output)
    except (CellExecutionError, CellTimeoutError) as error:
        raise SystemExit(f"{notebook.name} failed while executing it for the handouts:\n{error}\n"
                         f"Run it with `.venv/bin/python -m pytest --nbval-lax {notebook.relative_to(ROOT)}` "
                         f"(or open it with `make lab`) to see and fix the failing cell; the kernel's log: {log}") from None
    partial = copy.with_suffix(".partial")
    nbformat.write(nb, partial)
    partial.replace(copy)  # a run that dies half-way never leaves a copy that looks fresh
    return time.perf_counter() - start


def execute(build, notebooks=NOTEBOOKS, workers=2, log=print):
    """Bring ``build/executed/`` up to date (two notebooks at a time); return the executed copies' paths."""
    folder = pathlib.Path(build) / "executed"
    folder.mkdir(parents=True, exist_ok=True)
    copies = [folder / notebook.name for notebook in notebooks]
    stale = [(n, c) for n, c in zip(notebooks, copies) if not is_fresh(n, c)]
    for notebook, copy in zip(notebooks, copies):
        if (notebook, copy) not in stale:
            log(f"[executed] {notebook.name}: reused (newer than the notebook and course_utils/)")
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [(notebook, pool.submit(run_one, notebook, copy)) for notebook, copy in stale]
        try:
            for notebook, future in futures:
                log(f"[executed] {notebook.name}: ran in {future.result():.1f} s")
        except BaseException:
            pool.shutdown(cancel_futures=True)  # one failed: do not start the notebooks still waiting
            raise
    if stale:
        log(f"[executed] {len(stale)} notebook(s) in {time.perf_counter() - start:.1f} s "
            f"({workers} at a time) -> {folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder}")
    return copies


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=pathlib.Path, default=ROOT / "build", help="build folder (default: build/)")
    execute(parser.parse_args(argv).build)


if __name__ == "__main__":
    sys.exit(main())
