"""The lint as a flake8 plugin: ``flake8 --select AGM`` reports the same findings as ``python -m autograd_memory lint``
(flake8 is the plugin host of Python's linters; ruff takes no plugins). flake8 finds it through the ``flake8.extension``
entry point in instruments/pyproject.toml, and applies ``# noqa: AGM001`` itself.

>>> import ast
>>> source = "for x in data:\\n    loss = model(x).sum()\\n    loss.backward(create_graph=True)\\n"
>>> [(line, col, message[:6]) for line, col, message, _ in Checker(ast.parse(source), lines=[source]).run()]
[(3, 4, 'AGM004')]
"""
from .diagnosing.lint import LintError, check_source

__all__ = ["Checker"]


class Checker:
    """A flake8 tree checker: flake8 makes one per file, with the file's lines, and reads what :meth:`run` yields."""

    name = "autograd-memory"
    version = "0.1.0"

    def __init__(self, tree, lines=(), filename="<string>"):
        self.source, self.filename = "".join(lines), filename

    def run(self):
        try:
            findings = check_source(self.source, self.filename)
        except LintError:  # flake8 reports the syntax error itself (E999)
            return
        for finding in findings:
            yield finding.line, finding.col - 1, f"{finding.code} {finding.message}", type(self)
