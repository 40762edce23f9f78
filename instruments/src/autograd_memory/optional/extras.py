"""The optional parts: which extra of ``autograd-memory`` brings which package, and one clear error when one is
missing. The instruments import these only inside the function that needs them.

>>> require("json", "reading JSON").__name__
'json'
>>> require("matplotlib_that_is_not_there", "plot_trace")
Traceback (most recent call last):
ImportError: plot_trace needs matplotlib_that_is_not_there, which is not installed: pip install matplotlib_that_is_not_there
"""
from importlib import import_module

__all__ = ["require", "EXTRAS", "GRAPHVIZ_INSTALL"]

EXTRAS = {"ipywidgets": "widgets", "IPython": "widgets", "matplotlib": "plots", "graphviz": "graphs"}
GRAPHVIZ_INSTALL = ("Debian/Ubuntu: sudo apt-get install graphviz | macOS: brew install graphviz | "
                    "conda: conda install -c conda-forge graphviz")


def require(module: str, needed_by: str):
    """Import ``module`` (e.g. ``"matplotlib.pyplot"``), or raise ImportError saying what needs it and the
    ``pip install`` that brings it."""
    try:
        return import_module(module)
    except ImportError as error:
        top = module.partition(".")[0]
        extra = EXTRAS.get(top)
        fix = f"pip install 'autograd-memory[{extra}]'" if extra else f"pip install {top}"
        raise ImportError(f"{needed_by} needs {top}, which is not installed: {fix}") from error
