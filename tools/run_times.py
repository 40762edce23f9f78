"""The notebooks' run times and peak memory (data/notebooks_cpu.json): the build reads them, `make measure` records them.

    python -m tools measure                      execute each notebook whose code changed since it was measured
    python -m tools measure 08_runge_kutta       only that one (its id, stem or file)

Each notebook runs top to bottom in a fresh course kernel on 2 cores, as a learner's laptop runs it; the kernel reports
its own peak RSS in a last cell. The course's budget (the record's ``budget``: 60 s, 2 GB) is a promise: a run over
it is reported and never written. A run within it is written with its provenance (date, machine, cores, load average,
torch, commit) and the fingerprint of what ran (:func:`fingerprint`).

Execution is cached by content with jupyter-cache (the cache MyST-NB uses), in build/jupyter_cache/: the key is the
notebook's code cells and the fingerprint of the code they import (course_utils/ and instruments/src/), so a notebook
runs again only when its code or that code changed, never because a file was touched. A notebook whose recorded
fingerprint is the current one is not run at all.

    >>> figures = {"seconds": 61.2, "peak_rss_bytes": 5 * 10**8}
    >>> over_budget(figures, {"seconds": 60, "peak_rss_bytes": 2 * 10**9})
    ['61.2 s > 60 s']
"""
import contextlib
import datetime
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import subprocess
import time

import nbformat

from tools.course import ROOT, imported_code

RECORD = "data/notebooks_cpu.json"
CACHE = "build/jupyter_cache"
KERNEL = "autograd-memory-lab"
CORES = 2
CELL_TIMEOUT = 600
# Appended to each notebook: the kernel reports its own high-water RSS (no sampling that can miss a spike).
PEAK_CELL = "import course_utils\nprint('peak RSS', course_utils.device_memory()['rss_peak'])"


def load(root=ROOT):
    path = root / RECORD
    if not path.exists():
        raise SystemExit(f"{RECORD} is missing: run `make measure` (it executes every notebook, a few minutes)")
    return json.loads(path.read_text())


def seconds(record, stem):
    """The notebook's measured run time; the budget (the most it may take) for one not measured yet, which
    :func:`unmeasured` reports until `make measure` records it."""
    found = record["notebooks"].get(stem)
    return found["seconds"] if found else record["budget"]["seconds"]


def unmeasured(course):
    """The notebooks the record lacks, as sentences that say what to run (the build's check of the record)."""
    record = load(course.root)["notebooks"]
    return [f"{path.stem} has no measured run time (the build counts its budget until then)"
            for path in course.paths if path.stem not in record]


def imported_fingerprint(root=ROOT):
    """A SHA-256 of every Python file of course_utils/ and instruments/src/ (path and bytes, in path order)."""
    digest = hashlib.sha256()
    for path in imported_code(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def runnable(path, imported):
    """The notebook as it is measured: its cells, then the peak-RSS cell, which names the imported code's fingerprint
    (so that jupyter-cache's key, the code cells, covers the code they import)."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(f"# course_utils/ and instruments/src/: sha256 {imported}\n"
                                                    + PEAK_CELL))
    return notebook


def fingerprint(notebook):
    """The SHA-256 of a notebook's code cells, in order (with :func:`runnable`'s last cell: of the code they import)."""
    return hashlib.sha256(json.dumps([c.source for c in notebook.cells if c.cell_type == "code"]).encode()).hexdigest()


def over_budget(figures, budget):
    """What ``figures`` exceed of ``budget``, as sentences (empty: within it)."""
    return ([f"{figures['seconds']:.1f} s > {budget['seconds']} s"] if figures["seconds"] > budget["seconds"] else []) + (
        [f"{figures['peak_rss_bytes'] / 1e9:.2f} GB > {budget['peak_rss_bytes'] / 1e9:.1f} GB"]
        if figures["peak_rss_bytes"] > budget["peak_rss_bytes"] else [])


@contextlib.contextmanager
def pinned_to_cores(count=CORES):
    """Within it, this process and the kernels it starts run on ``count`` cores, as on the course's 2-core laptop;
    gives the number of cores."""
    if not hasattr(os, "sched_setaffinity"):
        yield os.cpu_count()
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, sorted(before)[:count])
    try:
        yield len(os.sched_getaffinity(0))
    finally:
        os.sched_setaffinity(0, before)


def provenance(folder, cores, load_before):
    """Where and how a run was measured (``folder``: in which checkout): what a reader needs to judge its figures."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m tools measure",
        "commit": commit.stdout.strip() if commit.returncode == 0 else None,
        "torch": importlib.metadata.version("torch"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "machine_cores": os.cpu_count(),
        "cores_used": cores,
        # other programs share the cores; the 1-minute load average before and after says how much
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
    }


def busy(where):
    """A warning when other programs shared the cores (the load average above the cores used), else "".

    >>> busy({"load_average_before": 3.1, "load_average_after": 2.0, "cores_used": 2})
    '; the machine was busy (load average 3.1 on 2 cores): longer than on an idle one'
    """
    load = max(where["load_average_before"], where["load_average_after"])
    return (f"; the machine was busy (load average {load} on {where['cores_used']} cores): longer than on an idle one"
            if load > where["cores_used"] else "")


def execute(path, notebook, cores):
    """Run ``notebook`` (from :func:`runnable`) in notebooks/; return its figures and provenance."""
    from jupyter_cache.executors.utils import single_nb_execution

    load_before = os.getloadavg()[0]
    ran = single_nb_execution(notebook, cwd=str(path.parent), timeout=CELL_TIMEOUT, allow_errors=False,
                              kernel_name=KERNEL)
    if ran.err is not None:
        raise SystemExit(f"{path.name} failed while it was measured:\n{ran.err}\nRun it with `.venv/bin/python -m "
                         f"pytest --nbval-lax notebooks/{path.name}` to see and fix the failing cell")
    printed = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    return {"seconds": round(ran.time, 1), "peak_rss_bytes": int(re.search(r"peak RSS (\d+)", printed)[1]),
            "provenance": provenance(path.parent, cores, load_before)}


def measure(course, only=(), budget=None, log=print):
    """Measure the course's notebooks (``only``: those ids or stems) whose fingerprint differs from the record's, each
    within ``budget`` (default: the record's) or reported; write the ones within it. Return the names over budget."""
    from jupyter_cache import get_cache

    root = course.root
    record = load(root)
    budget = budget or record["budget"]
    cache = get_cache(root / CACHE)
    imported = imported_fingerprint(root)
    over, changed = [], False
    with pinned_to_cores() as cores:
        for path in [course.notebook(name).path for name in only] if only else course.paths:
            notebook = runnable(path, imported)
            key = fingerprint(notebook)
            if record["notebooks"].get(path.stem, {}).get("source_sha256") == key:
                log(f"[measure] {path.stem}: current ({record['notebooks'][path.stem]['seconds']} s, measured for "
                    "this code)")
                continue
            figures, how = cached_or_run(cache, path, notebook, budget, cores)
            if exceeded := over_budget(figures, budget):
                log(f"[measure] {path.stem}: OVER BUDGET ({'; '.join(exceeded)}), not recorded: make it faster or "
                    "smaller, or measure again on an idle machine")
                over.append(path.stem)
                continue
            record["notebooks"][path.stem] = {"seconds": figures["seconds"], "peak_rss_bytes": figures["peak_rss_bytes"],
                                              "source_sha256": key, "provenance": figures["provenance"]}
            changed = True
            log(f"[measure] {path.stem}: {figures['seconds']} s, {figures['peak_rss_bytes'] / 1e9:.2f} GB ({how})"
                + busy(figures["provenance"]))
    if changed:
        (root / RECORD).write_text(json.dumps(record, indent=2) + "\n")
        log(f"[measure] wrote {RECORD}: run `make generate` for the Time lines and the guide")
    return over


def cached_or_run(cache, path, notebook, budget, cores):
    """``(figures, how)``: jupyter-cache's record of this very notebook (its code and imported code), or a run of it,
    cached when within ``budget``."""
    from jupyter_cache.base import CacheBundleIn

    try:
        return cache.get_cache_record(cache.match_cache_notebook(notebook).pk).data, "from the cache"
    except KeyError:
        started = time.perf_counter()
        figures = execute(path, notebook, cores)
        if not over_budget(figures, budget):
            cache.cache_notebook_bundle(CacheBundleIn(notebook, str(path), data=figures), check_validity=False,
                                        overwrite=True)
        return figures, f"ran in {time.perf_counter() - started:.1f} s"
