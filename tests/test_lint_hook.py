"""The lint as a pre-commit hook: another repository uses this one's .pre-commit-hooks.yaml, and a commit of a leaky
training script fails with the line and the fix, then passes once fixed.

``pre-commit try-repo`` runs the hook from this checkout (its working tree, uncommitted changes too) exactly as a
``repo:`` entry of a .pre-commit-config.yaml would; the hook is ``language: script``, so pre-commit installs nothing and
no network is needed.
"""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PRE_COMMIT = shutil.which("pre-commit", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))


def git(folder, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=folder, check=True,
                   capture_output=True)


@pytest.mark.slow
def test_pre_commit_runs_the_lint_on_a_sample_repository(tmp_path):
    sample = tmp_path / "sample"
    sample.mkdir()
    git(sample, "init", "-q")
    leaky = (ROOT / "notebooks" / "clinic" / "loss_history.py").read_text()
    (sample / "train.py").write_text(leaky)
    (sample / "notes.txt").write_text("losses.append(loss) in a text file is not Python\n")
    git(sample, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    command = [PRE_COMMIT, "try-repo", str(ROOT), "autograd-memory-lint", "--all-files"]

    failed = subprocess.run(command, cwd=sample, env=env, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "train.py:21:5: AGM001" in failed.stdout and "notes.txt" not in failed.stdout, failed.stdout

    (sample / "train.py").write_text(leaky.replace("losses.append(loss)", "losses.append(loss.item())"))
    git(sample, "add", ".")
    passed = subprocess.run(command, cwd=sample, env=env, capture_output=True, text=True, timeout=300)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "autograd memory lint" in passed.stdout and "Passed" in passed.stdout, passed.stdout
