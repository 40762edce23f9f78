"""`make gpu-check` refuses clearly where there is no GPU (this CPU machine): non-zero, what to do, nothing written;
and the checks it runs against the CUDA allocator hold on the CPU against a census of live tensors."""
import subprocess
import sys

import pytest
import torch

from tools import gpu_check

without_a_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: `make gpu-check` runs for real")


@without_a_gpu
@pytest.mark.slow  # starts a Python
def test_gpu_check_refuses_without_a_gpu_and_says_what_to_do(root, tmp_path):
    done = subprocess.run([sys.executable, "tools/gpu_check.py", "--data", str(tmp_path)], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == gpu_check.NO_GPU, done.stdout + done.stderr
    assert "no usable CUDA device" in done.stderr and "make gpu-check PYTHON=python3" in done.stderr, done.stderr
    assert f"torch {torch.__version__}" in done.stderr, "the message names the torch it found"
    assert list(tmp_path.iterdir()) == [], "a refusal writes no data file"


@without_a_gpu
@pytest.mark.slow  # starts a Python
def test_make_gpu_check_runs_without_the_course_environment(root):
    """The GPU machine has its own Python and no `make setup`: PYTHON=... is used as is, and make fails with it."""
    done = subprocess.run(["make", "--no-print-directory", "gpu-check", f"PYTHON={sys.executable}"], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no usable CUDA device" in done.stderr, done.stdout + done.stderr
    assert f"{sys.executable} tools/gpu_check.py" in done.stdout, "make ran the Python it was given"
    assert "pip install" not in done.stdout, "and set nothing up"


def test_the_meter_checks_hold_on_the_cpu_against_a_census_of_live_tensors():
    """A check that reads a meter at the wrong moment (after backward freed what it measures) fails here too."""
    results = gpu_check.check_meters(torch, "cpu")
    assert len(results) == 4, list(results)
    failed = {name: result for name, result in results.items() if not result["ok"]}
    assert not failed, failed


@pytest.mark.slow  # starts a Python
def test_a_test_runs_results_are_read_from_its_junit_xml(tmp_path):
    (tmp_path / "test_three.py").write_text(
        "import pytest\n\ndef test_holds():\n    pass\n\ndef test_breaks():\n    assert 1 == 2, 'one is not two'\n\n"
        "def test_skips():\n    pytest.skip('the CUDA allocator rounds to 512 B')\n")
    junit = tmp_path / "run.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", f"--junitxml={junit}",
                    str(tmp_path / "test_three.py")], capture_output=True, timeout=120)
    results = gpu_check.test_results(junit)
    assert results["passed"] == 1 and list(results["skipped"].values()) == ["the CUDA allocator rounds to 512 B"]
    assert len(results["failed"]) == 1 and "test_breaks" in results["failed"][0] and "one is not two" in results["failed"][0]
