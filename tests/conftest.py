import gc
import os
import pathlib
import socket
import time

import pytest
import torch

from autograd_memory import testing
from course_utils.checks import ExerciseFailed

ROOT = pathlib.Path(__file__).resolve().parents[1]
# torch's import leaves ~200,000 objects for every gc.collect() to scan (0.1 s each, twice per test): freeze them,
# so that each test's collection scans only what tests made.
gc.collect()
gc.freeze()

# The browser tests' own notebooks are fixtures: the browser tests run their cells in JupyterLab (nbval need not too).
collect_ignore_glob = ["browser/*.ipynb"]

# Whole test modules that run a course end to end (every worked solution, the meters' selftest): slow.
SLOW_MODULES = {"test_solutions.py", "test_selftest.py"}


def pytest_configure(config):
    """nbval's run of each notebook is also the handouts' executed copy (tools/executed.py's FromNbval): one
    execution per notebook in `make test`. The session's start is shared with pytest-xdist's workers. Each notebook
    cell's output must read at a glance (tools/output_length.py's OutputLength)."""
    from tools import executed, output_length

    if not hasattr(config, "workerinput"):
        os.environ.setdefault(executed.SESSION, str(time.time()))
    config.pluginmanager.register(executed.FromNbval(), "amlab-executed-notebooks")
    config.pluginmanager.register(output_length.OutputLength(), "amlab-output-length")


def _run_order(item):
    """Notebooks first, the handouts (built from nbval's copies of them) last, so that waiting for them cannot
    deadlock. (`make test` hands out its scopes, a module or a notebook each, in this order too: --dist loadscope
    with --no-loadscope-reorder, so each notebook goes to a worker before the handout module does, whatever its size.)"""
    path = pathlib.Path(str(item.path))
    return 0 if path.suffix == ".ipynb" else 2 if path.name == "test_handouts.py" else 1


def pytest_collection_modifyitems(config, items):
    """Markers (declared in pyproject.toml) from where a test lives, so that new notebooks and new tests under
    tests/browser/ get them without an edit: `make test-fast` is `-m "not slow"`. Then the run order (_run_order)."""
    items.sort(key=_run_order)
    for item in items:
        path = pathlib.Path(str(item.path))
        if path.suffix == ".ipynb":
            item.add_marker("notebooks")
        if path.is_relative_to(ROOT / "tests" / "browser"):
            item.add_marker("browser")
        if item.get_closest_marker("notebooks") or item.get_closest_marker("browser") or path.name in SLOW_MODULES:
            item.add_marker("slow")


@pytest.fixture
def root():
    return ROOT


@pytest.fixture(autouse=True)
def _collect_between_tests():
    """Tests read exact byte counts: start each one without garbage from the last."""
    gc.collect()
    yield
    gc.collect()
    # What outlives a test (modules it imported, caches, module-scoped fixtures) is frozen too: in a whole run a worker
    # gathers so many such objects that scanning them made each test's setup and teardown 0.12-0.16 s (test_layout's
    # 264 cases: 67 s in `make test`, 1 s alone). Frozen objects are still freed when their last reference goes; only
    # a cycle among them would wait.
    gc.freeze()


@pytest.fixture(scope="module")
def one_torch_thread():
    """Small tensors: one thread is as fast and keeps a shared machine from thrashing."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _unused_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def free_port():
    """A localhost TCP port nothing listens on right now."""
    return _unused_port()


@pytest.fixture(scope="session")
def unused_port():
    """``unused_port()`` is a free localhost port now: for a fixture wider than one test (a server a module shares)."""
    return _unused_port


@pytest.fixture
def nothing_installed():
    """A check that no meter left its dispatch mode or saved-tensor hooks behind."""
    return testing.nothing_installed


@pytest.fixture
def unsolved():
    """An exercise answer as the committed notebook holds it: ``raise NotImplementedError``."""
    def answer(*args):
        raise NotImplementedError
    return answer


@pytest.fixture
def failure():
    """``failure(checker, answer)``: the message the checker fails with (the test fails if it passes)."""
    def run(checker, answer):
        with pytest.raises(ExerciseFailed) as caught:
            checker(answer)
        return str(caught.value)
    return run
