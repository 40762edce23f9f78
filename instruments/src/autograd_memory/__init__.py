"""autograd_memory: exact memory meters for PyTorch autograd, and the instruments built on them.

Every public name below is imported on first use, so ``import autograd_memory`` imports nothing else
(not even torch); the first instrument used imports torch and checks it (:mod:`autograd_memory.seams.drift`).

>>> import torch, autograd_memory as am
>>> with am.LiveTensors() as live:
...     x = torch.zeros(1000)
>>> live.bytes
4000
"""
from importlib import import_module

__version__ = "0.1.0"

# public name -> the module that defines it, by layer
PUBLIC = {
    **dict.fromkeys(["LiveTensors", "GraphMemory", "GraphMemoryUnsupported", "Kind", "device_memory"], "measuring.meters"),
    **dict.fromkeys(["measure", "Report", "run_metered", "time_call"], "measuring.measurement"),
    **dict.fromkeys(["memory_budget", "MemoryBudgetExceeded"], "measuring.budget"),
    **dict.fromkeys(["Trace", "NotFlatError", "convergence_order"], "measuring.trace"),
    **dict.fromkeys(["show_graph", "graph_table", "lifecycle", "GraphTable", "NoGraphError"], "views.graphs"),
    **dict.fromkeys(["plot_trace", "compare_traces", "log_axis", "log_bytes", "bytes_axis"], "views.plots"),
    "zoomable": "views.zoom", "MemoryGauge": "views.gauges",
    **dict.fromkeys(["viewer_html", "save_viewer", "viewer_frame", "save_snapshot"], "views.memory_viewer"),
    **dict.fromkeys(["find_leaks", "LeakReport", "LeakRow"], "diagnosing.leaks"),
    **dict.fromkeys(["timeline", "Timeline"], "diagnosing.memory_timeline"),
    **dict.fromkeys(["LIBRARY_DIRS", "look_past"], "diagnosing"),  # no torch: a library says so before anything runs
    "LINT_RULES": "diagnosing.lint_rules",  # no torch: the lint's rules, for the sheets that list them
    **dict.fromkeys(["check_file", "check_source", "LintError"], "diagnosing.lint"),  # no torch: the lint, from Python
    "memory_snapshot": "formats.memory_snapshot",  # a snapshot in PyTorch's format from your own events
    "format_bytes": "formats.units", **dict.fromkeys(["Table", "ShowsAsText"], "formats.tables"),
    "GRAPHVIZ_INSTALL": "optional.extras", "PROBES": "seams.drift",
}
# public name -> a whole module: the display settings a course switches (``am.display_settings.use_large()``)
MODULES = {"display_settings": "formats.display_settings"}
__all__ = sorted(PUBLIC.keys() | MODULES.keys())


def __getattr__(name):
    if name in MODULES:
        value = import_module(f"{__name__}.{MODULES[name]}")
    elif name in PUBLIC:
        value = getattr(import_module(f"{__name__}.{PUBLIC[name]}"), name)
    else:
        raise AttributeError(f"module 'autograd_memory' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def load_ipython_extension(ipython):
    """``%load_ext autograd_memory``: the magics ``%%find_leaks``, ``%%timeline`` and ``%memory``
    (:mod:`autograd_memory.magics`)."""
    from .optional.extras import require

    require("IPython", "%load_ext autograd_memory")
    from .magics import register

    register(ipython)
