"""What pyproject.toml says that the tools need: the repository's URL, requirements by name, the torch range.

    >>> requirement_name("torch>=2.8,<2.15")
    'torch'
"""
import argparse
import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
BRANCH = "main"  # the branch badges and Colab links open


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


def write_or_check(tool, doc, stale, writes, argv=None):
    """The command line of a tool that keeps generated files current: ``--write`` brings them up to date,
    ``--check`` lists what is stale and exits 1. ``stale(write=...)`` returns the stale files' names."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help=f"update {writes}")
    mode.add_argument("--check", action="store_true", help="only say what is out of date")
    args = parser.parse_args(argv)
    files = stale(write=args.write)
    if args.write:
        print(f"[{tool}] updated: " + (", ".join(files) if files else "nothing, all current"))
        return 0
    if files:
        print(f"[{tool}] out of date (run `python tools/{tool}.py --write`): " + ", ".join(files))
        return 1
    return 0
