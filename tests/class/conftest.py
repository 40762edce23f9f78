"""The class's tests (`make test-class`): a real JupyterHub and a real nbgrader, which need the `class` extra.

`make test` leaves this folder out (pyproject.toml's norecursedirs): these tests take minutes, and `make test-class`
installs what they need first. Every test here is marked slow.
"""
import pathlib

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if pathlib.Path(str(item.fspath)).is_relative_to(pathlib.Path(__file__).parent):
            item.add_marker(pytest.mark.slow)
