"""Autograd Memory Lab: exact memory meters, live gauges and graph views for the course notebooks.

Every public name is listed in ``_PUBLIC`` below and imported on first use, so that
``import course_utils`` stays fast and never pulls in matplotlib, ipywidgets or torchviz.

>>> import torch, course_utils as cu
>>> with cu.LiveTensors() as live:
...     x = torch.zeros(1000)
>>> live.bytes
4000

With ``AMLAB_LECTURE=1`` in the environment (``make present`` sets it), importing the package switches on
:func:`lecture_style` (projector-readable plots, gauges and tables) in every kernel; otherwise it imports nothing more.
"""
from importlib import import_module

__version__ = "0.1.0"

# public name -> module that defines it
_PUBLIC = {
    # environment
    "check_env": "env", "EnvReport": "env",
    # exact meters
    "LiveTensors": "meters", "GraphMemory": "meters", "GraphMemoryUnsupported": "meters",
    "device_memory": "meters", "measure": "measurement", "Report": "measurement", "run_metered": "measurement",
    "memory_budget": "budget", "MemoryBudgetExceeded": "budget",
    "Trace": "trace", "NotFlatError": "trace",
    "find_leaks": "leaks", "LeakReport": "leaks", "LeakRow": "leaks",
    "timeline": "memory_timeline", "Timeline": "memory_timeline",
    "format_bytes": "units",
    "Table": "tables",
    "source_code": "sources", "folded_sources": "sources",
    "pick_device": "devices",
    "run_selftest": "selftest",
    "load_reference": "reference", "Reference": "reference",
    "time_call": "measurement",
    # live display and pictures
    "MemoryGauge": "gauges", "paced": "pacing",
    "plot_trace": "plots", "compare_traces": "plots", "lecture_style": "lecture", "lecture": None,
    "show_graph": "graphs", "graph_table": "graphs", "lifecycle": "graphs",
    "GraphTable": "graphs", "NoGraphError": "graphs",
    # exercises, predictions and explorers
    "checks": None,
    "predict": "predictions", "explorers": None, "static_explorer": "explorer_html",
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
        value = getattr(import_module(f"{__name__}.{module_name}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))


def _lecture_from_environment():
    from os import environ

    from .lecture import ENV_VAR

    if environ.get(ENV_VAR, "0") not in ("", "0"):
        __getattr__("lecture_style")()


_lecture_from_environment()
