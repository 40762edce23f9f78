"""Explorers: a panel per idea, controls on the left, the *measured* result on the right.

One module per notebook, named after it: ``explorers.nb03_trapezoid_integration`` holds the explorer of
``notebooks/03_trapezoid_integration.ipynb`` and ``tests/explorers/test_nb03_trapezoid_integration.py`` tests it (as
``checks/`` is mirrored by ``tests/checks/``). :mod:`~course_utils.explorers.panel` holds what every explorer is, and
:mod:`~course_utils.explorers.static_html` shows one where no widget manager runs. Every reading comes from the exact
meters, never from a formula; the compute functions are plain Python that tests call directly. Sizes are capped (each
explorer's ``cap`` says where and why): every setting re-measures in well under a second on two CPU cores.

The notebooks' modules are found in this folder, and their public names are this package's
(``cu.explorers.trapezoid`` is ``nb03_trapezoid_integration.trapezoid``); :data:`PANELS` holds every explorer
function, a public function that returns an :class:`Explorer` (``benchmarks/explorers.py`` times each).

>>> PANELS["trapezoid"] is trapezoid, "VARIANTS" in __all__     # 03's panel; 01's names are cu.explorers.* too
(True, True)
>>> trapezoid().update(points=1001, width=16, layers=2).activations == 1001 * 16 * 2 * 4   # measured by GraphMemory
True
"""
import importlib
import inspect
import pkgutil
import typing

from .panel import Explorer

NOTEBOOK_EXPLORERS = tuple(sorted(module.name for module in pkgutil.iter_modules(__path__) if module.name[:2] == "nb"))


def _notebook_names():
    """``{public name: its notebook module}`` over every notebook's explorer module; a name defined twice is an error."""
    names = {}
    for module_name in NOTEBOOK_EXPLORERS:
        module = importlib.import_module(f"{__name__}.{module_name}")
        for name in module.__all__:
            if name in names:
                raise ImportError(f"explorers.{module_name} and explorers.{names[name].__name__} both define {name!r}: "
                                  "cu.explorers.<name> must say which one")
            names[name] = module
    return names


_NAMES = _notebook_names()
globals().update({name: getattr(module, name) for name, module in _NAMES.items()})
PANELS = {name: value for name, value in globals().items() if name in _NAMES and inspect.isfunction(value)
          and typing.get_type_hints(value).get("return") is Explorer}

__all__ = ["Explorer", "NOTEBOOK_EXPLORERS", "PANELS", *_NAMES]
