"""torch_internals is where a PyTorch upgrade breaks: every note there names the test that guards it."""
import ast
import pathlib
import re

from autograd_memory import torch_internals

TESTS = pathlib.Path(__file__).resolve().parent


def _test_names(path):
    return {node.name for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.FunctionDef)}


def test_every_guarding_test_named_in_torch_internals_exists():
    text = pathlib.Path(torch_internals.__file__).read_text()
    named = re.findall(r"(test_\w+\.py)::(test_\w+)", text)
    assert len(named) >= 10
    missing = [f"{file}::{name}" for file, name in named if name not in _test_names(TESTS / file)]
    assert not missing, f"torch_internals names tests that do not exist: {missing}"

