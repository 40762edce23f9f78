"""The optional packages: what the instruments use only where it is installed, and never import before.

``extras`` (``require``: imports ipywidgets, matplotlib or graphviz inside the function that needs it, or says which
extra of ``autograd-memory`` installs it) and ``ipython_internals`` (the running IPython shell and a cell's
number, public IPython API where there is one). Neither imports torch or IPython, so the course's environment
check and ``%load_ext autograd_memory`` stay light.

>>> from autograd_memory.optional.extras import require
>>> require("json", "reading JSON").__name__
'json'
"""
__all__ = []
