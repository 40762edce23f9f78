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

And three that make grades fast and trustworthy:

- only the cells that grading needs run: the locked ones (the set-up, each exercise's context), the answers and the
  tests; the lesson's other cells do not (an answer uses only what its own cell and the set-up define, which the
  assignment's introduction tells the student);

- a test cell scores only when the same check passes again in a fresh Python (:mod:`deploy.fresh_check`) that
  the student's cells never ran in: rebinding or patching a checker earns nothing; the feedback says why;
- a failed test cell's feedback is the checker's message (or what stopped the cell: the time limit, with its
  seconds), not a traceback with the grading machine's paths.

``configure(c)`` sets all of it on an nbgrader config (the course's ``nbgrader_config.py`` calls it).
"""
import copy
import json
import re
import resource
import subprocess
import sys

import nbformat
from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbgrader.preprocessors import Execute
from traitlets import Int

from deploy import sizing

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


def kind(cell):
    """What ``fresh_check`` does with a code cell: "locked", "answer", "test", or None (a cell it leaves out)."""
    meta = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code":
        return None
    return "test" if meta.get("grade") else "answer" if meta.get("solution") else "locked" if is_setup(cell) else None


def fresh_verdicts(nb, tests, timeout, memory_limit):
    """``{test grade_id: {"passed", "message"}}``: the answers of ``nb``'s test cells ``tests`` checked in a fresh
    Python, each within ``timeout`` seconds."""
    cells = [{"kind": kind(c), "grade_id": c.metadata["nbgrader"]["grade_id"], "source": c.source}
             for c in nb.cells if kind(c) and (kind(c) != "test" or c.metadata["nbgrader"]["grade_id"] in tests)]
    limit = (lambda: resource.setrlimit(resource.RLIMIT_DATA, (memory_limit, memory_limit))) if memory_limit else None
    try:
        done = subprocess.run([sys.executable, "-m", "deploy.fresh_check", f"--timeout={timeout}"], input=json.dumps(cells),
                              capture_output=True, text=True, timeout=timeout * (len(tests) + 1) + 60,
                              preexec_fn=limit)
        found = json.loads(done.stdout) if done.returncode == 0 else {}
        why = "the fresh check stopped: " + tidy((done.stderr.strip().splitlines() or ["no message"])[-1])
    except subprocess.TimeoutExpired:
        found, why = {}, f"the fresh check ran past its time limit ({timeout} s a check)"
    return {t: found.get(t, {"passed": False, "message": why}) for t in tests}


def tidy(text):
    """``text`` without the machine's paths: a file's path becomes its name.

    >>> tidy('File "/srv/course/x/nb05.py", line 3; at course_utils/checks/nb05.py')
    'File "nb05.py", line 3; at course_utils/checks/nb05.py'
    """
    return re.sub(r"(?<![\w.])(?:/[\w.@+-]+)+/([\w.@+-]+)", r"\1", str(text))


def failure(ename, message):
    """An error output that shows ``message`` alone (nbgrader's feedback prints an error's traceback lines)."""
    return nbformat.v4.new_output("error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])


class GradeOnExecute(Execute):
    """nbgrader's `Execute`, grading on past a dead kernel, freeing what a failed cell held, scoring a test cell only
    when a fresh Python agrees, and keeping feedback to the checker's message."""

    memory_limit = Int(0, help="RLIMIT_DATA of the fresh check's process, in bytes (0: none)").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        """Grade in the kernel, then check again in a fresh Python each test cell that passed there. An answer that
        passed within a cell's time limit in the kernel gets twice that in the fresh process (other grading runs
        share the machine); one that failed is not run again."""
        nb, resources = super().preprocess(nb, resources, km)
        passed = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if kind(c) == "test"
                  and not any(o.output_type == "error" for o in c.outputs)}
        if passed:
            for grade_id, verdict in fresh_verdicts(nb, set(passed), 2 * self.timeout, self.memory_limit).items():
                if not verdict["passed"]:
                    passed[grade_id].outputs.append(failure("NotGraded", "checked again in a fresh Python with your "
                                                            "answer's definitions alone, it did not pass: "
                                                            + tidy(verdict["message"])))
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and kind(cell) is None:
            return cell, resources  # the lesson's own cells: no grade depends on them (see the notebook's introduction)
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            cell.outputs.append(failure("KernelDied", KERNEL_DIED))
            self._restart(index)
            self.nb.cells[index] = cell
            return cell, self.resources
        except CellTimeoutError:
            cell.outputs = [failure("TimeLimit", self._timed_out())]
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if errors:
            self._run_silently(FORGET_FAILURE)
        if kind(cell) == "test" and errors:
            cell.outputs = [o for o in cell.outputs if o.output_type != "error"] + [self._feedback(errors[-1])]
        return cell, resources

    def _timed_out(self):
        return f"this cell ran longer than {self.timeout} s, the time limit of a cell, and was stopped: zero for it"

    def _feedback(self, error):
        if error.ename in ("KeyboardInterrupt", "CellTimeoutError", "TimeLimit"):
            return failure("TimeLimit", self._timed_out())
        if error.ename == "KernelDied":
            return error
        return failure(error.ename, tidy(error.evalue))

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
    c.GradeOnExecute.memory_limit = int(limit)
    c.Autograde.autograde_preprocessors = [GradeOnExecute if pp is Execute else pp
                                           for pp in Autograde.class_traits()["autograde_preprocessors"].default()]
    c.ClearSolutions.code_stub = {"python": "raise NotImplementedError"}
    return c
