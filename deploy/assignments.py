"""The nbgrader course of the notebooks' exercises, generated from the notebooks and the worked solutions.

    python deploy/assignments.py [--root DIR]     write the course into DIR (default build/nbgrader/), then
                                                  run nbgrader's generate_assignment on every assignment

One assignment per notebook with exercises, named like it. Each exercise of the notebook (a code cell that calls a
checker of ``course_utils.checks``) becomes two nbgrader cells:

- an autograded answer cell: the notebook's stub, with the worked answer from ``solutions/<notebook>.py`` between
  nbgrader's solution markers (``generate_assignment`` gives students the stub back: ``raise NotImplementedError``);
- a locked autograder test cell worth ``POINTS`` that calls the same checker and fails unless it passed, so the
  checker's message ("[FAIL] ...: what is wrong") is the student's feedback.

The notebook's set-up cell comes first, locked, and the exercise's prompt (the markdown cell before it) above it.
Nothing is copied by hand: a new exercise in a notebook is a new graded pair the next time this runs.

>>> [e.function for e in exercises(NOTEBOOKS / "01_graph_lifecycle.ipynb")]
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

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS, SOLUTIONS = ROOT / "notebooks", ROOT / "solutions"
COURSE = ROOT / "build" / "nbgrader"
COURSE_ID = "autograd-memory-lab"
POINTS = 1                                                # each exercise
CHECKER_CALL = re.compile(r"^checks\.check_\w+\(", re.M)  # an exercise cell's last statement
STUB = re.compile(r"^(?P<indent>[ \t]+)raise NotImplementedError\b(?:\s*#\s*(?P<hint>.*))?$", re.M)
CONFIG = '''\
"""nbgrader's configuration of the Autograd Memory Lab course: written by deploy/assignments.py."""
import sys

sys.path.insert(0, {deploy!r})
import grading  # noqa: E402

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
grading.configure(c)
'''


@dataclasses.dataclass
class Exercise:
    function: str       # the function the learner writes
    prompt: str         # the markdown cell above the exercise
    context: list       # code cells between that prompt and the exercise (run as they are, locked)
    check: str          # the checker call
    solution: str       # the stub with the worked answer between nbgrader's solution markers

    def cells(self):
        test = f"result = {self.check}\nprint(result)\nassert result.passed, str(result)"
        return [nbformat.v4.new_markdown_cell(self.prompt),
                *(_graded(nbformat.v4.new_code_cell(source), f"context_{self.function}_{k}", locked=True)
                  for k, source in enumerate(self.context)),
                _graded(nbformat.v4.new_code_cell(self.solution), f"answer_{self.function}", solution=True),
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
        at = max(j for j in range(i) if cells[j].cell_type == "markdown")
        context = [c.source for c in cells[at + 1:i] if c.cell_type == "code"]
        found.append(Exercise(function, cells[at].source, context, check, solution))
    return found


def setup_cell(cells):
    """The notebook's set-up cell: the code cell that imports its checkers."""
    return next(c for c in cells if c.cell_type == "code" and re.search(r"\bas checks\b", c.source))


def assignment(notebook):
    """The nbgrader source notebook (worked answers inside solution markers) of ``notebook``, or None."""
    found = exercises(notebook)
    if not found:
        return None
    original = nbformat.read(notebook, as_version=4)
    title = next(c.source.splitlines()[0] for c in original.cells if c.cell_type == "markdown")
    intro = nbformat.v4.new_markdown_cell(
        f"{title} — graded exercises\n\nWrite each answer in its cell; the locked cell under it runs the course's "
        f"checker and scores {POINTS} point{'s' * (POINTS != 1)} when it passes. Its message says what to look at.")
    cells = [intro, _graded(nbformat.v4.new_code_cell(setup_cell(original.cells).source), "setup", locked=True)]
    for exercise in found:
        cells += exercise.cells()
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": original.metadata["kernelspec"],
                                                         "language_info": {"name": "python"}})
    return nb


def write_course(root=COURSE):
    """Write the course (nbgrader_config.py and source/<assignment>/<assignment>.ipynb); return the assignments."""
    root = pathlib.Path(root)
    shutil.rmtree(root / "source", ignore_errors=True)
    (root / "source").mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(CONFIG.format(deploy=str(ROOT / "deploy"), course_id=COURSE_ID))
    names = []
    for notebook in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        nb = assignment(notebook)
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
    parser.add_argument("--root", type=pathlib.Path, default=COURSE, help="the course's folder (default build/nbgrader)")
    args = parser.parse_args(argv)
    names = write_course(args.root)
    nbgrader(args.root, "generate_assignment", "*", "--force")
    print(f"[assignments] {len(names)} assignments in {args.root}: source/ (with the worked answers) and release/ "
          f"(for students): {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
