"""autograd_memory: exact memory meters for PyTorch autograd, and the instruments built on them.

Every public name below is imported on first use, so ``import autograd_memory`` imports nothing else
(not even torch); the first instrument used imports torch and checks it (:mod:`autograd_memory.drift`).

>>> import torch, autograd_memory as am
>>> with am.LiveTensors() as live:
...     x = torch.zeros(1000)
>>> live.bytes
4000
"""
import os
from importlib import import_module

__version__ = "0.1.0"

# public name -> module that defines it
PUBLIC = {
    "LiveTensors": "meters", "GraphMemory": "meters", "GraphMemoryUnsupported": "meters", "device_memory": "meters",
    "measure": "measurement", "Report": "measurement", "run_metered": "measurement", "time_call": "measurement",
    "memory_budget": "budget", "MemoryBudgetExceeded": "budget",
    "Trace": "trace", "NotFlatError": "trace",
    "find_leaks": "leaks", "LeakReport": "leaks", "LeakRow": "leaks",
    "timeline": "memory_timeline", "Timeline": "memory_timeline",
    "show_graph": "graphs", "graph_table": "graphs", "lifecycle": "graphs", "GraphTable": "graphs",
    "NoGraphError": "graphs", "zoomable": "zoom",
    "MemoryGauge": "gauges", "plot_trace": "plots", "compare_traces": "plots",
    "format_bytes": "units", "Table": "tables",
}
__all__ = sorted(PUBLIC)

# Code under these folders is the instruments' own: find_leaks and timeline name the first line outside them (and
# torch). A library built on the instruments adds its folder (the course adds course_utils/).
LIBRARY_DIRS = [os.path.dirname(os.path.abspath(__file__)) + os.sep]


def __getattr__(name):
    if name not in PUBLIC:
        raise AttributeError(f"module 'autograd_memory' has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(PUBLIC))


def load_ipython_extension(ipython):
    """``%load_ext autograd_memory``: the magics ``%%find_leaks``, ``%%timeline`` and ``%memory``
    (:mod:`autograd_memory.magics`)."""
    from .extras import require

    require("IPython", "%load_ext autograd_memory")
    from .magics import register

    register(ipython)
