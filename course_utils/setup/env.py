"""Environment check: one ``[OK]``/``[FAIL]`` line per thing the course needs.

>>> report = check_env(verbose=False)
>>> report["python"].ok
True

``python -m course_utils check`` prints the same table and exits non-zero when a required need fails.
"""
import importlib
import importlib.metadata
import importlib.util
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from autograd_memory.formats.tables import ShowsAsText, Table
from autograd_memory.optional.extras import GRAPHVIZ_INSTALL

__all__ = ["check_env", "EnvReport", "Need"]

SETUP = "make setup   (or: pip install -e '.[test]' -e ./instruments)"


@dataclass
class Need:
    """One line of the check: what, whether it is there, its version, and how to fix it if not."""

    name: str
    ok: bool
    version: str = ""
    detail: str = ""
    fix: str = ""
    required: bool = True

    @property
    def mark(self) -> str:
        return "[OK]" if self.ok else ("[FAIL]" if self.required else "[WARN]")


@dataclass
class EnvReport(ShowsAsText):
    """The whole check. ``ok`` is False when any required need failed."""

    needs: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(n.ok for n in self.needs if n.required)

    @property
    def failed(self) -> list:
        return [n for n in self.needs if not n.ok]

    def __getitem__(self, name: str) -> Need:
        for need in self.needs:
            if need.name == name:
                return need
        raise KeyError(name)

    def __str__(self):
        fixes = [f"fix {n.name}: {n.fix}" for n in self.failed if n.fix]
        missing = len([n for n in self.failed if n.required])
        verdict = "All set." if self.ok else f"{missing} required item(s) missing: see 'fix' above."
        rows = [(n.mark, n.name, n.version, n.detail) for n in self.needs]
        return str(Table(("", "need", "version", "detail"), rows, caption="\n".join(fixes + [verdict])))


def _python():
    version = platform.python_version()
    ok = sys.version_info >= (3, 11)
    return Need("python", ok, version, fix="install Python 3.11 or newer")


def _torch():
    try:
        torch = importlib.import_module("torch")
    except Exception as error:  # ImportError, or a broken wheel
        return Need("torch", False, detail=str(error).splitlines()[0],
                    fix="pip install torch==2.13.0   (CPU; for CUDA see docs/setup.md, 'Using a GPU')")
    accel = []
    if torch.cuda.is_available():
        accel.append(f"CUDA usable: {torch.cuda.get_device_name(0)}")
    else:
        accel.append("CUDA not usable" + ("" if torch.version.cuda else ": CPU build"))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        accel.append("MPS usable")
    return Need("torch", True, torch.__version__, "; ".join(accel))


def _package(name, module=None, fix=None, required=True, load=True):
    """``load=False``: only find the package (JupyterLab runs the server, not the kernel; importing it costs ~3 s)."""
    module = module or name
    try:
        if load:
            importlib.import_module(module)
        elif importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named '{module}'")
        version = importlib.metadata.version(name)
    except Exception as error:
        return Need(name, False, detail=str(error).splitlines()[0] if str(error) else type(error).__name__,
                    fix=fix or f"pip install {name}   (or: {SETUP})", required=required)
    return Need(name, True, version, required=required)


def _dot():
    path = shutil.which("dot")
    fix = GRAPHVIZ_INSTALL
    if path is None:
        return Need("dot", False, detail="graphviz's `dot` binary is not on PATH", fix=fix)
    try:
        out = subprocess.run([path, "-V"], capture_output=True, text=True, timeout=10)
        version = (out.stderr or out.stdout).strip().split("version")[-1].split("(")[0].strip()
    except (OSError, subprocess.SubprocessError) as error:
        return Need("dot", False, detail=f"{path} does not run: {error}", fix=fix)
    return Need("dot", True, version, path)


def check_env(verbose: bool = True) -> EnvReport:
    """Check Python, torch (and CUDA/MPS), JupyterLab, ipywidgets, matplotlib, torchviz, `dot` and nbval.

    Prints the table when ``verbose`` and returns an :class:`EnvReport` either way.
    """
    report = EnvReport([
        _python(),
        _torch(),
        _package("jupyterlab", load=False),
        _package("ipywidgets"),
        _package("matplotlib"),
        _package("torchviz", fix="pip install torchviz setuptools   (only notebook 01's optional section uses it)",
                 required=False),
        _dot(),
        _package("nbval", fix="pip install nbval   (only the test suite needs it)", required=False),
    ])
    if verbose:
        print(report)
    return report
