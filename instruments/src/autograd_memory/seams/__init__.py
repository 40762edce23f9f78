"""The seams: what the instruments rely on outside themselves, each in one module, so that an upgrade breaks here.

``torch_internals`` (every use of PyTorch's privates, each with what it relies on and the test that guards it),
``drift`` (the drift guard: the tested torch range and a probe per private), ``ipython_internals`` (the running
shell and a cell's number, public IPython API where there is one) and ``extras`` (the optional packages, and which
extra installs each). Every layer above reads torch's and IPython's internals only through these.

>>> from autograd_memory.seams.extras import require
>>> require("json", "reading JSON").__name__
'json'
"""
__all__ = []
