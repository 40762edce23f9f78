"""Autograd Memory Lab: the course around the instruments of ``autograd_memory`` (the meters, gauges and graph
views, re-exported here so that every ``cu.*`` name stays) -- lecture style, predictions, explorers, checkers,
worked problems, the environment check and the reference data.

Every public name is listed in ``_PUBLIC`` below and imported on first use, so that
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
    import autograd_memory
except ModuleNotFoundError:  # a checkout whose instruments are not installed yet (Colab's setup cell, before a restart)
    sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "instruments", "src"))
    import autograd_memory

__version__ = "0.1.0"

# public name -> module that defines it: every instrument of autograd_memory, and the course's own
_PUBLIC = {
    **{name: f"autograd_memory.{module}" for name, module in autograd_memory.PUBLIC.items()},
    # environment and devices
    "check_env": "env", "EnvReport": "env", "pick_device": "devices",
    "run_selftest": "selftest",
    "load_reference": "reference", "Reference": "reference",
    # teaching: lecture style, pacing, predictions, exercises and explorers
    "paced": "pacing", "lecture_style": "lecture", "lecture": None,
    "checks": None, "predict": "predictions", "explorers": None, "static_explorer": "explorer_html",
    "source_code": "sources", "folded_sources": "sources",
    # the worked problems
    "models": None, "pinn": None, "laplacians": None, "ode": None, "integrate": None,
}

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'course_utils' has no attribute {name!r}")
    module_name = _PUBLIC[name]
    if module_name is None:  # a whole submodule, e.g. course_utils.pinn
        value = import_module(f"{__name__}.{name}")
    else:
        value = getattr(import_module(module_name if "." in module_name else f"{__name__}.{module_name}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))


class _MovedModules(MetaPathFinder, Loader):
    """``course_utils.trace`` and the other modules that moved to ``autograd_memory`` still import (notebooks
    write ``from autograd_memory.trace import convergence_order``): the same module object, not a copy."""

    MOVED = frozenset({"budget", "gauges", "graphs", "leaks", "measurement", "memory_timeline", "meters", "plots",
                       "sites", "tables", "torch_internals", "trace", "units"})

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        return spec_from_loader(fullname, self) if package == __name__ and name in self.MOVED else None

    def create_module(self, spec):
        module = import_module(f"autograd_memory.{spec.name.rpartition('.')[2]}")
        spec.loader_state = module.__spec__  # importlib gives the module the alias's spec: exec_module puts it back
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
autograd_memory.LIBRARY_DIRS.append(os.path.dirname(os.path.abspath(__file__)) + os.sep)  # sites look past the course


def _lecture_from_environment():
    from os import environ

    from .lecture import ENV_VAR

    if environ.get(ENV_VAR, "0") not in ("", "0"):
        __getattr__("lecture_style")()


_lecture_from_environment()
