"""Autograd Memory Lab: the course around the instruments of ``autograd_memory`` (the meters, gauges and graph
views, re-exported here so that every ``cu.*`` name stays) -- lecture style, predictions, explorers, checkers,
worked problems, the environment check and the reference data.

Every public name is listed in ``_PUBLIC`` or ``_MODULES`` below and imported on first use, so that
``import course_utils`` stays fast and never pulls in torch, matplotlib, ipywidgets or torchviz.

>>> import torch, course_utils as cu
>>> with cu.LiveTensors() as live:
...     x = torch.zeros(1000)
>>> live.bytes
4000

With ``AMLAB_LECTURE=1`` in the environment (``make present`` sets it), importing the package switches on
:func:`lecture_style` (projector-readable plots, gauges and tables) in every kernel; otherwise it imports nothing more.
"""
import os
import sys
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.util import spec_from_loader

try:
    import autograd_memory.diagnosing  # the package, and the LIBRARY_DIRS the course adds itself to (below): no torch
except ModuleNotFoundError:  # a checkout whose instruments are not installed yet (Colab's setup cell, before a restart)
    sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "instruments", "src"))
    import autograd_memory.diagnosing

__version__ = "0.1.0"

# public name -> module that defines it: every instrument of autograd_memory, and the course's own
_PUBLIC = {
    **{name: f"autograd_memory.{module}" for name, module in autograd_memory.PUBLIC.items()},
    # set-up: the environment, devices, the self-test and the reference data
    "check_env": "setup.env", "EnvReport": "setup.env", "pick_device": "setup.devices",
    "run_selftest": "setup.selftest",
    "load_reference": "setup.reference", "Reference": "setup.reference",
    # teaching: lecture style, pacing, predictions, code shown; exercises and explorers
    "paced": "teaching.pacing", "lecture_style": "teaching.lecture", "predict": "teaching.predictions",
    "source_code": "teaching.sources", "folded_sources": "teaching.sources",
    "static_explorer": "explorers.static_html",
}
# public name -> a whole module, e.g. cu.pinn
_MODULES = {"lecture": "teaching.lecture", "checks": "checks", "explorers": "explorers",
            "models": "problems.models", "pinn": "problems.pinn", "laplacians": "problems.laplacians",
            "ode": "problems.ode", "integrate": "problems.integrate"}

__all__ = sorted(_PUBLIC.keys() | _MODULES.keys())


def _full(module):
    return module if module.startswith("autograd_memory.") else f"{__name__}.{module}"


def __getattr__(name):
    if name in _MODULES:
        value = import_module(_full(_MODULES[name]))
    elif name in _PUBLIC:
        value = getattr(import_module(_full(_PUBLIC[name])), name)
    else:
        raise AttributeError(f"module 'course_utils' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _MovedModules(MetaPathFinder, Loader):
    """Modules that moved still import under their old names, as the same module object, not a copy: the instruments
    that went to ``autograd_memory`` (notebooks write ``from course_utils.trace import convergence_order``), and the
    course's modules now grouped by layer (``from course_utils.models import TanhMLP`` is ``course_utils.problems.models``)."""

    MOVED = {**{module.rpartition(".")[2]: f"autograd_memory.{module}" for module in (
                 "measuring.budget", "views.gauges", "views.graphs", "diagnosing.leaks", "measuring.measurement",
                 "diagnosing.memory_timeline", "measuring.meters", "views.plots", "diagnosing.sites", "formats.tables",
                 "seams.torch_internals", "measuring.trace", "formats.units")},
             **{name: f"{__name__}.{module}" for name, module in _MODULES.items() if module.startswith("problems.")},
             "lecture": f"{__name__}.teaching.lecture", "explorer_html": f"{__name__}.explorers.static_html"}

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        return spec_from_loader(fullname, self) if package == __name__ and name in self.MOVED else None

    def create_module(self, spec):
        module = import_module(self.MOVED[spec.name.rpartition(".")[2]])
        spec.loader_state = module.__spec__  # importlib gives the module the alias's spec: exec_module puts it back
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
autograd_memory.diagnosing.LIBRARY_DIRS.append(os.path.dirname(os.path.abspath(__file__)) + os.sep)  # look past the course


def _lecture_from_environment():
    from os import environ

    from .teaching.lecture import ENV_VAR

    if environ.get(ENV_VAR, "0") not in ("", "0"):
        __getattr__("lecture_style")()


_lecture_from_environment()
