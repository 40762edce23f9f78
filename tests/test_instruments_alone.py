"""The instruments installed alone: a fresh virtualenv with only torch (the one this suite runs on) and `pip install ./instruments`
passes the package's own tests (those that need an extra or Jupyter skip, saying so), imports the installed copy,
and gates CI from a terminal (`leaks ... ` exits 1 on the clinic's loss history, 0 on a flat step).

The virtualenv gets exactly the distributions pip would install for ``autograd-memory[test]`` (its requirements and
theirs, read from the installed metadata: torch, psutil, pytest, numpy and what they need), linked from the course's
environment rather than downloaded and unpacked again (torch alone is about 1 GB: a minute or more), and setuptools
to build it with; ``pip check`` then proves that those requirements are met, and ``pip list`` that nothing else came.
"""
import os
import pathlib
import shutil
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from tools.project import pyproject

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)


def requirement_closure(requirements):
    """The installed distributions that ``requirements`` (strings) need, with what those need, by canonical name.

    >>> sorted(requirement_closure(["psutil"]))
    ['psutil']
    """
    todo, found = [Requirement(r) for r in requirements], {}
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        found[name] = distribution = metadata.distribution(requirement.name)
        assert distribution.version in requirement.specifier, (
            f"the course's environment has {name} {distribution.version}, outside {requirement}: run `make setup`")
        todo += [needed for needed in map(Requirement, distribution.requires or [])
                 if needed.marker is None or needed.marker.evaluate({"extra": ""})]
    return found


def link_into(venv, distributions):
    """Make ``distributions`` importable in ``venv`` by linking their top-level files and folders into its
    site-packages (scripts in bin/ are left out)."""
    site = next(venv.glob("lib/python*/site-packages"))
    tops = {pathlib.Path(distribution.locate_file(file.parts[0]))
            for distribution in distributions for file in distribution.files if file.parts[0] != ".."}
    for top in tops:
        (site / top.name).symlink_to(top)


@pytest.mark.slow
def test_the_instruments_alone_in_a_fresh_virtualenv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    package = pyproject(ROOT / "instruments")["project"]
    needed = [*package["dependencies"], *package["optional-dependencies"]["test"],
              *pyproject(ROOT / "instruments")["build-system"]["requires"]]
    link_into(venv, requirement_closure(needed).values())
    pip = [sys.executable, "-m", "pip", "--python", python, "--disable-pip-version-check"]
    source = shutil.copytree(ROOT / "instruments", tmp_path / "instruments",  # setuptools builds in the folder it is given
                             ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install = subprocess.run([*pip, "install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps", str(source)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    check = subprocess.run([*pip, "check"], capture_output=True, text=True)
    assert check.returncode == 0, f"the linked distributions do not meet autograd-memory's requirements: {check.stdout}"
    listed = subprocess.run([*pip, "list", "--format=freeze"], capture_output=True, text=True).stdout
    assert not [name for name in ("jupyterlab", "ipykernel", "matplotlib", "ipywidgets", "graphviz")
                if f"\n{name}==" in "\n" + listed.lower()], "only torch, psutil and the test extra (pytest, numpy)"

    tests = shutil.copytree(ROOT / "instruments" / "tests", tmp_path / "tests")  # away from src/: the installed copy
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    where = subprocess.run([python, "-c", "import autograd_memory; print(autograd_memory.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True).stdout
    assert where.startswith(str(venv)), where
    # the docstrings' examples too, of the installed modules, but for those that draw pictures (the `graphs` and
    # `plots` extras; the course's suite runs their examples)
    source_package = ROOT / "instruments" / "src" / "autograd_memory"
    modules = [".".join(path.relative_to(source_package.parent).with_suffix("").parts) for path in
               sorted(source_package.rglob("*.py")) if path.stem not in ("__init__", "__main__", "graphs", "plots")]
    run = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(tests), "--doctest-modules",
                          "--pyargs", *modules],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " failed" not in run.stdout and " passed" in run.stdout

    clinic = ROOT / "notebooks" / "clinic"
    leaks = subprocess.run([python, "-m", "autograd_memory", "leaks", "loss_history.py:step"], cwd=clinic, env=env,
                           capture_output=True, text=True, timeout=300)
    assert leaks.returncode == 1 and ("line 18" in leaks.stdout or "losses" in leaks.stdout), leaks.stdout + leaks.stderr
