"""Learner times from one transparent reading model: each notebook's and each section's minutes.

    python -m tools.reading_model               print each notebook's estimate, part by part, and the calibration
    python -m tools.reading_model --calibrate   re-derive data/instructor_calibration.json from git history

The Time lines it writes into the notebooks' title cells are a target of `python -m tools build`.

**The reading model.** Nobody timed today's notebooks, so the times are estimated from what a notebook asks of a
careful learner, with every rate stated here:

    minutes = prose words / PROSE_WORDS_PER_MINUTE
            + code lines x SECONDS_PER_CODE_LINE / 60
            + predictions x MINUTES_PER_PREDICTION
            + exercises x MINUTES_PER_EXERCISE + lines of their worked solutions x MINUTES_PER_SOLUTION_LINE
            + explorers x MINUTES_PER_EXPLORER
            + the notebook's own run time (data/notebooks_cpu.json, written by benchmarks/notebooks.py --json)

- Prose, 90 words a minute: adults read non-fiction silently at about 238 words a minute (Brysbaert 2019, a
  meta-analysis), and read to remember at about 138 (Carver 1992, "memorizing" gear). This prose is denser than
  that (inline code, byte counts, formulas) and every claim is checked against a printed number: about 2/3 of it.
  Speaker-notes cells (``**Speaker notes.**``) are for the lecturer: the learner's edition (tools/editions.py) has
  none, so they are not counted, except for a reviewer who read them (the calibration below). Nor is the fast
  path's signpost below 00's and 05's titles (a route, not content), nor the Time line's list of sections.
- Code, 5 s a line: every non-blank line of every code cell but the Colab setup cell, read with what it prints.
  Code review that hunts defects works best below 400-500 lines an hour (7-9 s a line: Cohen 2006, the SmartBear
  study at Cisco); a learner follows the code rather than verifying each line, and much of it formats a printout
  that is on screen.
- A prediction, 1 min: think, type a guess into ``cu.predict(...)``, run, read the reveal. A ``**Predict:**`` prompt
  that no ``cu.predict(`` answers (notebook 07, and every notebook before predictions were code) counts as one.
- An exercise, 5 min plus 1 min per line of its worked solution (``solutions/<notebook>.py``, function bodies without
  docstrings): plan it, write it, run the checker, read its verdict, fix. 07's one-line fixes stay short this way.
- An explorer panel, 3 min: a handful of settings, each re-measured in under a second (benchmarks/explorers.py).

**Calibrated** against the only real timings there are: a reviewer timed careful read-throughs of notebook
01 at 65-75 min and of 05 at 100-120 min at commit 132a941 (05 was later split into 05 and 06), and another read
05 at commit d9183a3, speaker notes included (1,427 words of them), in 95-110 min. Their features are in data/instructor_calibration.json; the rates above put all three inside
their ranges (the tool with no option prints by how much). At 100 words a minute the third fell 3 min short (92.1),
so prose went to 90. Three timings cannot pin down six rates: the rates come from the reasoning above, and the
calibration shows they agree with the reviewers.

**Per section.** The same model runs on each ``##`` section's cells (an exercise with the lines of the solution
functions its cell defines; the notebook's run time shared out by code lines): the title cell's Time line lists
them, and the PINN fast path (tools/fast_path.py) adds up the sections it takes.

>>> estimate = Estimate(Features(prose_words=1000, code_lines=120, predictions=3, exercises=1, solution_lines=4,
...                              explorers=1), run_seconds=30)
>>> estimate.total, estimate.rounded
(36.6, 35)
"""
import argparse
import ast
import dataclasses
import json
import re
import subprocess
import sys

import nbformat

from tools.course import ROOT, load, notebook_text, read

PROSE_WORDS_PER_MINUTE = 90
SECONDS_PER_CODE_LINE = 5
MINUTES_PER_PREDICTION = 1
MINUTES_PER_EXERCISE = 5
MINUTES_PER_SOLUTION_LINE = 1
MINUTES_PER_EXPLORER = 3
ROUND_TO = 5

RUN_TIMES = "data/notebooks_cpu.json"
CALIBRATION = "data/instructor_calibration.json"
NOTES_MARK = "**Speaker notes.**"
SETUP_MARK = "# Setup for Google Colab"
TIME_LINE = re.compile(r"\*\*Time:\*\* about (\d+) minutes(?: \(by section: [^)\n]*\))?\.")
PROMPT = re.compile(r"\*\*Predict(?::\*\*|\*\*)")
HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*$", re.M)
CHECKER_CALL = re.compile(r"\bcheck_\w+\(")
FAST_PATH_MARK = "<!-- fast-path: written by `make generate` -->"  # its cell is a route, not content

# The timed read-throughs: {label: (notebook, commit it was read at, the reviewer's minutes, its run time in seconds,
# speaker notes read)}. The run times at 132a941: benchmarks/notebooks.py at that commit, the machine alone; at
# d9183a3: data/notebooks_cpu.json at that commit. The notebooks need
# the course_utils of their day, so they are not re-run here.
REVIEWED = {
    "01_graph_lifecycle@132a941": ("01_graph_lifecycle", "132a9414b6b0681e0ac81e6a9b4453883c21d8f3", (65, 75), 6.2, False),
    "05_laplacian_pinn@132a941": ("05_laplacian_pinn", "132a9414b6b0681e0ac81e6a9b4453883c21d8f3", (100, 120), 26.5, False),
    "05_laplacian_pinn@d9183a3": ("05_laplacian_pinn", "d9183a33f0458a136448c78bf19fce0533d8b3f0", (95, 110), 51.1, True),
}


@dataclasses.dataclass(frozen=True)
class Features:
    """What a notebook asks of a careful learner, counted from its source (see the module docstring)."""
    prose_words: int
    code_lines: int
    predictions: int
    exercises: int
    solution_lines: int
    explorers: int
    notes_words: int = 0  # speaker notes: counted only for a reviewer who read them


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The model's minutes for one notebook, part by part."""
    features: Features
    run_seconds: float

    @property
    def parts(self):
        """``{part: (what was counted, its rate, minutes)}`` in the order of the formula."""
        f = self.features
        return {
            "prose": (f"{f.prose_words:,} words", f"{PROSE_WORDS_PER_MINUTE} words/min",
                      f.prose_words / PROSE_WORDS_PER_MINUTE),
            "code": (f"{f.code_lines:,} lines", f"{SECONDS_PER_CODE_LINE} s/line",
                     f.code_lines * SECONDS_PER_CODE_LINE / 60),
            "predictions": (f"{f.predictions}", f"{MINUTES_PER_PREDICTION} min each",
                            f.predictions * MINUTES_PER_PREDICTION),
            "exercises": (f"{f.exercises}, solutions {f.solution_lines} lines",
                          f"{MINUTES_PER_EXERCISE} min each + {MINUTES_PER_SOLUTION_LINE} min/line",
                          f.exercises * MINUTES_PER_EXERCISE + f.solution_lines * MINUTES_PER_SOLUTION_LINE),
            "explorers": (f"{f.explorers}", f"{MINUTES_PER_EXPLORER} min each", f.explorers * MINUTES_PER_EXPLORER),
            "running": (f"{self.run_seconds:.1f} s", "measured", self.run_seconds / 60),
            **({"speaker notes": (f"{f.notes_words:,} words", f"{PROSE_WORDS_PER_MINUTE} words/min",
                                  f.notes_words / PROSE_WORDS_PER_MINUTE)} if f.notes_words else {}),
        }

    @property
    def total(self):
        return round(sum(minutes for _, _, minutes in self.parts.values()), 1)

    @property
    def rounded(self):
        """The total to the nearest ROUND_TO minutes (halves up), never below ROUND_TO."""
        return max(ROUND_TO, int(self.total / ROUND_TO + 0.5) * ROUND_TO)


# --- counting ---------------------------------------------------------------------------------------------------

def is_notes(cell):
    return cell.cell_type == "markdown" and cell.source.startswith(NOTES_MARK)


def prose_words(markdown):
    """Words a reader reads: whitespace-separated tokens with a letter or digit, link targets and comments dropped.

    >>> prose_words("**Predict:** see [01 · Graph](01_graph_lifecycle.ipynb) | --- |")
    4
    """
    markdown = TIME_LINE.sub("Time: about N minutes.", markdown)  # a Time line reads the same, by-section list or not
    markdown = re.sub(r"<!--.*?-->", " ", re.sub(r"\]\([^)]*\)", "]", markdown), flags=re.S)
    return sum(1 for token in markdown.split() if re.search(r"[^\W_]", token))


def predictions(cells):
    """``cu.predict(`` calls, plus each ``**Predict:**`` prompt that no call answers before the next prompt."""
    count = unanswered = 0
    for cell in cells:
        if cell.cell_type == "markdown" and not is_notes(cell) and PROMPT.search(cell.source):
            count += unanswered
            unanswered = len(PROMPT.findall(cell.source))
        elif cell.cell_type == "code" and "cu.predict(" in cell.source:
            count += cell.source.count("cu.predict(")
            unanswered = 0
    return count + unanswered


def solution_lines(source):
    """Non-blank lines in the bodies of a solutions module's functions (docstrings and ``run_checks`` left out).

    >>> solution_lines('def a():\\n    \\"\\"\\"Doc.\\"\\"\\"\\n    return 1\\n\\n\\ndef run_checks():\\n    return [a()]\\n')
    1
    """
    if not source:
        return 0
    lines, total = source.splitlines(), 0
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name != "run_checks":
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            if body:
                total += sum(1 for line in lines[body[0].lineno - 1:node.end_lineno] if line.strip())
    return total


def features(notebook, solutions_source="", with_notes=False):
    """Count a notebook's :class:`Features` (``notebook`` as nbformat returns it); ``with_notes``: count the
    speaker notes' words too (a reader of the lecture edition)."""
    return cell_features(notebook.cells, solutions_source, with_notes)


def cell_features(cells, solutions_source="", with_notes=False):
    """:func:`features` of some of a notebook's cells; ``solutions_source``: the solutions of their exercises."""
    code = [c for c in cells if c.cell_type == "code" and not c.source.startswith(SETUP_MARK)]
    return Features(
        prose_words=sum(prose_words(c.source) for c in cells
                        if c.cell_type == "markdown" and not is_notes(c) and not c.source.startswith(FAST_PATH_MARK)),
        code_lines=sum(1 for c in code for line in c.source.splitlines() if line.strip()),
        predictions=predictions(cells),
        exercises=sum(1 for c in code if "raise NotImplementedError" in c.source and CHECKER_CALL.search(c.source)),
        solution_lines=solution_lines(solutions_source),
        explorers=sum(1 for c in code if "cu.explorers." in c.source and "assert" not in c.source),
        notes_words=sum(prose_words(c.source) for c in cells if is_notes(c)) if with_notes else 0,
    )


def solution_functions(source):
    """``{function name: lines}`` of a solutions module, counted as :func:`solution_lines` counts them."""
    if not source:
        return {}
    return {node.name: solution_lines(ast.get_source_segment(source, node))
            for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name != "run_checks"}


def spans(cells):
    """``[(level, title, first cell, end)]``: every heading of a notebook (speaker notes aside), each running to the
    next heading of its level or above."""
    found = []
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and not is_notes(cell):
            found += [(len(m[1]), m[2], index) for m in HEADING.finditer(cell.source)][:1]
    return [(level, title, start, next((s for l, _, s in found[i + 1:] if l <= level), len(cells)))
            for i, (level, title, start) in enumerate(found)]


def span_estimate(cells, start, end, solutions_source, run_seconds):
    """The model's :class:`Estimate` for ``cells[start:end]``: the exercises with the solution functions their cells
    define (helpers go with the notebook's last exercise), the run time shared out by code lines."""
    part = cells[start:end]
    whole = cell_features(cells, solutions_source)
    found = cell_features(part, solutions_source)
    functions = solution_functions(solutions_source)
    exercise_cells = [i for i, c in enumerate(cells) if c.cell_type == "code" and "raise NotImplementedError" in c.source
                      and CHECKER_CALL.search(c.source)]
    lines = sum(n for i in exercise_cells if start <= i < end
                for name, n in functions.items() if re.search(rf"\bdef {name}\(", cells[i].source))
    if exercise_cells and start <= exercise_cells[-1] < end:
        matched = sum(n for i in exercise_cells for name, n in functions.items()
                      if re.search(rf"\bdef {name}\(", cells[i].source))
        lines += whole.solution_lines - matched
    share = found.code_lines / whole.code_lines if whole.code_lines else 0
    return Estimate(dataclasses.replace(found, solution_lines=lines), run_seconds * share)


def section_estimates(path, root=ROOT, measured=None):
    """``[(label, Estimate)]``: the cells before the first ``##`` heading ("start"), then each ``##`` section."""
    measured = measured or run_times(root)["notebooks"]
    cells = read(path).cells
    solution = root / "solutions" / f"{path.stem}.py"
    source = solution.read_text() if solution.exists() else ""
    seconds = measured[path.stem]["seconds"]
    sections = [(title, start, end) for level, title, start, end in spans(cells) if level == 2]
    first = sections[0][1] if sections else len(cells)
    return [(label, span_estimate(cells, start, end, source, seconds))
            for label, start, end in [("intro", 0, first), *sections]]


def short_label(title):
    """A section's name in a Time line: its number or first words (``3 · Foo`` gives ``§3``).

    >>> short_label("Part 1 · The leak as it is usually reported"), short_label("3 · `backward()` frees")
    ('Part 1', '§3')
    """
    label = re.split(r" · | — |: ", title)[0].replace("`", "").replace("(", "").replace(")", "").strip()
    return f"§{label}" if label.isdigit() else label


def time_line(path, root=ROOT, measured=None):
    """The title cell's Time line: the notebook's minutes (rounded as :attr:`Estimate.rounded`) and each section's."""
    sections = section_estimates(path, root, measured)
    parts = " · ".join(f"{short_label(label)} {max(1, round(result.total))}" for label, result in sections)
    return f"**Time:** about {estimate(path, root, measured).rounded} minutes (by section: {parts})."


def run_times(root=ROOT):
    path = root / RUN_TIMES
    if not path.exists():
        raise SystemExit(f"{RUN_TIMES} is missing: run `python benchmarks/notebooks.py --json {RUN_TIMES}` "
                         "(a few minutes)")
    return json.loads(path.read_text())


def estimate(path, root=ROOT, measured=None):
    """The :class:`Estimate` for the notebook at ``path``, with its run time from data/notebooks_cpu.json."""
    measured = measured or run_times(root)["notebooks"]
    if path.stem not in measured:
        raise SystemExit(f"{RUN_TIMES} has no run time for {path.stem}: run "
                         f"`python benchmarks/notebooks.py --json {RUN_TIMES}` again")
    solution = root / "solutions" / f"{path.stem}.py"
    found = features(read(path), solution.read_text() if solution.exists() else "")
    return Estimate(found, measured[path.stem]["seconds"])


def headings(path):
    """Every heading's text in a notebook (``## 3 · Foo`` gives ``3 · Foo``), speaker notes left out."""
    notebook = read(path)
    return [m[2] for c in notebook.cells if c.cell_type == "markdown" and not is_notes(c)
            for m in HEADING.finditer(c.source)]


def title_cell(notebook, name):
    """The index of the notebook's title cell (the first markdown cell that starts with ``# ``)."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown" and cell.source.startswith("# "):
            if len(TIME_LINE.findall(cell.source)) != 1:
                raise SystemExit(f"{name}: its title cell should hold exactly one '**Time:** about N minutes.' line")
            return index
    raise SystemExit(f"{name}: no title cell (a markdown cell starting with '# ')")


def calibration(root=ROOT):
    """``{notebook: (Estimate of the reviewed version, (reviewer's low, high))}`` from data/instructor_calibration.json."""
    record = json.loads((root / CALIBRATION).read_text())
    return {label: (Estimate(Features(**entry["features"]), entry["run_seconds"]), tuple(entry["reviewer_minutes"]))
            for label, entry in record["read_throughs"].items()}


def updated_title(path, line):
    """``(notebook, index of its title cell, new title source)`` with ``line`` as its Time line."""
    notebook = read(path)
    index = title_cell(notebook, path.name)
    source = TIME_LINE.sub(lambda _: line, notebook.cells[index].source)
    return notebook, index, source


def time_lines(course):
    """The Time-lines target: ``{notebook: its text with the reading model's Time line}``."""
    measured = run_times(course.root)["notebooks"]
    found = {}
    for path in course.paths:
        notebook, index, source = updated_title(path, time_line(path, course.root, measured))
        notebook.cells[index].source = source
        found[path] = notebook_text(notebook)
    return found


# --- calibration ------------------------------------------------------------------------------------------------

def _git_show(root, commit, path):
    shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=root, capture_output=True, text=True)
    if shown.returncode:
        raise SystemExit(f"git cannot show {commit[:7]}:{path} ({shown.stderr.strip()}); in a shallow clone run "
                         "`git fetch --unshallow` first")
    return shown.stdout


def calibrate(root=ROOT):
    """Count the reviewed versions' features from git history and write data/instructor_calibration.json."""
    read_throughs = {}
    for label, (name, commit, minutes, run_seconds, with_notes) in REVIEWED.items():
        found = features(nbformat.reads(_git_show(root, commit, f"notebooks/{name}.ipynb"), as_version=4),
                         _git_show(root, commit, f"solutions/{name}.py"), with_notes=with_notes)
        read_throughs[label] = {"notebook": name, "commit": commit, "reviewer_minutes": list(minutes),
                                "speaker_notes_read": with_notes, "features": dataclasses.asdict(found),
                                "run_seconds": run_seconds}
    record = {
        "what": "The notebooks reviewers timed, as counted by the reading model of tools/reading_model.py",
        "reviewer_minutes": "a reviewer's careful read-through took 65-75 min (01) and 100-120 min (05) at commit "
                            "132a941; another's took 95-110 min (05) at commit d9183a3, its speaker notes read too",
        "features": "counted from git show <commit>:notebooks/<name>.ipynb and :solutions/<name>.py",
        "run_seconds": "132a941: benchmarks/notebooks.py at that commit, the 2-core machine alone; d9183a3: "
                       "data/notebooks_cpu.json at that commit",
        "derived_by": "python -m tools.reading_model --calibrate",
        "read_throughs": read_throughs,
    }
    (root / CALIBRATION).write_text(json.dumps(record, indent=2) + "\n")
    return record


# --- command line -----------------------------------------------------------------------------------------------

def report(root=ROOT):
    measured = run_times(root)["notebooks"]
    print(f"{'notebook':<32}" + "".join(f"{part:>12}" for part in Estimate(Features(0, 0, 0, 0, 0, 0), 0).parts)
          + f"{'total':>8}{'rounded':>9}")
    for path in load(root).paths:
        result = estimate(path, root, measured)
        print(f"{path.stem:<32}" + "".join(f"{m:12.1f}" for _, _, m in result.parts.values())
              + f"{result.total:8.1f}{result.rounded:9d}")
    for label, (result, (low, high)) in calibration(root).items():
        verdict = "inside" if low <= result.total <= high else "OUTSIDE"
        print(f"calibration: {label}{' (speaker notes read)' if REVIEWED[label][4] else ''}: "
              f"model {result.total:.1f} min, reviewer {low}-{high}: {verdict}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrate", action="store_true", help=f"re-derive {CALIBRATION} from git history")
    if parser.parse_args(argv).calibrate:
        calibrate()
    report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
