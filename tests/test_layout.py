"""The layout a newcomer relies on: CONTRIBUTING.md's map lists every module of both packages (the course,
course_utils/, and the instruments, instruments/src/autograd_memory/), and each module lists its public names."""
import importlib
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

PACKAGES = {"course_utils": ROOT / "course_utils", "autograd_memory": ROOT / "instruments" / "src" / "autograd_memory"}
MODULES = [(package, path.relative_to(folder).as_posix())
           for package, folder in PACKAGES.items() for path in sorted(folder.rglob("*.py"))]


def architecture_map(package):
    """``{module path: its row}`` from the table under CONTRIBUTING.md's "## Architecture" headed ``### `package```."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert "\n## Architecture\n" in text, "CONTRIBUTING.md needs its '## Architecture' section"
    section = text.split("\n## Architecture\n", 1)[1].split("\n## ", 1)[0]
    tables = {re.match(r"`(\w+)`", part).group(1): part for part in section.split("\n### ")[1:]}
    assert package in tables, f"CONTRIBUTING.md's architecture map needs a '### `{package}` ...' table"
    return {re.match(r"\| `([^`]+)`", line).group(1): line
            for line in tables[package].splitlines() if line.startswith("| `")}


@pytest.mark.parametrize("package", PACKAGES)
def test_the_map_lists_every_module_and_only_modules(package):
    listed, modules = set(architecture_map(package)), {module for owner, module in MODULES if owner == package}
    assert listed == modules, (f"add to CONTRIBUTING.md's map of {package}: {sorted(modules - listed)}; "
                               f"listed but not in {package}: {sorted(listed - modules)}")


@pytest.mark.parametrize("package, module", MODULES)
def test_the_map_names_tests_that_exist(package, module):
    row = architecture_map(package).get(module)
    if row is None:
        pytest.skip("missing from the map: test_the_map_lists_every_module_and_only_modules says so")
    named = re.findall(r"`((?:instruments/)?tests/[\w/]+\.py)`", row)
    assert named or "doctests" in row, f"{package}/{module}: say which tests guard it (or 'doctests')"
    missing = [path for path in named if not (ROOT / path).exists()]
    assert not missing, f"{package}/{module}: the map names tests that do not exist: {missing}"


@pytest.mark.parametrize("package, module", MODULES)
def test_every_module_lists_its_public_names(package, module):
    parts = [package, *module.removesuffix(".py").split("/")]
    loaded = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert hasattr(loaded, "__all__"), f"{package}/{module}: list its public names in __all__"
    missing = [public for public in loaded.__all__ if not hasattr(loaded, public)]
    assert not missing, f"{package}/{module}: __all__ names what it does not define: {missing}"
