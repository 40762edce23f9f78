"""What pyproject.toml and course.toml say, read with the standard library only (Colab's set-up reads it before it
installs anything): the repository's URL, requirements by name, the torch range, the manifest.

    >>> requirement_name("torch>=2.8,<2.15")
    'torch'
"""
import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
MANIFEST = "course.toml"


def manifest(root=ROOT):
    """course.toml, read (tools/course.py makes a model of it)."""
    path = pathlib.Path(root) / MANIFEST
    if not path.exists():
        raise SystemExit(f"{path} is missing: the course declares its notebooks there")
    return tomllib.loads(path.read_text())


def pyproject(root=ROOT):
    return tomllib.loads((root / "pyproject.toml").read_text())


def repository(root=ROOT):
    """The repository's URL, e.g. ``https://github.com/owner/name``: pyproject.toml's [project.urls] Repository."""
    return pyproject(root)["project"]["urls"]["Repository"].rstrip("/")


def github_path(root=ROOT):
    """``owner/name`` of the repository on GitHub (what Colab and Binder URLs carry)."""
    url = repository(root)
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+?)(\.git)?", url)
    if not match:
        raise SystemExit(f"pyproject.toml [project.urls] Repository must be https://github.com/OWNER/NAME, not {url!r}")
    return match[1]


def requirement_name(requirement):
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def torch_requirement(root=ROOT):
    """The tested range, e.g. ``torch>=2.8,<2.15`` (from [project] dependencies)."""
    return next(r for r in pyproject(root)["project"]["dependencies"] if requirement_name(r) == "torch")


def pinned_torch(root=ROOT):
    """The exact torch CI installs, e.g. ``2.13.0`` (the `pinned` extra)."""
    (pin,) = pyproject(root)["project"]["optional-dependencies"]["pinned"]
    return pin.split("==")[1]
