"""How nbgrader grades the course's exercises: its `Execute` preprocessor, made to grade on past a broken answer.

nbgrader's own settings already stop two kinds of runaway answer: a cell that runs past ``Execute.timeout`` is
interrupted (a loop that never ends), and the kernel runs under the memory limit of a student's server
(RLIMIT_DATA, from deploy/sizing.py), so an allocation without bound fails with a MemoryError. Each fails its own
test cell (zero for that exercise) and grading goes on. Two cases nbgrader leaves to the instructor, and
:class:`GradeOnExecute` handles:

- an answer that kills the kernel (``os._exit``, a crash): nbgrader gives up on the whole submission. Here the
  cell gets an error that says what happened, the kernel is restarted, the notebook's locked set-up cells run
  again, and grading goes on with the next cell;
- a failed cell keeps its traceback (``sys.last_traceback``), and with it what the answer allocated: dropped
  after every failed cell, so that a MemoryError does not make the next exercise fail too.

``configure(c)`` sets all of it on an nbgrader config (the course's ``nbgrader_config.py`` calls it).
"""
import copy

import nbformat
import sizing
from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from nbgrader.preprocessors import Execute

KERNEL_DIED = ("the kernel died while running this cell (the code exited, crashed, or was killed): this exercise "
               "scores zero; the kernel was restarted and the cells after it were graded in a fresh one")
FORGET_FAILURE = """\
import gc as _gc, sys as _s
_s.last_type = _s.last_value = _s.last_traceback = _s.last_exc = None
get_ipython().InteractiveTB.tb = get_ipython().last_execution_result = None
_gc.collect()
del _gc, _s"""


def is_setup(cell):
    """A locked code cell of the assignment (its imports): run again after a restart."""
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and meta.get("locked") and not meta.get("grade") and not meta.get("solution")


class GradeOnExecute(Execute):
    """nbgrader's `Execute`, grading on past a dead kernel and freeing what a failed cell held."""

    def preprocess_cell(self, cell, resources, index):
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            cell.outputs.append(nbformat.v4.new_output("error", ename="KernelDied", evalue=KERNEL_DIED,
                                                       traceback=[f"KernelDied: {KERNEL_DIED}"]))
            self._restart(index)
            self.nb.cells[index] = cell
            return cell, self.resources
        if any(output.output_type == "error" for output in cell.get("outputs", [])):
            self._run_silently(FORGET_FAILURE)
        return cell, resources

    def _restart(self, index):
        run_sync(self.km.restart_kernel)(now=True)
        run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
        for at, earlier in enumerate(self.nb.cells[:index]):
            if is_setup(earlier):  # on a copy: nbclient puts the cell it ran back into the notebook
                self.execute_cell(copy.deepcopy(earlier), at, store_history=False)
                self.nb.cells[at] = earlier

    def _run_silently(self, code):
        msg_id = self.kc.execute(code, silent=True, store_history=False)
        run_sync(self.async_wait_for_reply)(msg_id)


def configure(c, memory_limit=None, timeout=None):
    """Set the course's grading on nbgrader's config ``c``: the kernel's memory limit (a student's server's), a
    cell's time limit (a whole notebook's budget, data/notebooks_cpu.json) and :class:`GradeOnExecute`."""
    from nbgrader.converters.autograde import Autograde

    measured = sizing.Sizing.measured()
    limit = memory_limit or measured.memory_limit
    c.Execute.timeout = int(timeout or measured.budget_seconds)
    c.Execute.extra_arguments = [
        "--HistoryManager.hist_file=:memory:",
        f"--IPKernelApp.exec_lines=import resource as _r; _r.setrlimit(_r.RLIMIT_DATA, ({limit}, {limit})); del _r"]
    c.Autograde.autograde_preprocessors = [GradeOnExecute if pp is Execute else pp
                                           for pp in Autograde.class_traits()["autograde_preprocessors"].default()]
    c.ClearSolutions.code_stub = {"python": "raise NotImplementedError"}
    return c
