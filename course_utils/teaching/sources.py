"""Code shown in a notebook as a reader needs it: a function without its docstring or its meter plumbing, and
several functions folded, one line each until opened (so that no output runs to pages).

>>> def step(x, mark=print):
...     '''Add one.'''
...     y = x + 1
...     mark("y = x + 1")
...     return y
>>> print(source_code(step, drop="mark("))
def step(x, mark=print):
    y = x + 1
    return y
>>> print(folded_sources({"step": step}))
step: 5 lines (open it in a notebook, or print(inspect.getsource(...)))
"""
import ast
import html
import inspect
import textwrap

__all__ = ["source_code", "folded_sources", "FoldedSources"]


def source_code(function, drop=None) -> str:
    """The code of ``function`` without its docstring; ``drop``: leave out the lines that start with this text
    (e.g. ``"mark("``, calls that only feed a meter)."""
    source = textwrap.dedent(inspect.getsource(function))
    lines = source.splitlines()
    node = ast.parse(source).body[0]
    if ast.get_docstring(node) is not None:
        docstring = node.body[0]
        del lines[docstring.lineno - 1:docstring.end_lineno]
    return "\n".join(line for line in lines if not (drop and line.strip().startswith(drop)))


class FoldedSources:
    """Named pieces of code, each folded to one line in a notebook (an HTML ``<details>``) and opened by a click."""

    def __init__(self, sources):
        self.sources = dict(sources)

    def _repr_html_(self):
        return "".join(f"<details><summary><code>{html.escape(name)}</code> ({len(code.splitlines())} lines)</summary>"
                       f"<pre>{html.escape(code)}</pre></details>" for name, code in self.sources.items())

    def __str__(self):
        return "\n".join(f"{name}: {len(code.splitlines())} lines (open it in a notebook, or "
                         "print(inspect.getsource(...)))" for name, code in self.sources.items())

    def __repr__(self):
        return str(self)


def folded_sources(functions) -> FoldedSources:
    """``{name: function}`` shown folded: each function's full source (docstring included) behind its name."""
    return FoldedSources({name: inspect.getsource(function) for name, function in functions.items()})
