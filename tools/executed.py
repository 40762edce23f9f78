"""The notebooks run once, top to bottom, for the handouts (`make slides`, `make site`): build/executed/NN_name.ipynb.

    python -m tools.executed                 # run what is stale into build/executed/, print each one's time
    python -m tools.executed --build try     # the same into try/executed/

Each notebook runs with nbclient on the course's kernel, in notebooks/ (so relative data paths work), two at a
time, at most 180 s per cell. A copy newer than its notebook and than every file of the code it imports
(course_utils/ and instruments/src/, whose readings its outputs show) is reused.
"""
import argparse
import os
import pathlib
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from tools.course import ROOT, imported_code, load

KERNEL = "autograd-memory-lab"
CELL_TIMEOUT = 180


def is_fresh(notebook, copy, root=ROOT):
    """True when ``copy`` is newer than ``notebook`` and than every file of the code it imports (course_utils/ and
    instruments/src/: tools/course.py's ``imported_code``)."""
    if not copy.exists():
        return False
    newest = max([notebook.stat().st_mtime, *(path.stat().st_mtime for path in imported_code(root))])
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


def execute(build, notebooks, workers=2, log=print):
    """Bring ``build/executed/`` up to date (two notebooks at a time); return the executed copies' paths."""
    folder = pathlib.Path(build) / "executed"
    folder.mkdir(parents=True, exist_ok=True)
    copies = [folder / notebook.name for notebook in notebooks]
    stale = [(n, c) for n, c in zip(notebooks, copies) if not is_fresh(n, c)]
    for notebook, copy in zip(notebooks, copies):
        if (notebook, copy) not in stale:
            log(f"[executed] {notebook.name}: reused (newer than the notebook, course_utils/ and instruments/src/)")
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


SESSION = "AMLAB_TEST_SESSION"  # the test session's start (epoch seconds), shared with pytest-xdist's workers
FAILED = ".nbval-failed"  # beside a notebook's copy: nbval ran it this session and a cell failed


class FromNbval:
    """A pytest plugin (tests/conftest.py registers it) that makes `make test` execute each notebook once for both
    its nbval test and the handouts: as nbval runs a notebook, it keeps what each cell printed and drew, and when
    the notebook's last cell is done it writes the notebook with those outputs to ``build/executed/`` (the copy
    `make slides` and `make site` read), or, when a cell failed, a ``.nbval-failed`` marker instead.
    :func:`wait_for_nbval` lets the handout test (on any worker) wait for those copies.
    """

    def __init__(self, build=ROOT / "build"):
        self.folder = pathlib.Path(build) / "executed"
        self.failed, self.outputs = set(), {}

    @staticmethod
    def _is_cell(item):
        return type(item).__name__ == "IPyNbCell" and hasattr(item, "test_outputs")

    def pytest_runtest_logreport(self, report):
        if report.failed and report.fspath.endswith(".ipynb"):
            self.failed.add(pathlib.Path(report.fspath).name)

    def pytest_runtest_teardown(self, item, nextitem):
        if not self._is_cell(item):
            return
        notebook = pathlib.Path(str(item.path))
        ran = self.outputs.setdefault(notebook.name, [])
        ran.append((item.cell, item.test_outputs))
        if nextitem is not None and nextitem.parent is item.parent:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        copy, marker = self.folder / notebook.name, self.folder / (notebook.stem + FAILED)
        code_cells = [cell for cell in item.parent.nb.cells if cell.cell_type == "code"]
        if notebook.name in self.failed or len(ran) != len(code_cells) or any(outs is None for _, outs in ran):
            copy.unlink(missing_ok=True)  # not an older copy either: the handouts execute it themselves (and fail)
            marker.touch()
            return
        import nbformat

        nb = nbformat.read(notebook, as_version=4)
        for cell, (ran_cell, outs) in zip((c for c in nb.cells if c.cell_type == "code"), ran):
            assert cell.source == ran_cell.source, f"{notebook.name}: nbval ran another cell than the notebook holds"
        for count, (cell, (_, outs)) in enumerate(zip((c for c in nb.cells if c.cell_type == "code"), ran), 1):
            cell.outputs, cell.execution_count = outs, count
        partial = copy.with_suffix(".partial")
        nbformat.write(nb, partial)
        partial.replace(copy)
        marker.unlink(missing_ok=True)
        del self.outputs[notebook.name]


def wait_for_nbval(notebooks, build=ROOT / "build", timeout=900, log=print):
    """Wait until nbval, in this test session, has run each of ``notebooks`` (its copy or its failure marker is
    newer than the session's start); return the ones it did not finish within ``timeout`` seconds."""
    if SESSION not in os.environ:  # not under the test suite's conftest: nothing runs nbval for us
        return list(notebooks)
    started = float(os.environ[SESSION])
    folder = pathlib.Path(build) / "executed"

    def done(notebook):
        return any(path.exists() and path.stat().st_mtime >= started
                   for path in (folder / notebook.name, folder / (notebook.stem + FAILED)))
    deadline, waiting = time.monotonic() + timeout, list(notebooks)
    if waiting:
        log(f"[executed] waiting for nbval to run {len(waiting)} notebook(s) in this session")
    while waiting and time.monotonic() < deadline:
        waiting = [notebook for notebook in waiting if not done(notebook)]
        if waiting:
            time.sleep(1)
    return waiting


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=pathlib.Path, default=ROOT / "build", help="build folder (default: build/)")
    execute(parser.parse_args(argv).build, load().paths)


if __name__ == "__main__":
    sys.exit(main())
