"""torch_internals is where a PyTorch upgrade breaks: every note there names the test that guards it."""
import ast
import pathlib
import re

import autograd_memory
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


def test_no_other_module_reaches_into_torch_privates():
    private = re.compile(r"torch\._C\b|_python_dispatch|torch\._dynamo|torch\._functorch|_DisableTorchDispatch")
    offenders = [path.name for path in pathlib.Path(autograd_memory.__file__).parent.glob("*.py")
                 if path.name != "torch_internals.py" and private.search(path.read_text())]
    assert not offenders, f"use autograd_memory.torch_internals instead of PyTorch privates in {offenders}"
