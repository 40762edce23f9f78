"""The pre-commit hook (`make hooks`) turns a notebook someone ran back into exactly the committed file."""
import os
import pathlib
import shutil
import subprocess
import sys

import nbformat
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

def _hook(root):
    config = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    (hook,) = [h for repo in config["repos"] for h in repo["hooks"] if h["id"] == "nbstripout"]
    return hook


def _as_if_run(path, target):
    """The notebook at ``path`` as Jupyter saves it after a run: outputs, counts, cell and kernel metadata."""
    notebook = nbformat.read(path, as_version=4)
    for count, cell in enumerate((c for c in notebook.cells if c.cell_type == "code"), start=1):
        cell.execution_count = count
        cell.outputs = [nbformat.v4.new_output("stream", text="printed\n")]
        cell.metadata.update({"scrolled": True, "execution": {"iopub.execute_input": "2026-12-01T09:30:00Z"}})
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    notebook.metadata["language_info"] = {"name": "python", "version": "3.11.7", "mimetype": "text/x-python",
                                          "codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                                          "nbconvert_exporter": "python", "pygments_lexer": "ipython3"}
    nbformat.write(notebook, target)


def test_hook_strips_notebooks_only(root):
    hook = _hook(root)
    assert hook["entry"] == "nbstripout" and hook["files"] == r"\.ipynb$"


def test_hook_gives_back_every_committed_notebook(tmp_path, root):  # one hook run over all, as a commit of all
    pytest.importorskip("nbstripout")
    committed = sorted((root / "notebooks").glob("*.ipynb"))
    for path in committed:
        _as_if_run(path, tmp_path / path.name)
    result = subprocess.run([sys.executable, "-m", "nbstripout", *_hook(root)["args"],
                             *(str(tmp_path / path.name) for path in committed)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    differ = [path.name for path in committed if (tmp_path / path.name).read_bytes() != path.read_bytes()]
    assert not differ, f"after the hook, these run notebooks are not byte for byte the committed ones: {differ}"


def test_pre_commit_accepts_the_config(root):
    pre_commit = shutil.which("pre-commit", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (make hooks installs it)")
    result = subprocess.run([pre_commit, "validate-config", ".pre-commit-config.yaml"], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_runs_before_the_suite_and_before_each_commit(root):
    config = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    (hook,) = [h for repo in config["repos"] for h in repo["hooks"] if h["id"] == "ruff"]
    assert hook["entry"].startswith("ruff check") and hook["types"] == ["python"]
    recipe = subprocess.run(["make", "-n", "test", "PYTHON=true"], cwd=root, capture_output=True, text=True).stdout
    lines = recipe.splitlines()
    ruff = next(i for i, line in enumerate(lines) if "ruff check" in line)
    assert ruff < next(i for i, line in enumerate(lines) if "-m pytest" in line), "ruff first: it takes a second"
