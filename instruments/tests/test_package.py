"""The package as a whole: it never imports the course, imports nothing optional until a function needs it,
and ``import autograd_memory`` alone imports not even torch."""
import ast
import pathlib
import subprocess
import sys

import pytest

import autograd_memory

PACKAGE = pathlib.Path(autograd_memory.__file__).parent
TESTS = pathlib.Path(__file__).parent
OPTIONAL = ("IPython", "ipykernel", "jupyter_client", "ipywidgets", "matplotlib", "graphviz", "torchviz")


def _imported(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module


def test_nothing_here_imports_the_course():
    offenders = [path.relative_to(folder.parent).as_posix()
                 for folder in (PACKAGE, TESTS) for path in folder.rglob("*.py")
                 if any(name.split(".")[0] == "course_utils" for name in _imported(path))]
    assert not offenders, f"autograd_memory must not import course_utils: {offenders}"


@pytest.mark.slow  # starts a Python
def test_every_module_imports_with_the_optional_packages_missing():
    modules = sorted(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) for path in PACKAGE.rglob("*.py"))
    code = (f"import sys\nfor name in {OPTIONAL!r}:\n    sys.modules[name] = None  # import fails, as if not installed\n"
            f"import importlib\nfor module in {modules!r}:\n    importlib.import_module(module)\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "ok", result.stderr


@pytest.mark.slow  # starts a Python
def test_a_function_that_needs_an_extra_says_which():
    code = ("import sys\nsys.modules['matplotlib'] = None\nimport autograd_memory as am\nt = am.Trace('run')\n"
            "t.record(0, live=1)\ntry:\n    am.plot_trace(t)\nexcept ImportError as error:\n    print(error)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "pip install 'autograd-memory[plots]'" in result.stdout, result.stdout + result.stderr


@pytest.mark.slow  # starts a Python
def test_import_alone_imports_no_torch():
    code = "import sys, autograd_memory; print(sorted(m for m in ('torch', 'IPython') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.slow  # starts a Python
def test_the_folders_and_the_light_layers_import_no_torch():
    """Only seams/ imports torch on import (it runs the drift guard): the other folders' ``__init__`` import nothing,
    and optional/ and formats/ (which the course's environment check reads) and the magics' module need no torch."""
    folders = sorted(f"autograd_memory.{path.name}" for path in PACKAGE.iterdir()
                     if (path / "__init__.py").exists() and path.name != "seams")
    light = [*folders, *(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
                         for folder in ("optional", "formats") for path in sorted((PACKAGE / folder).glob("[!_]*.py"))),
             "autograd_memory.magics"]
    code = (f"import importlib, sys\nfor name in {light!r}:\n    importlib.import_module(name)\n"
            "print(sorted(m for m in ('torch', 'IPython') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert len(folders) == 5 and result.stdout.strip() == "[]", (light, result.stdout, result.stderr)


def test_the_public_api_type_hints_resolve():
    """Every hint on a public name's signature (functions, and classes' methods and properties) names something real:
    ``typing.get_type_hints`` resolves it (matplotlib's types, imported for type checkers only, given here)."""
    import inspect
    import typing

    matplotlib = pytest.importorskip("matplotlib.figure", reason="the `plots` extra")
    names = {"Figure": matplotlib.Figure, "Axes": pytest.importorskip("matplotlib.axes").Axes}
    unresolved = []
    for name in autograd_memory.__all__:
        public = getattr(autograd_memory, name)
        if not callable(public) or inspect.ismodule(public):
            continue
        members = [public] if not inspect.isclass(public) else [
            getattr(member, "fget", member) for member in vars(public).values()
            if inspect.isfunction(member) or isinstance(member, property)]
        for member in members:
            try:
                typing.get_type_hints(member, localns=names)
            except Exception as error:  # noqa: BLE001  any failure to resolve is the finding
                unresolved.append(f"{name}: {member.__qualname__}: {error!r}")
    assert not unresolved, unresolved
