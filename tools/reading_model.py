"""Learner times from one transparent reading model: each notebook's and each section's minutes.

    python -m tools.reading_model               print each notebook's estimate, part by part, and the calibration
    python -m tools.reading_model --calibrate   recount data/instructor_calibration.json's features from git history

The Time lines it writes into the notebooks' title cells are a target of `python -m tools build`.

**The reading model.** The times are estimated from what a notebook asks of a careful learner, with every rate
stated here, and the rates are fitted to timed read-throughs (below):

    minutes = prose words / PROSE_WORDS_PER_MINUTE
            + code lines x SECONDS_PER_CODE_LINE / 60
            + predictions x MINUTES_PER_PREDICTION
            + exercises x MINUTES_PER_EXERCISE + lines of their worked solutions x MINUTES_PER_SOLUTION_LINE
            + explorers x MINUTES_PER_EXPLORER
            + places a route's reader has to find x MINUTES_PER_JUMP (0 for a notebook read in order)
            + the notebook's own run time (data/notebooks_cpu.json, recorded by `make measure`: tools/run_times.py)

The reasoning behind each rate (:data:`REASONED`), before the fit:

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
- A jump, 5 min: a route (the fast path, tools/fast_path.py) enters a notebook mid-way or skips ahead; its reader
  finds the section and reads back for what it builds on. The cells a route's cells need are counted as read
  (tools/routes.py).

**Calibrated** against timed read-throughs (data/instructor_calibration.json: what each read, at which commit, its
timed range and who timed it; ``--calibrate`` recounts their features from git history): a reviewer's careful
read-throughs of 01 (65-75 min) and 05 (100-120 min) at commit 132a941, another's of 05 with its speaker notes (95-110
min) at d9183a3, and a learner's at 0c4f881: the fast path as it was then shown, followed honestly (50-70 min; 95-130
with the sections of 01 and 02 it assumes), and the whole course (about 10-12 h). The reasoned rates put the course at
582 min, short of 600, and that fast path at 32 min before its jumps: :func:`fit` searches :data:`RATE_GRID` for the
rates nearest the reasoned ones that put all six inside their ranges, and the rates above are its answer (prose 75
words a minute, code 4.5 s a line, 6 min an exercise and 0.75 min a line of its solution, 6 min a jump;
tests/test_reading_model.py holds them to it). Six timings of overlapping material cannot pin seven rates: two of the
six land within a minute of their range's edge (01 at its top, the course at its bottom), so a new timed read-through
is worth adding to the record.

**Per section.** The same model runs on each ``##`` section's cells (an exercise with the lines of the solution
functions its cell defines; the notebook's run time shared out by code lines): the title cell's Time line lists
them, and the PINN fast path (tools/fast_path.py) adds up the sections it takes.

>>> estimate = Estimate(Features(prose_words=1000, code_lines=120, predictions=3, exercises=1, solution_lines=4,
...                              explorers=1), run_seconds=30)
>>> estimate.total, estimate.rounded
(37.8, 40)
"""
import argparse
import ast
import dataclasses
import json
import re
import subprocess
import sys
from typing import NamedTuple

import nbformat

from tools import run_times
from tools.course import (
    CHECKER_CALL,
    PROMPT,
    ROOT,
    ROUTE_CELL,
    SETUP_MARK,
    TIME_LINE,
    is_notes,
    load,
    notebook_text,
    read,
    spans,
    title_cell,
)

PROSE_WORDS_PER_MINUTE = 75
SECONDS_PER_CODE_LINE = 4.5
MINUTES_PER_PREDICTION = 1
MINUTES_PER_EXERCISE = 6
MINUTES_PER_SOLUTION_LINE = 0.75
MINUTES_PER_EXPLORER = 3
MINUTES_PER_JUMP = 6
# The reasoned rates (the module docstring says why) and the grid that :func:`fit` searches around them.
REASONED = {"PROSE_WORDS_PER_MINUTE": 90, "SECONDS_PER_CODE_LINE": 5, "MINUTES_PER_PREDICTION": 1,
            "MINUTES_PER_EXERCISE": 5, "MINUTES_PER_SOLUTION_LINE": 1, "MINUTES_PER_EXPLORER": 3, "MINUTES_PER_JUMP": 5}
RATE_GRID = {"PROSE_WORDS_PER_MINUTE": tuple(range(60, 125, 5)), "SECONDS_PER_CODE_LINE": (3, 3.5, 4, 4.5, 5, 5.5, 6, 7, 8),
             "MINUTES_PER_PREDICTION": (0.5, 1, 1.5, 2, 2.5, 3), "MINUTES_PER_EXERCISE": (3, 4, 5, 6, 7, 8, 10),
             "MINUTES_PER_SOLUTION_LINE": (0.5, 0.75, 1, 1.25, 1.5), "MINUTES_PER_EXPLORER": (2, 3, 4, 5, 6, 8),
             "MINUTES_PER_JUMP": tuple(range(1, 16))}
ROUND_TO = 5

CALIBRATION = "data/instructor_calibration.json"

class ReadThrough(NamedTuple):
    """A timed read-through: the ``commit`` read, the ``minutes`` it took (low, high), what was ``read``
    (``{notebook: None}`` for all of it, or the headings of the sections read, in order: a route, read with the cells
    its cells need, tools/routes.py), its run time in seconds (None: data/notebooks_cpu.json at that commit, shared out
    by code lines), whether speaker notes were read, and ``who`` timed it."""
    commit: str
    minutes: tuple
    read: dict
    run_seconds: float | None = None
    notes: bool = False
    who: str = "a reviewer's careful read-through"


MEASURED_THEN = "measured then"  # a read-through's run_seconds_from: its figure as measured at the time, kept as is


def read_throughs(root=ROOT):
    """``{label: ReadThrough}``: the timed read-throughs as data/instructor_calibration.json records them (each with
    the commit read, its timed range and who timed it)."""
    record = json.loads((root / CALIBRATION).read_text())["read_throughs"]
    return {label: ReadThrough(entry["commit"], tuple(entry["timed_minutes"]), entry["read"],
                               entry["run_seconds"] if entry["run_seconds_from"] == MEASURED_THEN else None,
                               entry["speaker_notes_read"], entry["timed_by"])
            for label, entry in record.items()}


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
    jumps: int = 0        # places a reader of a route has to find (tools/routes.py): 0 for a notebook read in order


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
            **({"finding your place": (f"{f.jumps}", f"{MINUTES_PER_JUMP} min each", f.jumps * MINUTES_PER_JUMP)}
               if f.jumps else {}),
        }

    @property
    def total(self):
        return round(sum(minutes for _, _, minutes in self.parts.values()), 1)

    @property
    def rounded(self):
        """The total to the nearest ROUND_TO minutes (halves up), never below ROUND_TO."""
        return max(ROUND_TO, int(self.total / ROUND_TO + 0.5) * ROUND_TO)


# --- counting ---------------------------------------------------------------------------------------------------

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
                        if c.cell_type == "markdown" and not is_notes(c) and not c.source.startswith(ROUTE_CELL)),
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
    measured = measured or run_times.load(root)
    cells = read(path).cells
    solution = root / "solutions" / f"{path.stem}.py"
    source = solution.read_text() if solution.exists() else ""
    seconds = run_times.seconds(measured, path.stem)
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


def estimate(path, root=ROOT, measured=None):
    """The :class:`Estimate` for the notebook at ``path``, with its run time from data/notebooks_cpu.json."""
    measured = measured or run_times.load(root)
    solution = root / "solutions" / f"{path.stem}.py"
    found = features(read(path), solution.read_text() if solution.exists() else "")
    return Estimate(found, run_times.seconds(measured, path.stem))


def calibration(root=ROOT):
    """``{label: (Estimate of what was read, (timed low, high))}`` from data/instructor_calibration.json."""
    record = json.loads((root / CALIBRATION).read_text())
    return {label: (Estimate(Features(**entry["features"]), entry["run_seconds"]), tuple(entry["timed_minutes"]))
            for label, entry in record["read_throughs"].items()}


def updated_title(path, line):
    """``(notebook, index of its title cell, new title source)`` with ``line`` as its Time line."""
    notebook = read(path)
    index = title_cell(notebook, path.name)
    source = TIME_LINE.sub(lambda _: line, notebook.cells[index].source)
    return notebook, index, source


def time_lines(course):
    """The Time-lines target: ``{notebook: its text with the reading model's Time line}``."""
    measured = run_times.load(course.root)
    found = {}
    for path in course.paths:
        notebook, index, source = updated_title(path, time_line(path, course.root, measured))
        notebook.cells[index].source = source
        found[path] = notebook_text(notebook)
    return found


# --- calibration ------------------------------------------------------------------------------------------------

def _git_show(root, commit, path, missing_ok=False):
    """A file as it was at ``commit``; ``missing_ok``: "" for a file that commit did not have (00 has no solutions)."""
    shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=root, capture_output=True, text=True)
    if shown.returncode and missing_ok and re.search(r"does not exist in|exists on disk, but not in", shown.stderr):
        return ""
    if shown.returncode:
        raise SystemExit(f"git cannot show {commit[:7]}:{path} ({shown.stderr.strip()}); in a shallow clone run "
                         "`git fetch --unshallow` first")
    return shown.stdout


def read_through_features(through, root=ROOT):
    """``(Features, run seconds)`` of a timed read-through, counted from git history: a whole notebook as it is, a
    route as its sections and the cells they need (tools/routes.py), with the places its reader had to find."""
    from tools.routes import closure, jumps

    then = None if through.run_seconds is not None else json.loads(_git_show(root, through.commit, run_times.RECORD))["notebooks"]
    parts, ranges, seconds = [], [], 0.0
    for name, headings in through.read.items():
        cells = nbformat.reads(_git_show(root, through.commit, f"notebooks/{name}.ipynb"), as_version=4).cells
        solution = _git_show(root, through.commit, f"solutions/{name}.py", missing_ok=True)
        whole = cell_features(cells, solution, with_notes=through.notes)
        if headings is None:
            part = whole
            ranges.append((name, 0, len(cells)))
        else:
            chosen = set()
            for heading in headings:
                (start, end), = [(start, end) for _, title, start, end in spans(cells) if title.startswith(heading)]
                chosen.update(range(start, end))
                ranges.append((name, start, end))
            part = cell_features([cells[i] for i in closure(cells, sorted(chosen))])
        parts.append(part)
        seconds += then[name]["seconds"] * part.code_lines / whole.code_lines if then else 0
    total = Features(*(sum(getattr(part, field.name) for part in parts) for field in dataclasses.fields(Features)))
    return dataclasses.replace(total, jumps=jumps(ranges)), through.run_seconds if then is None else round(seconds, 1)


def calibrate(root=ROOT):
    """Recount the timed read-throughs' features (and their run times not measured then) from git history, into
    data/instructor_calibration.json."""
    record = json.loads((root / CALIBRATION).read_text())
    for label, through in read_throughs(root).items():
        found, seconds = read_through_features(through, root)
        record["read_throughs"][label].update(features=dataclasses.asdict(found), run_seconds=seconds)
    (root / CALIBRATION).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return record


def fit(root=ROOT):
    """The rates of :data:`RATE_GRID` nearest the reasoned ones (:data:`REASONED`: least squares of the logarithms of
    their ratios) that put every timed read-through of data/instructor_calibration.json inside its range; None if no
    rates on the grid do."""
    import numpy as np

    names = list(RATE_GRID)
    grids = np.meshgrid(*(np.asarray(RATE_GRID[name], dtype=float) for name in names), indexing="ij", sparse=True)
    rate = dict(zip(names, grids))
    inside = True
    for estimate, (low, high) in calibration(root).values():
        f = estimate.features
        minutes = ((f.prose_words + f.notes_words) / rate["PROSE_WORDS_PER_MINUTE"]
                   + f.code_lines * rate["SECONDS_PER_CODE_LINE"] / 60 + f.predictions * rate["MINUTES_PER_PREDICTION"]
                   + f.exercises * rate["MINUTES_PER_EXERCISE"] + f.solution_lines * rate["MINUTES_PER_SOLUTION_LINE"]
                   + f.explorers * rate["MINUTES_PER_EXPLORER"] + f.jumps * rate["MINUTES_PER_JUMP"]
                   + estimate.run_seconds / 60)
        inside = inside & (minutes >= low) & (minutes <= high)
    distance = sum(np.log(rate[name] / REASONED[name]) ** 2 for name in names)
    distance = np.where(inside, distance, np.inf)
    if not np.isfinite(distance.min()):
        return None
    best = np.unravel_index(np.argmin(distance), distance.shape)
    return {name: RATE_GRID[name][index] for name, index in zip(names, best)}


# --- command line -----------------------------------------------------------------------------------------------

def report(root=ROOT):
    measured = run_times.load(root)
    print(f"{'notebook':<32}" + "".join(f"{part:>12}" for part in Estimate(Features(0, 0, 0, 0, 0, 0), 0).parts)
          + f"{'total':>8}{'rounded':>9}")
    for path in load(root).paths:
        result = estimate(path, root, measured)
        print(f"{path.stem:<32}" + "".join(f"{m:12.1f}" for _, _, m in result.parts.values())
              + f"{result.total:8.1f}{result.rounded:9d}")
    timed = read_throughs(root)
    for label, (result, (low, high)) in calibration(root).items():
        verdict = "inside" if low <= result.total <= high else "OUTSIDE"
        print(f"calibration: {label}{' (speaker notes read)' if timed[label].notes else ''}: "
              f"model {result.total:.1f} min, timed {low}-{high}: {verdict}")
    print("rates nearest the reasoned ones that put every timed read-through inside its range:", fit(root))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrate", action="store_true", help=f"re-derive {CALIBRATION} from git history")
    if parser.parse_args(argv).calibrate:
        calibrate()
    report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
