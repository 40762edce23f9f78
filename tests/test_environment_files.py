"""environment.yml (conda/Binder) and pyproject.toml name the same dependencies."""
import re
import tomllib

import yaml

# pip name -> conda-forge name, where they differ
CONDA_NAME = {"torch": "pytorch", "graphviz": "python-graphviz"}
# conda entries that are not Python packages of ours
NOT_PYTHON_DEPS = {"python", "pip", "graphviz"}


def _name(requirement):
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def test_environment_yml_names_the_same_dependencies_as_pyproject(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pip_names = {_name(r) for r in project["dependencies"]}
    pip_names |= {_name(r) for group in project["optional-dependencies"].values() for r in group}
    expected = {CONDA_NAME.get(n, n) for n in pip_names}

    env = yaml.safe_load((root / "environment.yml").read_text())
    conda, pip = set(), set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip |= {_name(r) for r in dep["pip"] if not r.startswith("-e")}
        else:
            conda.add(_name(dep))
    named = (conda - NOT_PYTHON_DEPS) | {CONDA_NAME.get(n, n) for n in pip}

    assert named == expected, f"only in environment.yml: {sorted(named - expected)}; only in pyproject.toml: {sorted(expected - named)}"
    assert "graphviz" in conda, "environment.yml must bring graphviz's `dot` binary"
    assert any(isinstance(d, dict) and "-e ." in d["pip"] for d in env["dependencies"]), "the course package itself (-e .)"
    assert "conda-forge" in env["channels"]


def test_torch_is_pinned_for_reproducible_ci(root):
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(re.fullmatch(r"torch==\d+\.\d+\.\d+", d) for d in deps), "pin torch exactly (an unpinned torch pulls a multi-GB CUDA build)"
