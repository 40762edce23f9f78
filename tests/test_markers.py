"""`make test-fast` (-m "not slow") leaves out notebooks and browser tests by where they live, new ones included.

One collection (a new pytest process, as `make test-fast` starts one) with a small plugin that writes each collected
test's markers; ``-m "not slow"`` keeps exactly the tests without the ``slow`` marker.
"""
import json
import os
import subprocess
import sys

import pytest

PLUGIN = """
import json, os

def pytest_collection_finish(session):
    with open(os.environ["AMLAB_MARKERS_OUT"], "w") as out:
        json.dump({item.nodeid: sorted({m.name for m in item.iter_markers()}) for item in session.items}, out)
"""


def collected_markers(root, folder, *paths):
    """``{test id: [marker names]}`` for what a fresh pytest collects under ``paths``."""
    (folder / "amlab_markers_dump.py").write_text(PLUGIN)
    out = folder / "markers.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])),
           "AMLAB_MARKERS_OUT": str(out)}
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "amlab_markers_dump", *paths],
                            cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(out.read_text())


@pytest.mark.slow  # starts a Python
def test_notebooks_and_browser_tests_are_slow_by_where_they_live_and_the_fast_loop_keeps_unit_tests(root, tmp_path):
    markers = collected_markers(root, tmp_path, "notebooks/00_start_here.ipynb", "tests/browser",
                                "tests/test_environment_files.py", "tests/test_solutions.py")
    cells = [test for test in markers if ".ipynb::" in test and test.startswith("notebooks/")]
    browser = [test for test in markers if test.startswith("tests/browser/test_")]
    units = [test for test in markers if test.startswith("tests/test_environment_files.py::")]
    solutions = [test for test in markers if test.startswith("tests/test_solutions.py::")]
    assert cells and browser and units and solutions, f"collected: {sorted(markers)[:20]}"
    assert all({"notebooks", "slow"} <= set(markers[test]) for test in cells), "a notebook's cell is not marked slow"
    assert all({"browser", "slow"} <= set(markers[test]) for test in browser), "a browser test is not marked slow"
    assert not [test for test in units if "slow" in markers[test]], "a unit test is marked slow: test-fast loses it"
    assert all("slow" in markers[test] for test in solutions), "test_solutions (every worked solution) is slow"


@pytest.mark.slow  # starts a Python (the throwaway suite's slow test)
def test_a_fast_test_that_starts_a_python_fails_and_says_to_mark_it_slow(root, pytester):
    pytester.makeconftest((root / "conftest.py").read_text())
    pytester.makepyfile(test_probe="""
        import subprocess, sys
        import pytest

        def test_fast():
            subprocess.run(["git", "--version"], capture_output=True)  # not a Python: allowed

        def test_starts_python():
            subprocess.run([sys.executable, "-c", "pass"])

        def test_starts_python_by_name():
            subprocess.run("python3 -c pass", shell=True)

        @pytest.mark.slow
        def test_slow_may():
            subprocess.run([sys.executable, "-c", "pass"])
    """)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*test_starts_python starts a Python*mark it @pytest.mark.slow*"])
