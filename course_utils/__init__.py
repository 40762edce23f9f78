"""Autograd Memory Lab: the course around the instruments of ``autograd_memory`` (the meters, gauges and graph
views, re-exported here so that every ``cu.*`` name stays) -- lecture style, predictions, explorers, checkers,
worked problems, the environment check and the reference data.

Every public name is one of ``autograd_memory.__all__`` or listed in ``_PUBLIC`` or ``_MODULES`` below, and imported
on first use, so that
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

try:
    import autograd_memory  # its public names, and look_past, which the course calls (below): no torch
except ModuleNotFoundError:  # a checkout whose instruments are not installed yet (Colab's setup cell, before a restart)
    sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "instruments", "src"))
    import autograd_memory

__version__ = "0.1.0"

# public name -> module of the course that defines it (the instruments' are autograd_memory's public names)
_PUBLIC = {
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

__all__ = sorted({*autograd_memory.__all__, *_PUBLIC, *_MODULES})


def __getattr__(name):
    if name in _MODULES:
        value = import_module(f"{__name__}.{_MODULES[name]}")
    elif name in _PUBLIC:
        value = getattr(import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    elif name in autograd_memory.__all__:
        value = getattr(autograd_memory, name)
    else:
        raise AttributeError(f"module 'course_utils' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


autograd_memory.look_past(os.path.dirname(os.path.abspath(__file__)))  # find_leaks names the learner's line, not ours


def _lecture_from_environment():
    from os import environ

    from .teaching.lecture import ENV_VAR

    if environ.get(ENV_VAR, "0") not in ("", "0"):
        __getattr__("lecture_style")()


_lecture_from_environment()
