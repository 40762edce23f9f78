"""The nbgrader course of the notebooks' exercises: each assignment is a notebook of the learner's edition.

    python -m deploy.assignments [--root DIR]     write the course into DIR (default /srv/amlab/course/), then
                                                  run nbgrader's generate_assignment on every assignment

One assignment per notebook with exercises, named like it: the learner's edition of that notebook (``learner/``, no
speaker notes), whole, so that every prompt finds what it refers to, with each exercise (a code cell that calls a
checker of ``course_utils.checks``) made two nbgrader cells:

- an autograded answer cell: the notebook's stub, with the worked answer from ``solutions/<notebook>.py`` between
  nbgrader's solution markers (``generate_assignment`` gives students the stub back: ``raise NotImplementedError``);
- a locked autograder test cell worth ``POINTS`` that calls the same checker and fails unless it passed, so the
  checker's message ("[FAIL] ...: what is wrong") is the student's feedback. ``deploy/grading.py`` checks each
  answer again in a fresh Python, out of the student's reach.

The set-up cell (the one that imports the checkers) and the code cells between a prompt and its exercise are
locked; the prompts' links to the worked solutions are left out. Nothing is copied by hand: a new exercise in a
notebook is a new graded pair the next time this runs.

>>> [e.function for e in exercises(LEARNER / "01_graph_lifecycle.ipynb")]
['predict_saved', 'saved_growth']
"""
import argparse
import ast
import dataclasses
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import nbformat

from deploy import sizing

ROOT = pathlib.Path(__file__).resolve().parents[1]
LEARNER, SOLUTIONS = ROOT / "learner", ROOT / "solutions"
# The class's folder on one machine (deploy/jupyterhub_config.py): the course (the instructor's, 0700) and the exchange
CLASS = pathlib.Path(os.environ.get("AMLAB_CLASS_ROOT", "/srv/amlab"))
COURSE, EXCHANGE = CLASS / "course", CLASS / "exchange"
COURSE_ID = "autograd-memory-lab"
POINTS = 1                                                # each exercise
CHECKER_CALL = re.compile(r"^checks\.check_\w+\(", re.M)  # an exercise cell's last statement
STUB = re.compile(r"^(?P<indent>[ \t]+)raise NotImplementedError\b(?:\s*#\s*(?P<hint>.*))?$", re.M)
CONFIG = '''\
"""nbgrader's configuration of the Autograd Memory Lab course: written by python -m deploy.assignments."""
from deploy import grading

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
grading.configure(c)
'''


INTRO = """\
**This notebook is graded.** It is the lesson as you know it, with the exercises to hand in: write each answer in its
cell (the `raise NotImplementedError` stub); the locked cell under it runs the course's checker and scores {points}
point{s} when it passes. Save, then submit it from the *Assignments* tab (or `nbgrader submit`). Your copies in
`my_notebooks/` are for practice: they are never graded.

When it is graded, only the set-up cell, the locked cells, your answer cells and the checks run (not the lesson's
other cells), and each answer is checked again in a fresh Python that runs only the locked cells and the definitions
(`def`, `import`, constants) of your answer cell: an answer uses what the set-up cell imports and what its own cell
defines. A cell that runs longer than {timeout} s is stopped and scores zero."""


@dataclasses.dataclass
class Exercise:
    function: str       # the function the learner writes
    at: int             # the exercise's cell in the learner's notebook
    context: list       # the code cells between its prompt and it (their indices: locked)
    check: str          # the checker call
    solution: str       # the stub with the worked answer between nbgrader's solution markers

    def cells(self):
        test = f"result = {self.check}\nprint(result)\nassert result.passed, str(result)"
        return [_graded(nbformat.v4.new_code_cell(self.solution), f"answer_{self.function}", solution=True),
                _graded(nbformat.v4.new_code_cell(test), f"test_{self.function}", grade=True, locked=True)]


def _graded(cell, grade_id, solution=False, grade=False, locked=False):
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked,
                                 "schema_version": 3, **({"points": POINTS} if grade else {})}
    return cell


def worked_answer(solutions, names):
    """The body of the first function of the file ``solutions`` named in ``names``, without its docstring, after the
    imports of that file that it uses (as local imports)."""
    source = solutions.read_text()
    tree = ast.parse(source)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    name = next((n for n in names if n in functions), None)
    if name is None:
        raise SystemExit(f"{solutions.relative_to(ROOT)} has no worked answer for {names[0]}: add one named {names[0]}")
    node, lines = functions[name], source.splitlines()
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    imports = [ast.get_source_segment(source, i) for i in tree.body if isinstance(i, (ast.Import, ast.ImportFrom))
               and any((a.asname or a.name).split(".")[0] in used for a in i.names)]
    code = "\n".join(lines[body[0].lineno - 1:node.end_lineno])
    return "\n".join(imports + [textwrap.dedent(code)])


def exercises(notebook):
    """The exercises of ``notebook``, in order."""
    cells = nbformat.read(notebook, as_version=4).cells
    found = []
    for i, cell in enumerate(cells):
        call = CHECKER_CALL.search(cell.source) if cell.cell_type == "code" else None
        if call is None:
            continue
        answer, check = cell.source[:call.start()].rstrip(), cell.source[call.start():].strip()
        function = re.findall(r"^def (\w+)\(", answer, re.M)[-1]
        stub = STUB.search(answer)
        if stub is None:
            raise SystemExit(f"{notebook.name}: the exercise {function} has no `raise NotImplementedError` stub to grade")
        names = [function, *re.findall(r'"(\w+)"', check)]
        indent, worked = stub["indent"], worked_answer(SOLUTIONS / f"{notebook.stem}.py", names)
        solution = (answer[:stub.start()] + (f"{indent}# {stub['hint']}\n" if stub["hint"] else "")
                    + f"{indent}### BEGIN SOLUTION\n" + textwrap.indent(worked, indent)
                    + f"\n{indent}### END SOLUTION" + answer[stub.end():])
        prompt = max(j for j in range(i) if cells[j].cell_type == "markdown")
        context = [j for j in range(prompt + 1, i) if cells[j].cell_type == "code"]
        found.append(Exercise(function, i, context, check, solution))
    return found


def without_solution_links(markdown):
    """``markdown`` without its paragraphs that point at the worked solutions (``solutions/``).

    >>> without_solution_links("Write it.\\n\\n*Worked solution*: [x](../solutions/01.py).")
    'Write it.'
    """
    return "\n\n".join(p for p in markdown.split("\n\n") if "solutions/" not in p).strip()


def is_setup(cell):
    """The notebook's set-up cell: the code cell that imports its checkers."""
    return cell.cell_type == "code" and re.search(r"\bas checks\b", cell.source) is not None


def assignment(notebook, timeout=60):
    """The nbgrader source notebook of the learner's ``notebook`` (worked answers inside solution markers), or None.

    ``timeout``: a cell's time limit at grading, which the notebook's introduction states."""
    found = {e.at: e for e in exercises(notebook)}
    if not found:
        return None
    original = nbformat.read(notebook, as_version=4)
    locked = {j for e in found.values() for j in e.context}
    cells = []
    for i, cell in enumerate(original.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        if i in found:
            cells += found[i].cells()
        elif cell.cell_type == "markdown":
            cell.source = without_solution_links(cell.source)
            cells.append(cell)
            if not any(c.cell_type == "markdown" for c in cells[:-1]):  # under the title
                cells.append(nbformat.v4.new_markdown_cell(INTRO.format(points=POINTS, s="s" * (POINTS != 1),
                                                                        timeout=timeout)))
        elif is_setup(cell):
            cells.append(_graded(cell, "setup", locked=True))
        elif i in locked:
            cells.append(_graded(cell, f"context_{i}", locked=True))
        else:
            cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": original.metadata["kernelspec"],
                                                           "language_info": {"name": "python"}})


def write_course(root=COURSE, exchange=EXCHANGE):
    """Write the course (nbgrader_config.py and source/<assignment>/<assignment>.ipynb); return the assignments.

    ``exchange``: nbgrader's exchange, where ``nbgrader release_assignment`` puts what students fetch."""
    root = pathlib.Path(root)
    shutil.rmtree(root / "source", ignore_errors=True)
    (root / "source").mkdir(parents=True)
    root.chmod(0o700)  # the worked answers, the submissions, the gradebook: the instructor's alone
    (root / "nbgrader_config.py").write_text(CONFIG.format(course_id=COURSE_ID,
                                                                 exchange=str(exchange)))
    names, timeout = [], int(sizing.Sizing.measured().budget_seconds)
    for notebook in sorted(LEARNER.glob("[0-9][0-9]_*.ipynb")):
        nb = assignment(notebook, timeout)
        if nb is not None:
            (root / "source" / notebook.stem).mkdir()
            nbformat.write(nb, root / "source" / notebook.stem / notebook.name)
            names.append(notebook.stem)
    return names


def nbgrader(root, *args):
    """Run nbgrader's command line in the course ``root``."""
    # nbgrader runs `alembic` (its database's migrations) from PATH: this environment's, active or not
    env = dict(os.environ, PATH=os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ.get("PATH", "")]))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"nbgrader {' '.join(args)} failed in {root}:\n{done.stdout}{done.stderr}")
    return done


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=pathlib.Path, default=COURSE, help=f"the course's folder (default {COURSE})")
    parser.add_argument("--exchange", default=EXCHANGE, help=f"nbgrader's exchange (default {EXCHANGE})")
    args = parser.parse_args(argv)
    names = write_course(args.root, args.exchange)
    nbgrader(args.root, "generate_assignment", "*", "--force")
    print(f"[assignments] {len(names)} assignments in {args.root}: source/ (with the worked answers) and release/ "
          f"(for students): {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
