#!/usr/bin/env python3
"""The pre-commit hook that .pre-commit-hooks.yaml (at the repository's root) declares: ``python -m autograd_memory
lint`` on the files pre-commit passes, run from this checkout's own source. The lint needs only the standard library,
so the hook installs nothing (pre-commit's ``python`` language would ``pip install`` the course, torch and all)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "src"))

from autograd_memory.cli import main  # noqa: E402 (after the path it is found on)

if __name__ == "__main__":
    raise SystemExit(main(["lint", *sys.argv[1:]]))
