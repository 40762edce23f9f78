"""course_utils.check_env and `python -m course_utils check`."""
import os
import shutil
import subprocess
import sys

import pytest
import torch

import course_utils


def test_check_env_reports_every_need():
    report = course_utils.check_env(verbose=False)
    names = [need.name for need in report.needs]
    assert names == ["python", "torch", "jupyterlab", "ipywidgets", "matplotlib", "torchviz", "dot", "nbval"]
    assert report.ok, str(report)
    assert all(need.version for need in report.needs), str(report)
    expected = "CUDA usable" if torch.cuda.is_available() else ("CUDA not usable" + ("" if torch.version.cuda else ": CPU build"))
    assert report["torch"].detail.startswith(expected), report["torch"].detail


def _run_check(env):
    return subprocess.run([sys.executable, "-m", "course_utils", "check"], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.slow  # starts a Python
def test_cli_prints_table_and_succeeds():
    out = _run_check(os.environ.copy())
    assert out.returncode == 0, out.stdout + out.stderr
    course, instruments = out.stdout.split("The PyTorch privates the instruments rely on")
    assert course.count("[OK]") == 8, out.stdout
    from autograd_memory import PROBES
    assert instruments.count("[OK]") == len(PROBES) and "[FAIL]" not in instruments, out.stdout


@pytest.mark.slow  # starts a Python
def test_missing_dot_is_a_failure_with_install_hint(tmp_path):
    # PATH holds only a link to this Python (no `dot`, even where conda put one next to Python).
    (tmp_path / "python").symlink_to(sys.executable)
    env = os.environ.copy()
    env["PATH"] = str(tmp_path)
    assert shutil.which("dot", path=env["PATH"]) is None
    out = _run_check(env)
    assert out.returncode != 0
    dot_line = [line for line in out.stdout.splitlines() if " dot " in line][0]
    assert dot_line.startswith("[FAIL]"), out.stdout
    assert "apt-get install graphviz" in out.stdout and "brew install graphviz" in out.stdout


@pytest.mark.slow  # starts a Python
def test_import_is_light():
    code = ("import sys, course_utils; "
            "heavy = [m for m in ('matplotlib', 'ipywidgets', 'torchviz', 'torch') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_public_names_resolve():
    for name in course_utils.__all__:
        assert getattr(course_utils, name) is not None, name


def test_ipython_shows_the_report_as_its_text():
    report = course_utils.EnvReport([])
    printed = []
    report._repr_pretty_(type("Printer", (), {"text": lambda self, text: printed.append(text)})(), cycle=False)
    assert printed == [str(report)]


def test_find_leaks_looks_past_the_course_to_the_learners_line():
    """course_utils tells the instruments to look past its folder (``autograd_memory.look_past``): a tensor a course
    helper makes is charged to the learner's line that called it, not to the helper."""
    model, x, kept = course_utils.models.TanhMLP(2), torch.ones(4, 2), []

    def step():
        kept.append(model(x))  # TanhMLP.forward, in course_utils, makes the tensors; this line keeps them

    report = course_utils.find_leaks(step, steps=3)
    assert report.top.where.endswith(f"test_env_check.py, line {step.__code__.co_firstlineno + 1}"), str(report)


def test_the_course_configures_the_instruments_through_look_past_once():
    """Importing course_utils calls ``autograd_memory.look_past`` for its folder; the call is idempotent, so a
    re-import (``importlib.reload``, autoreload) does not grow the instruments' setting."""
    import autograd_memory

    course = os.path.join(os.path.dirname(os.path.abspath(course_utils.__file__)), "")
    before = list(autograd_memory.LIBRARY_DIRS)
    assert course in before, before
    assert autograd_memory.look_past(os.path.dirname(course)) == before
