"""Imports run down the layers that CONTRIBUTING.md's "Layers" line names, lowest first, and never in a circle.

Every ``import`` of every module of the four packages (the instruments, the course, its build tools, its class
deployment) counts, the ones
inside functions too (a lazy import is still a dependency). A module may import its own layer's modules and any lower
layer's; two layers named on the same step (``checks``, ``explorers``) are siblings and import neither each other nor
upward. A package's top level (``autograd_memory``, ``course_utils``: its ``__init__`` and the modules beside it) is a
layer above its folders. No two modules of either package import each other, directly or through others.
"""
import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)
PACKAGES = {"course_utils": ROOT / "course_utils", "autograd_memory": ROOT / "instruments" / "src" / "autograd_memory",
            "tools": ROOT / "tools", "deploy": ROOT / "deploy"}


def module_name(package, path):
    parts = [package, *path.relative_to(PACKAGES[package]).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(package, path): path for package, folder in PACKAGES.items() for path in sorted(folder.rglob("*.py"))}


def layers():
    """``{layer: rank}`` from CONTRIBUTING.md's line "Layers, lowest first: `a` < `b`, `c` < ...\"."""
    line = next((line for line in (ROOT / "CONTRIBUTING.md").read_text().splitlines() if line.startswith("Layers, lowest first")),
                None)
    assert line, "CONTRIBUTING.md needs its line 'Layers, lowest first: `autograd_memory` < ...'"
    steps = line.split(":", 1)[1].split(" < ")
    return {layer: rank for rank, step in enumerate(steps) for layer in re.findall(r"`([\w.]+)`", step)}


LAYERS = layers()


def layer_of(module):
    """The longest layer that ``module`` is, or is inside of."""
    return max((layer for layer in LAYERS if module == layer or module.startswith(layer + ".")), key=len, default=None)


def imported_from(module, node):
    """The absolute name of the module an ``ImportFrom`` node of ``module`` imports from (``from ..seams import x``)."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    base = node.module or ""
    if node.level:
        base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
    return base


def imports(module):
    """The modules of both packages that ``module`` imports, anywhere in its code: ``{imported: line}``."""
    found = {}
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(module, node)
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:  # `import a.b.c` of a name inside a module: the module
                name = name.rpartition(".")[0]
            if name and name != module:
                found.setdefault(name, node.lineno)
    return found


GRAPH = {module: imports(module) for module in MODULES}


def is_private(name):
    return name.startswith("_") and not name.startswith("__")


def dotted(node):
    """``a.b.c`` for an expression made of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    return f"{dotted(node.value)}.{node.attr}" if isinstance(node, ast.Attribute) and dotted(node.value) else None


def private_names_used(module):
    """Where ``module`` reaches a ``_private`` name of another module of either package: ``from x import _y``, and
    ``x._y`` on a name bound to module ``x`` by an import. ``["line N: x._y", ...]``."""
    tree = ast.parse(MODULES[module].read_text())
    bound, found = {}, []  # a local name -> the module of either package it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.partition(".")[0]  # `import a.b` binds `a`
                if (alias.name if alias.asname else name) in MODULES:
                    bound[name] = alias.name if alias.asname else name
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(module, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                elif base in MODULES and base != module and is_private(alias.name):
                    found.append(f"line {node.lineno}: from {base} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr) and dotted(node.value):
            first, _, rest = dotted(node.value).partition(".")
            owner = ".".join(filter(None, [bound.get(first), rest])) if first in bound else None
            if owner in MODULES and owner != module:
                found.append(f"line {node.lineno}: {owner}.{node.attr}")
    return found


def test_the_layers_name_every_folder_of_both_packages_below_its_top_level():
    folders = {f"{package}.{path.name}" for package, folder in PACKAGES.items() for path in folder.iterdir()
               if (path / "__init__.py").exists()}
    assert folders <= set(LAYERS), f"name these folders in CONTRIBUTING.md's Layers line: {sorted(folders - set(LAYERS))}"
    for package in PACKAGES:
        above = [folder for folder in folders if folder.startswith(package + ".") and LAYERS[folder] >= LAYERS[package]]
        assert not above, f"{package}'s top level imports its folders, so it goes right of them: {above}"
    assert layer_of("autograd_memory.measuring.meters") == "autograd_memory.measuring"
    assert layer_of("autograd_memory.cli") == "autograd_memory" and layer_of("autograd_memory") == "autograd_memory"
    assert len(MODULES) > 50


@pytest.mark.parametrize("module", MODULES)
def test_no_import_runs_upward_or_sideways(module):
    own = layer_of(module)
    wrong = {f"{imported} (line {line}, layer {layer_of(imported)})": line for imported, line in GRAPH[module].items()
             if layer_of(imported) != own and LAYERS[layer_of(imported)] >= LAYERS[own]}
    assert not wrong, f"{module} (layer {own}) imports from its own rank or above: {sorted(wrong)}"


def test_no_modules_import_each_other_in_a_circle():
    state, cycles = {}, []

    def visit(module, path):
        state[module] = "open"
        for imported in GRAPH[module]:
            if state.get(imported) == "open":
                cycles.append(" -> ".join(path[path.index(imported):] + [imported]))
            elif imported not in state:
                visit(imported, path + [imported])
        state[module] = "done"

    for module in MODULES:
        if module not in state:
            visit(module, [module])
    assert not cycles, f"modules that import each other (move what both need one layer down): {cycles}"


@pytest.mark.parametrize("module", MODULES)
def test_no_module_uses_a_private_name_of_another(module):
    found = private_names_used(module)
    assert not found, (f"{module} uses another module's private names (make the name public where it is shared, or "
                       f"move it to where it is used): {found}")
