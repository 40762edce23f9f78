"""Every use of IPython's internals in the instruments, in one place, with public API where it exists.
IPython is never imported here: these look up a shell only if IPython is already running.

>>> in_kernel(), cell_number("/tmp/not_a_cell.py")      # no kernel here (a test may have made a plain shell)
(False, None)
"""
import re
import sys

__all__ = ["shell", "in_kernel", "cell_number", "running_cell_number"]


def shell():
    """The running IPython shell, or None (plain Python, a script)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def in_kernel() -> bool:
    """True inside a Jupyter kernel; False in plain Python, a script, or a terminal IPython.

    Relies on: ipykernel's shell having a ``kernel`` attribute (a terminal IPython's has none).
    Guarded by: test_gauges.py::test_plain_python_gets_text_only and the browser tests of the live gauge.
    """
    running = shell()
    return running is not None and getattr(running, "kernel", None) is not None


def cell_number(filename):
    """The execution count of the IPython cell compiled under ``filename``, or None outside IPython.

    Relies on: the public ``CachingCompiler.format_code_name`` (IPython >= 8), which names a cached cell
    ``("Cell", "In[N]")``; before it, the private ``_filename_map``. Guarded by:
    test_leaks.py::test_in_a_notebook_kernel_rows_name_the_cell_by_its_execution_count and test_magics.py.
    """
    compiler = getattr(shell(), "compile", None)
    if compiler is None:
        return None
    format_code_name = getattr(compiler, "format_code_name", None)
    if format_code_name is None:
        return getattr(compiler, "_filename_map", {}).get(filename)
    label = format_code_name(filename)
    match = re.fullmatch(r"In\[(\d+)\]", label[1]) if label else None
    return int(match[1]) if match else None


def running_cell_number():
    """The execution count of the cell running now (the innermost cell on the stack), for a magic that compiles
    code of its own under the same number; the shell's counter when no cell is on the stack. (IPython counts the
    cell before running it, so ``execution_count`` during a cell is already the next one's.)"""
    frame = sys._getframe(1)
    while frame is not None:
        number = cell_number(frame.f_code.co_filename)
        if number is not None:
            return number
        frame = frame.f_back
    return shell().execution_count
