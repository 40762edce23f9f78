"""The layout a newcomer relies on: CONTRIBUTING.md's map lists every module, and each module lists its public names."""
import importlib
import re

import pytest
from conftest import ROOT

PACKAGE = ROOT / "course_utils"
MODULES = sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


def architecture_map():
    """``{module path: its row}`` from the table under CONTRIBUTING.md's "## Architecture"."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert "\n## Architecture\n" in text, "CONTRIBUTING.md needs its '## Architecture' section"
    section = text.split("\n## Architecture\n", 1)[1].split("\n## ", 1)[0]
    return {re.match(r"\| `([^`]+)`", line).group(1): line for line in section.splitlines() if line.startswith("| `")}


def test_the_map_lists_every_module_and_only_modules():
    listed = set(architecture_map())
    assert listed == set(MODULES), (f"add to CONTRIBUTING.md's architecture map: {sorted(set(MODULES) - listed)}; "
                                    f"listed but not in course_utils/: {sorted(listed - set(MODULES))}")


@pytest.mark.parametrize("module", MODULES)
def test_the_map_names_tests_that_exist(module):
    row = architecture_map().get(module)
    if row is None:
        pytest.skip("missing from the map: test_the_map_lists_every_module_and_only_modules says so")
    named = re.findall(r"`(tests/[\w/]+\.py)`", row)
    assert named or "doctests" in row, f"{module}: say which tests guard it (or 'doctests')"
    missing = [path for path in named if not (ROOT / path).exists()]
    assert not missing, f"{module}: the map names tests that do not exist: {missing}"


@pytest.mark.parametrize("module", MODULES)
def test_every_module_lists_its_public_names(module):
    parts = ["course_utils", *module.removesuffix(".py").split("/")]
    loaded = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert hasattr(loaded, "__all__"), f"course_utils/{module}: list its public names in __all__"
    missing = [public for public in loaded.__all__ if not hasattr(loaded, public)]
    assert not missing, f"course_utils/{module}: __all__ names what it does not define: {missing}"
