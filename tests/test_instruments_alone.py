"""The instruments installed alone: a fresh virtualenv with only the pinned torch and `pip install ./instruments`
passes the package's own tests (those that need an extra or Jupyter skip, saying so), imports the installed copy,
and gates CI from a terminal (`leaks ... ` exits 1 on the clinic's loss history, 0 on a flat step)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from project import pyproject

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

PIN = next(r for r in pyproject(ROOT)["project"]["optional-dependencies"]["pinned"] if r.startswith("torch=="))


@pytest.mark.slow
def test_the_instruments_alone_in_a_fresh_virtualenv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", PIN, f"{ROOT / 'instruments'}[test]"],
                             capture_output=True, text=True, timeout=1200)
    assert install.returncode == 0, install.stdout + install.stderr
    listed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True).stdout
    assert not [name for name in ("jupyterlab", "ipykernel", "matplotlib", "ipywidgets", "graphviz")
                if f"\n{name}==" in "\n" + listed.lower()], "only torch, psutil and the test extra (pytest, numpy)"

    tests = shutil.copytree(ROOT / "instruments" / "tests", tmp_path / "tests")  # away from src/: the installed copy
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    where = subprocess.run([python, "-c", "import autograd_memory; print(autograd_memory.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True).stdout
    assert where.startswith(str(venv)), where
    # the docstrings' examples too, of the installed modules, but for those that draw pictures (the `graphs` and
    # `plots` extras; the course's suite runs their examples)
    modules = [f"autograd_memory.{path.stem}" for path in sorted((ROOT / "instruments" / "src" / "autograd_memory").glob("*.py"))
               if path.stem not in ("__init__", "__main__", "graphs", "plots")]
    run = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(tests), "--doctest-modules",
                          "--pyargs", *modules],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " failed" not in run.stdout and " passed" in run.stdout

    clinic = ROOT / "notebooks" / "clinic"
    leaks = subprocess.run([python, "-m", "autograd_memory", "leaks", "loss_history.py:step"], cwd=clinic, env=env,
                           capture_output=True, text=True, timeout=300)
    assert leaks.returncode == 1 and ("line 18" in leaks.stdout or "losses" in leaks.stdout), leaks.stdout + leaks.stderr
