"""The course uses the instruments through their public face only: ``autograd_memory``'s public names
(``autograd_memory.__all__``) and its top-level modules (``autograd_memory.testing``, ``.cli``, ``.magics``), never a
module inside its folders (``autograd_memory.measuring.meters``). Checked in every import, attribute and dotted string
of ``course_utils/``, ``tests/``, ``solutions/``, ``benchmarks/``, ``tools/`` and the notebooks' code cells; the
instruments' own tests (``instruments/tests/``) test its modules directly. Every ``course_utils.<module>`` imported
there exists as a file: no module lives on under an old name.
"""
import ast
import pathlib

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

import autograd_memory

ROOT = pathlib.Path(__file__).resolve().parents[1]
INSTRUMENTS = pathlib.Path(autograd_memory.__file__).parent
FOLDERS = {path.name for path in INSTRUMENTS.iterdir() if (path / "__init__.py").exists()}  # measuring, views, ...
TOP_LEVEL = {path.stem for path in INSTRUMENTS.glob("*.py")} - {"__init__"}  # cli, magics, testing, __main__
PUBLIC = set(autograd_memory.__all__) | TOP_LEVEL
TREES = ("course_utils", "tests", "solutions", "notebooks", "benchmarks", "tools")
IMPORTERS = {"import_module", "__import__", "setattr", "delattr", "patch"}  # calls that import a dotted name's module


def sources():
    """(where, Python source) for every Python file and every notebook code cell of the course's trees."""
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text()
        for path in sorted((ROOT / tree).rglob("*.ipynb")):
            cells = [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]
            for number, cell in enumerate(cells, 1):  # %magics and !shell lines become Python, as IPython runs them
                yield f"{path.relative_to(ROOT).as_posix()} code cell {number}", TransformerManager().transform_cell(cell.source)


def module_exists(dotted):
    *folders, name = dotted.split(".")
    base = ROOT.joinpath(*folders)
    return (base / f"{name}.py").exists() or (base / name / "__init__.py").exists()


def offences(source):
    """(line, what) for each reach past autograd_memory's public face, or into a course module that does not exist."""
    tree = ast.parse(source)
    aliases = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names if alias.name == "autograd_memory"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module] + ([f"{node.module}.{alias.name}" for alias in node.names]
                                       if node.module == "autograd_memory" else [])
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            modules = [f"autograd_memory.{node.attr}"] if not node.attr.startswith("__") else []
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in IMPORTERS:
            modules = [arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                       and arg.value.startswith("autograd_memory.")]
        else:
            continue
        for module in modules:
            head, _, rest = module.partition(".")
            if head == "autograd_memory" and rest and rest.split(".")[0] not in PUBLIC:
                yield node.lineno, f"{module}: not a public name of autograd_memory"
            elif head == "course_utils" and rest and not module_exists(module):
                yield node.lineno, f"{module}: no such module"


def test_the_course_uses_only_the_instruments_public_names():
    found = [f"{where}, line {line}: {what}" for where, source in sources() for line, what in offences(source)]
    assert not found, ("import the instruments by their public names (`from autograd_memory import GraphMemory`, "
                       "`autograd_memory.testing`; the names are autograd_memory.__all__), and course modules by "
                       "where they live (`course_utils.problems.models`):\n" + "\n".join(found))


@pytest.mark.parametrize("source, found", [
    ("from autograd_memory.measuring.meters import GraphMemory", "autograd_memory.measuring"),
    ("import autograd_memory.views.gauges as gauges", "autograd_memory.views"),
    ("import autograd_memory as am\nam.measuring.meters.KINDS", "autograd_memory.measuring"),
    ("from autograd_memory import views", "autograd_memory.views"),
    ("monkeypatch.setattr('autograd_memory.views.gauges._now', clock)", "autograd_memory.views"),
    ("from course_utils.trace import convergence_order", "course_utils.trace: no such module"),
    ("import course_utils.models", "course_utils.models: no such module"),
])
def test_a_reach_past_the_public_face_is_found(source, found):
    assert any(found in what for _, what in offences(source)), list(offences(source))


def test_the_public_face_itself_is_allowed():
    source = ("import autograd_memory as am\nfrom autograd_memory import GraphMemory, display_settings, testing\n"
              "from autograd_memory.testing import assert_no_leak\nimport autograd_memory.cli\nam.LiveTensors, am.__file__\n"
              "from course_utils.problems.models import TanhMLP\nfrom course_utils import models\nimport course_utils.checks")
    assert list(offences(source)) == []
