"""`make test-fast` (-m "not slow") leaves out notebooks and browser tests by where they live, new ones included."""
import subprocess
import sys

import pytest


def _collected(root, *args):
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *args], cwd=root,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode in (0, 5), result.stdout + result.stderr  # 5: everything deselected
    return [line for line in result.stdout.splitlines() if "::" in line]


@pytest.mark.slow
def test_notebooks_and_browser_tests_are_slow_by_where_they_live(root):
    every = _collected(root, "notebooks/00_start_here.ipynb", "tests/browser")
    assert any(".ipynb::" in line for line in every) and any("tests/browser/test_" in line for line in every)
    assert _collected(root, "-m", "not slow", "notebooks/00_start_here.ipynb", "tests/browser") == []
    assert _collected(root, "-m", "notebooks", "notebooks/00_start_here.ipynb", "tests/browser") == [
        line for line in every if ".ipynb::" in line]
    assert all("browser" in line for line in _collected(root, "-m", "browser", "notebooks/00_start_here.ipynb", "tests/browser"))


def test_fast_loop_keeps_the_unit_tests(root):
    fast = _collected(root, "-m", "not slow", "tests/test_environment_files.py", "tests/test_solutions.py")
    assert fast and all(line.startswith("tests/test_environment_files.py::") for line in fast)
