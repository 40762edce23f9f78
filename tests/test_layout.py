"""The layout a newcomer relies on: docs/architecture.md's map lists every module of the three packages (the course,
course_utils/, the instruments, instruments/src/autograd_memory/, and the build tools, tools/), and each module of the
two libraries lists its public names.

A row named ``checks/nbNN_<notebook>.py`` stands for every notebook's module of that folder: each must be named for a
notebook in notebooks/ and have the tests the row names, read with its own name (``tests/checks/test_nbNN_<notebook>.py``
-> ``tests/checks/test_nb04_euler_ode_truncation.py``): so a new notebook's checker and explorer need no new row."""
import importlib
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

PACKAGES = {"course_utils": ROOT / "course_utils", "autograd_memory": ROOT / "instruments" / "src" / "autograd_memory",
            "tools": ROOT / "tools"}
MODULES = [(package, path.relative_to(folder).as_posix())
           for package, folder in PACKAGES.items() for path in sorted(folder.rglob("*.py"))]
LIBRARIES = ("course_utils", "autograd_memory")  # imported by others, so each module says what it exports


def architecture_map(package):
    """``{module path: its row}`` from docs/architecture.md's table headed ``### `package```."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    tables = {re.match(r"`(\w+)`", part).group(1): part for part in text.split("\n### ")[1:]}
    assert package in tables, f"docs/architecture.md needs a '### `{package}` ...' table"
    return {re.match(r"\| `([^`]+)`", line).group(1): line
            for line in tables[package].splitlines() if line.startswith("| `")}


NOTEBOOK_ROW = "nbNN_<notebook>"


def row_of(package, module):
    """``module``'s row of the map, a notebook row's names read for it; None when no row stands for it."""
    rows = architecture_map(package)
    if module in rows:
        return rows[module]
    folder, _, name = module.rpartition("/")
    pattern = f"{folder}/{NOTEBOOK_ROW}.py"
    if re.fullmatch(r"nb\d\d_\w+\.py", name) and pattern in rows:
        return rows[pattern].replace(NOTEBOOK_ROW, name.removesuffix(".py"))
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_the_map_lists_every_module_and_only_modules(package):
    modules, rows = {module for owner, module in MODULES if owner == package}, architecture_map(package)
    unmapped = sorted(module for module in modules if row_of(package, module) is None)
    stale = sorted(row for row in rows if NOTEBOOK_ROW not in row and row not in modules)
    standing_for_none = sorted(row for row in rows if NOTEBOOK_ROW in row and not any(
        module not in rows and row_of(package, module) is not None and module.startswith(row.split(NOTEBOOK_ROW)[0])
        for module in modules))
    assert not (unmapped or stale or standing_for_none), (
        f"add to docs/architecture.md's map of {package}: {unmapped}; listed but not in {package}: {stale}; "
        f"notebook rows that stand for no module: {standing_for_none}")


@pytest.mark.parametrize("package, module", MODULES)
def test_the_map_names_tests_that_exist(package, module):
    row = row_of(package, module)
    if row is None:
        pytest.skip("missing from the map: test_the_map_lists_every_module_and_only_modules says so")
    named = re.findall(r"`((?:instruments/)?tests/[\w/]+\.py)`", row)
    assert named or "doctests" in row, f"{package}/{module}: say which tests guard it (or 'doctests')"
    missing = [path for path in named if not (ROOT / path).exists()]
    assert not missing, f"{package}/{module}: the map names tests that do not exist: {missing}"


@pytest.mark.parametrize("package, module", [(package, module) for package, module in MODULES if package in LIBRARIES])
def test_every_module_lists_its_public_names(package, module):
    parts = [package, *module.removesuffix(".py").split("/")]
    loaded = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert hasattr(loaded, "__all__"), f"{package}/{module}: list its public names in __all__"
    missing = [public for public in loaded.__all__ if not hasattr(loaded, public)]
    assert not missing, f"{package}/{module}: __all__ names what it does not define: {missing}"


@pytest.mark.parametrize("package, module", [(package, module) for package, module in MODULES
                                             if re.fullmatch(r"\w+/nb\d\d_\w+\.py", module)])
def test_each_notebooks_module_is_named_for_a_notebook(package, module):
    notebook = ROOT / "notebooks" / f"{module.rpartition('/')[2][2:].removesuffix('.py')}.ipynb"
    assert notebook.exists(), f"{package}/{module} is named for no notebook: {notebook.relative_to(ROOT)} is missing"


def test_the_layout_page_lists_every_benchmark():
    listed = set(re.findall(r"`python benchmarks/(\w+)\.py", (ROOT / "docs" / "layout.md").read_text()))
    present = {path.stem for path in (ROOT / "benchmarks").glob("*.py")}
    assert listed == present, f"docs/layout.md's benchmarks: add {sorted(present - listed)}; gone: {sorted(listed - present)}"
