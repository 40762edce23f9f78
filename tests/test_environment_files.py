"""pyproject.toml, environment.yml (conda/Binder), the README and CI agree on the packages and the torch range."""
import re

import yaml

from tools.project import pinned_torch, pyproject, requirement_name, torch_requirement

# pip name -> conda-forge name, where they differ
CONDA_NAME = {"torch": "pytorch", "graphviz": "python-graphviz"}
# conda entries that are not Python packages of ours
NOT_PYTHON_DEPS = {"python", "pip", "graphviz"}


def _version(text):
    return tuple(int(part) for part in text.split("."))


def _environment(root, path="environment.yml"):
    """An environment file's requirements as {pip name: requirement}, and the names given to conda."""
    env = yaml.safe_load((root / path).read_text())
    requirements, conda = {}, set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            requirements |= {requirement_name(r): r for r in dep["pip"] if not r.startswith("-e")}
        else:
            conda.add(requirement_name(dep))
            if requirement_name(dep) in NOT_PYTHON_DEPS:
                continue
            pip_name = {v: k for k, v in CONDA_NAME.items()}.get(requirement_name(dep), requirement_name(dep))
            requirements[pip_name] = dep.split("#")[0].strip()
    return env, requirements, conda


def test_environment_yml_names_the_same_dependencies_as_pyproject(root):
    project = pyproject(root)["project"]
    # what a learner, a lecturer and CI need: the dependencies and the `test`, `teach` and `torchviz` extras (not
    # `pinned` or the contributors' `dev`)
    extras = project["optional-dependencies"]
    expected = {requirement_name(r) for r in project["dependencies"] + extras["test"] + extras["teach"] + extras["torchviz"]}
    env, requirements, conda = _environment(root)
    named = set(requirements)

    assert named == expected, f"only in environment.yml: {sorted(named - expected)}; only in pyproject.toml: {sorted(expected - named)}"
    assert "graphviz" in conda, "environment.yml must bring graphviz's `dot` binary"
    pip = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert pip and "-e ." in pip[0], "the course package itself (-e .)"
    assert any(r.split("#")[0].strip() == "-e ./instruments" for r in pip[0]), "the instruments the course imports (-e ./instruments)"
    assert "conda-forge" in env["channels"]


def test_torch_range_is_the_same_everywhere_and_holds_the_pin(root):
    requirement = torch_requirement(root)
    match = re.fullmatch(r"torch>=(\d+\.\d+(?:\.\d+)?),<(\d+\.\d+)", requirement)
    assert match, f"bound torch below and above (the tested range), e.g. torch>=2.8,<2.15, not {requirement!r}"
    oldest, above = _version(match[1]), _version(match[2])
    _, requirements, _ = _environment(root)
    assert requirements["torch"] == "pytorch" + requirement[len("torch"):], (
        f"environment.yml's pytorch ({requirements['torch']}) must allow exactly pyproject.toml's {requirement}")

    pin = pinned_torch(root)
    assert re.fullmatch(r"\d+\.\d+\.\d+", pin), "pin torch exactly (an unpinned torch pulls a multi-GB CUDA build)"
    assert oldest <= _version(pin) < above, f"the pinned torch {pin} lies outside the tested range {requirement}"

    readme = (root / "README.md").read_text()
    stated = re.search(r"torch (\d+\.\d+\.\d+) \(the oldest supported\) to (\d+\.\d+\.\d+) \(the newest tested\)", readme)
    assert stated, "README states the tested range as 'torch X (the oldest supported) to Y (the newest tested)'"
    assert _version(stated[1])[:len(oldest)] == oldest, f"README's oldest {stated[1]} is not pyproject.toml's lower bound"
    assert _version(stated[2]) < above and _version(stated[2])[:2] == (above[0], above[1] - 1), (
        f"README's newest tested {stated[2]} must be the last minor release the upper bound <{match[2]} allows")


def test_binders_environment_is_the_runtime_only_and_agrees_with_the_full_one(root):
    """binder/environment.yml: pyproject.toml's [project] dependencies and nothing else (no test or lecture stack), each
    written exactly as the full environment.yml writes it; binder/postBuild installs the course and its kernel."""
    runtime = {requirement_name(r) for r in pyproject(root)["project"]["dependencies"]}
    binder, binder_requirements, binder_conda = _environment(root, "binder/environment.yml")
    _, full_requirements, full_conda = _environment(root)
    assert set(binder_requirements) == runtime, (
        f"only in binder/environment.yml: {sorted(set(binder_requirements) - runtime)}; "
        f"runtime packages it lacks: {sorted(runtime - set(binder_requirements))}")
    differ = {name: (req, full_requirements.get(name)) for name, req in binder_requirements.items()
              if full_requirements.get(name) != req}
    assert not differ, f"binder/environment.yml and environment.yml write these differently: {differ}"
    assert {"graphviz", "python"} <= binder_conda and binder["channels"] == ["conda-forge"]
    python = [d for d in binder["dependencies"] if isinstance(d, str) and requirement_name(d) == "python"]
    assert python == [d for d in yaml.safe_load((root / "environment.yml").read_text())["dependencies"]
                      if isinstance(d, str) and requirement_name(d) == "python"], "the same Python in both"
    post_build = (root / "binder" / "postBuild").read_text()
    assert "pip install --quiet --no-deps -e ." in post_build and "ipykernel install" in post_build
    assert not (root / "postBuild").exists(), "Binder reads binder/ only when it exists: keep postBuild there"
