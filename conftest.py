"""What every test of the repository shares: the fast loop stays fast.

A test that starts a Python (``python -c ...``, ``python -m ...``, a kernel) pays a second or more to import torch
again: it is marked ``slow`` (``@pytest.mark.slow``), which ``make test-fast`` leaves out and ``make test`` runs, or it
fails here and says so.
"""
import os
import re
import subprocess
import sys

import pytest

_PYTHON = re.compile(r"python[\d.]*(\.exe)?$")
pytest_plugins = ["pytester"]  # tests/test_markers.py runs a throwaway suite under this file


def starts_python(args):
    """True when ``args`` (a ``subprocess`` command: a list, or a string) runs a Python interpreter."""
    program = str(args[0] if isinstance(args, (list, tuple)) else str(args).split()[0]) if args else ""
    return program == sys.executable or bool(_PYTHON.search(os.path.basename(program)))


@pytest.fixture(autouse=True)
def _fast_tests_start_no_python(request, monkeypatch):
    if request.node.get_closest_marker("slow") is not None:
        return
    popen = subprocess.Popen.__init__

    def refuse_python(self, args, *more, **options):
        if starts_python(args):
            pytest.fail(f"{request.node.nodeid} starts a Python ({args!r}): mark it @pytest.mark.slow so that "
                        "`make test-fast` leaves it out (`make test` runs it)", pytrace=False)
        popen(self, args, *more, **options)

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse_python)


def pytest_configure(config):
    """A pytest-xdist worker (``make test``, ``make test-fast``: one per core) computes with one torch thread: the
    workers fill the cores, and more threads than cores make torch's threads wait on each other (on 2 busy cores a
    checker's test took 14 times as long)."""
    if hasattr(config, "workerinput"):
        import torch

        torch.set_num_threads(1)
