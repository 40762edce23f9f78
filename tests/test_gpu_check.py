"""`make gpu-check` refuses clearly where there is no GPU (this CPU machine): non-zero, what to do, nothing written."""
import subprocess
import sys

import pytest
import torch

from tools import gpu_check

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: `make gpu-check` runs for real")


def test_gpu_check_refuses_without_a_gpu_and_says_what_to_do(root, tmp_path):
    done = subprocess.run([sys.executable, "tools/gpu_check.py", "--data", str(tmp_path)], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == gpu_check.NO_GPU, done.stdout + done.stderr
    assert "no usable CUDA device" in done.stderr and "make gpu-check PYTHON=python3" in done.stderr, done.stderr
    assert f"torch {torch.__version__}" in done.stderr, "the message names the torch it found"
    assert list(tmp_path.iterdir()) == [], "a refusal writes no data file"


def test_make_gpu_check_runs_without_the_course_environment(root):
    """The GPU machine has its own Python and no `make setup`: PYTHON=... is used as is, and make fails with it."""
    done = subprocess.run(["make", "--no-print-directory", "gpu-check", f"PYTHON={sys.executable}"], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no usable CUDA device" in done.stderr, done.stdout + done.stderr
    assert f"{sys.executable} tools/gpu_check.py" in done.stdout, "make ran the Python it was given"
    assert "pip install" not in done.stdout, "and set nothing up"
