"""Learner times and the instructor guide's generated parts, from one transparent reading model.

    python tools/instructor_guide.py               print each notebook's estimate, part by part, and the calibration
    python tools/instructor_guide.py --check       say what is out of date, as a diff; exit 1 if anything is
    python tools/instructor_guide.py --write       rewrite every notebook's "**Time:** about N minutes (by section: ...)."
                                                   line, 00's and 05's fast-path cell, the generated blocks of
                                                   docs/instructors.md, then learner/ (tools/editions.py --write)
    python tools/instructor_guide.py --calibrate   re-derive data/instructor_calibration.json from git history

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

**Calibrated** against the only real timings there are: issue 11's reviewer timed careful read-throughs of notebook
01 at 65-75 min and of 05 at 100-120 min as they were when that issue was filed (commit 132a941; 05 was later split
into 05 and 06), and issue 25's reviewer read today's 05 (commit d9183a3), speaker notes included (1,427 words of
them), in 95-110 min. Their features are in data/instructor_calibration.json; the rates above put all three inside
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
import difflib
import json
import pathlib
import re
import subprocess
import sys

import nbformat

import editions
import fast_path
from project import ROOT, pinned_torch, torch_requirement

PROSE_WORDS_PER_MINUTE = 90
SECONDS_PER_CODE_LINE = 5
MINUTES_PER_PREDICTION = 1
MINUTES_PER_EXERCISE = 5
MINUTES_PER_SOLUTION_LINE = 1
MINUTES_PER_EXPLORER = 3
ROUND_TO = 5

GUIDE = "docs/instructors.md"
RUN_TIMES = "data/notebooks_cpu.json"
CALIBRATION = "data/instructor_calibration.json"
NOTES_MARK = "**Speaker notes.**"
SETUP_MARK = "# Setup for Google Colab"
TIME_LINE = re.compile(r"\*\*Time:\*\* about (\d+) minutes(?: \(by section: [^)\n]*\))?\.")
PROMPT = re.compile(r"\*\*Predict(?::\*\*|\*\*)")
HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*$", re.M)
PATH_TABLE = re.compile(r"<!-- lecture-path:.*?-->\n(.*?)<!-- /lecture-path -->", re.S)  # the guide's 90-minute path
CHECKER_CALL = re.compile(r"\bcheck_\w+\(")

# The timed read-throughs: {label: (notebook, commit it was read at, the reviewer's minutes, its run time in seconds,
# speaker notes read)}. Issue 11's reviewer read the versions of the commit round 2 started from (run times by
# benchmarks/notebooks.py at that commit, the machine alone: closing note of stop 9, `issues stops`); issue 25's
# reviewer read 05 at d9183a3, notes included (run time: data/notebooks_cpu.json at that commit). The notebooks need
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
                        if c.cell_type == "markdown" and not is_notes(c) and not c.source.startswith(fast_path.MARK)),
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
    cells = nbformat.read(path, as_version=4).cells
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


def _cells(root, name):
    return nbformat.read(root / "notebooks" / f"{name}.ipynb", as_version=4).cells


# --- today's notebooks ------------------------------------------------------------------------------------------

def lecture_path(root=ROOT):
    """``[(notebook number, heading, mode, minutes)]``: the rows of the guide's 90-minute lecture-path table."""
    table = PATH_TABLE.search((root / GUIDE).read_text())
    if not table:
        raise SystemExit(f"{GUIDE} has no <!-- lecture-path ... --> ... <!-- /lecture-path --> table")
    rows = []
    for line in table[1].strip().splitlines()[2:]:                      # skip the header and the |---| line
        number, section, mode, minutes = (cell.strip() for cell in line.strip().strip("|").split(" | "))
        heading = re.fullmatch(r"«(.+)»", section)
        if not heading:
            raise SystemExit(f"lecture path: write the section as «heading», not {section!r}")
        rows.append((number, heading[1], mode.split(" (")[0], int(minutes)))
    return rows


def lecture_notebooks(root=ROOT):
    """The notebooks of the lecture path: each one its table names, whether its sections are live, homework or skipped.

    >>> [path.stem[:2] for path in lecture_notebooks()][:2]
    ['00', '01']
    """
    named = {number for number, _, _, _ in lecture_path(root)}
    return [path for path in notebook_paths(root) if path.name[:2] in named]


def live_notebooks(root=ROOT):
    """The notebooks the condensed lecture shows: those with a live row on the lecture path.

    >>> [path.stem[:2] for path in live_notebooks()][:2]
    ['00', '01']
    """
    live = {number for number, _, mode, _ in lecture_path(root) if mode == "live"}
    return [path for path in notebook_paths(root) if path.name[:2] in live]


def notebook_paths(root=ROOT):
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


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
    found = features(nbformat.read(path, as_version=4), solution.read_text() if solution.exists() else "")
    return Estimate(found, measured[path.stem]["seconds"])


def headings(path):
    """Every heading's text in a notebook (``## 3 · Foo`` gives ``3 · Foo``), speaker notes left out."""
    notebook = nbformat.read(path, as_version=4)
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


# --- the checks a live demo should pass -------------------------------------------------------------------------

def _message(node):
    """An assert's message as the learner reads it: f-string fields shown as ``{expression}``."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
                       for part in node.values)
    return ast.unparse(node)


def _asserts(statements):
    """Asserts that always run: at the top of a cell or in its loops and ``with`` blocks, not under an ``if``
    (device-dependent checks, e.g. CUDA-only ones, carry their own conditions)."""
    for statement in statements:
        if isinstance(statement, ast.Assert):
            yield statement
        elif isinstance(statement, (ast.For, ast.While, ast.With)):
            yield from _asserts(statement.body)


def check_cells(path):
    """``[(section heading, [(condition, message), ...])]``: the notebook's asserts, under the heading above them."""
    notebook, heading, found = nbformat.read(path, as_version=4), None, []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and not is_notes(cell):
            titles = [m[2] for m in HEADING.finditer(cell.source) if len(m[1]) > 1]
            heading = titles[-1] if titles else heading
        elif cell.cell_type == "code" and not cell.source.startswith(SETUP_MARK):
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            asserts = [(" ".join(ast.get_source_segment(cell.source, a.test).split()), " ".join(_message(a.msg).split()))
                       for a in _asserts(tree.body)]
            if not asserts:
                continue
            if found and found[-1][0] == heading:
                found[-1][1].extend(asserts)
            else:
                found.append((heading, asserts))
    return found


def _escape(text):
    return re.sub(r"([\\`*_<>\[\]|])", r"\\\1", text)


def _code(text):
    """Inline code that survives any backticks inside it."""
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def checks_block(path):
    lines = ["<details><summary>The notebook's own checks</summary>", "",
             f"What `{path.name}` asserts, section by section (a failing assert stops the notebook with its message):",
             ""]
    for heading, asserts in check_cells(path):
        lines.append(f"- {path.stem[:2]} «{heading}»" if heading else "- before the first section")
        lines.extend(f"  - {_code(condition)}" + (f": {_escape(message)}" if message else "")
                     for condition, message in asserts)
    return "\n".join(lines + ["", "</details>"])


# --- the guide's generated blocks -------------------------------------------------------------------------------

def fast_path_block(root=ROOT):
    stops, total = fast_path.minutes(root=root)
    _, assumed = fast_path.minutes(fast_path.ASSUMES, root)
    rows = ["| stop | section | what it gives | minutes |", "|---|---|---|---:|"]
    rows += [f"| {number} | {stop.notebook[:2]} " + (f"«{fast_path.title(stop, root)}»" if stop.heading else
                                                       "set-up (the cells above the first section)") + " "
             f"| {stop.gives or '(with the row below)'} | {minutes:.1f} |"
             for number, (stop, minutes) in enumerate(stops, start=1)]
    rows.append(f"| | **total** | | **{total:.1f}** |")
    return ("The PINN fast path (tools/fast_path.py), for a learner who came with a PINN that runs out of memory on second "
            "derivatives; it is shown below the title of 00 and 05, with what it assumes from 01 and 02 "
            f"({assumed:.1f} minutes more). Minutes from the reading model, each stop's cells run and read:\n\n"
            + "\n".join(rows))


def time_block(path, result):
    rows = ["| part | counted | rate | minutes |", "|---|---|---|---:|"]
    rows += [f"| {part} | {counted} | {rate} | {minutes:.1f} |" for part, (counted, rate, minutes) in result.parts.items()]
    rows.append(f"| **total** | | | **{result.total:.1f}**: about {result.rounded} minutes |")
    return f"Learner time for `{path.name}` (the reading model of `tools/instructor_guide.py`):\n\n" + "\n".join(rows)


def objectives_block(path):
    """The objectives as the notebook's title cell states them (from ``**Objectives.**`` to the next blank line)."""
    notebook = nbformat.read(path, as_version=4)
    title = notebook.cells[title_cell(notebook, path.name)].source
    found = re.search(r"\*\*Objectives\.\*\*(.*?)(?:\n\s*\n|$)", title, re.S)
    if not found:
        raise SystemExit(f"{path.name}: its title cell has no '**Objectives.**' paragraph")
    return f"From the title cell of `{path.name}`:{found[1].rstrip()}"


def torch_block(root=ROOT):
    return (f"`pyproject.toml` allows `{torch_requirement(root)}`, and CI pins `torch=={pinned_torch(root)}` "
            "(README, \"Tested range of PyTorch\", says which versions the whole suite passed on).")


def memory_block(root=ROOT):
    record = run_times(root)
    p, budget = record["provenance"], record["budget"]
    shared = max(p["load_average_before"], p["load_average_after"]) > p["cores_used"]
    busy = (" (more than the cores used: other programs shared them, so the run times are longer than on an idle "
            "machine; the memory is not affected)") if shared else ""
    rows = ["| notebook | peak RSS of its kernel | run time |", "|---|---:|---:|"]
    rows += [f"| `{name}` | {figures['peak_rss_bytes'] / 1e9:.2f} GB | {figures['seconds']:.1f} s |"
             for name, figures in record["notebooks"].items()]
    return "\n".join([
        f"Measured by `{p['command']}` on {p['date'][:10]}: torch {p['torch']}, {p['cores_used']} of the machine's "
        f"{p['machine_cores']} cores, 1-minute load average {p['load_average_before']} before and "
        f"{p['load_average_after']} after{busy}. "
        f"The course's budget per notebook: {budget['seconds']} s and {budget['peak_rss_bytes'] / 1e9:.1f} GB.", "",
        *rows, "",
        f"Largest peak: {max(f['peak_rss_bytes'] for f in record['notebooks'].values()) / 1e9:.2f} GB. Give each student "
        "at least that much memory, plus the browser's share on their own machine."])


def calibration(root=ROOT):
    """``{notebook: (Estimate of the reviewed version, (reviewer's low, high))}`` from data/instructor_calibration.json."""
    record = json.loads((root / CALIBRATION).read_text())
    return {label: (Estimate(Features(**entry["features"]), entry["run_seconds"]), tuple(entry["reviewer_minutes"]))
            for label, entry in record["read_throughs"].items()}


def model_block(root=ROOT):
    rows = ["| version timed by a reviewer | model (unrounded) | reviewer | inside? |", "|---|---:|---:|---|"]
    for label, (result, (low, high)) in calibration(root).items():
        name, commit, *_rest, with_notes = REVIEWED[label]
        rows.append(f"| `{name}` at `{commit[:7]}`{', speaker notes read' if with_notes else ''} | {result.total:.1f} min "
                    f"| {low}-{high} min | {'yes' if low <= result.total <= high else '**no**'} |")
    rates = (f"prose {PROSE_WORDS_PER_MINUTE} words/min; code {SECONDS_PER_CODE_LINE} s/line; "
             f"{MINUTES_PER_PREDICTION} min per prediction; {MINUTES_PER_EXERCISE} min per exercise + "
             f"{MINUTES_PER_SOLUTION_LINE} min per line of its worked solution; {MINUTES_PER_EXPLORER} min per explorer; "
             f"plus the measured run time; rounded to {ROUND_TO} minutes")
    return f"Rates: {rates}. Calibration:\n\n" + "\n".join(rows)


def blocks(root=ROOT):
    """``{block name: text}``: every generated block of the guide."""
    measured = run_times(root)["notebooks"]
    import lecture_edition  # it reads the lecture path with this module's parsing: imported here, not at the top

    found = {"model": model_block(root), "memory": memory_block(root), "torch": torch_block(root),
             "fast-path": fast_path_block(root), "condensed": lecture_edition.condensed_block(root)}
    for path in notebook_paths(root):
        number = path.stem[:2]
        found[f"objectives-{number}"] = objectives_block(path)
        found[f"time-{number}"] = time_block(path, estimate(path, root, measured))
        found[f"checks-{number}"] = checks_block(path)
    return found


def markers(name):
    return f"<!-- {name}: written by tools/instructor_guide.py --write -->", f"<!-- /{name} -->"


def section_skeleton(path):
    """A new notebook's section of the guide: its heading and generated blocks, ready for the lecturer's notes.

    >>> print(section_skeleton(ROOT / "notebooks" / "00_start_here.ipynb").splitlines()[0])
    ## 00 · Start here — Autograd Memory Lab
    """
    notebook = nbformat.read(path, as_version=4)
    title = notebook.cells[title_cell(notebook, path.name)].source.splitlines()[0].removeprefix("# ")
    number = path.stem[:2]
    blocks = "\n\n".join("\n".join(markers(f"{kind}-{number}")) for kind in ("objectives", "time", "checks"))
    return f"## {title}\n\n[`notebooks/{path.name}`](../notebooks/{path.name})\n\n{blocks}\n\n"


def with_new_sections(text, root=ROOT):
    """The guide with a section (:func:`section_skeleton`) for each notebook that has none, after the last
    notebook's section: adding a notebook needs no hand edit here."""
    for path in notebook_paths(root):
        if markers(f"objectives-{path.stem[:2]}")[0] in text:
            continue
        sections = [found.start() for found in re.finditer(r"^## (\d\d) · ", text, re.M)]
        after = re.compile(r"^## (?!\d\d · )", re.M).search(text, sections[-1] + 1) if sections else None
        at = after.start() if after else len(text)
        text = text[:at] + section_skeleton(path) + text[at:]
    return text


def updated_guide(root=ROOT):
    """The guide's text with every generated block current (and a section for a notebook that had none)."""
    text = with_new_sections((root / GUIDE).read_text(), root)
    for name, body in blocks(root).items():
        start, end = markers(name)
        pattern = re.compile(r"^([ \t]*)" + re.escape(start) + r".*?" + re.escape(end), re.S | re.M)
        if not pattern.search(text):
            raise SystemExit(f"{GUIDE} has no {start} ... {end} block: add those two lines where the block belongs, "
                             "then run `python tools/instructor_guide.py --write`")
        text = pattern.sub(lambda found: _indented(f"{start}\n{body}\n{end}", found[1]), text)
    return text


def _indented(text, indent):
    """``text`` with every non-blank line indented like its start marker (a block inside a list item stays in it)."""
    return "\n".join(indent + line if line.strip() else "" for line in text.split("\n"))


def updated_title(path, line):
    """``(notebook, index of its title cell, new title source)`` with ``line`` as its Time line."""
    notebook = nbformat.read(path, as_version=4)
    index = title_cell(notebook, path.name)
    source = TIME_LINE.sub(lambda _: line, notebook.cells[index].source)
    return notebook, index, source


def updated_fast_path_cell(notebook, index, text):
    """Put the fast path's cell ``text`` right below the title cell at ``index`` (adding it the first time), and no
    copy of it anywhere else (a merge may leave one); True when that changed the notebook."""
    cells = notebook.cells
    strays = [i for i, cell in enumerate(cells) if i != index + 1 and cell.source.startswith(fast_path.MARK)]
    for stray in reversed(strays):
        del cells[stray]
    if index + 1 < len(cells) and cells[index + 1].cell_type == "markdown" and cells[index + 1].source.startswith(fast_path.MARK):
        if cells[index + 1].source == text:
            return bool(strays)
        cells[index + 1].source = text
        return True
    cell = nbformat.v4.new_markdown_cell(text, metadata={"slideshow": {"slide_type": "skip"}})  # the learner's route
    if notebook.nbformat_minor < 5:
        del cell["id"]
    cells.insert(index + 1, cell)
    return True


def stale(root=ROOT, write=False):
    """``{file: unified diff}`` for every file that is out of date; with ``write``, bring each up to date."""
    out_of_date, measured = {}, run_times(root)["notebooks"]
    for path in notebook_paths(root):
        notebook, index, source = updated_title(path, time_line(path, root, measured))
        old, name = notebook.cells[index].source, path.relative_to(root).as_posix()
        diff = "".join(difflib.unified_diff(
            old.splitlines(True), source.splitlines(True), f"{name} (title cell)", "the reading model", n=0))
        notebook.cells[index].source = source
        if path.stem in fast_path.MARKED_IN and updated_fast_path_cell(notebook, index, fast_path.box(path.stem, root, measured)):
            diff += f"--- {name}: the fast path's cell below the title is missing or stale\n"
        if diff:
            out_of_date[name] = diff
            if write:
                nbformat.write(notebook, path)
    readme = (root / "README.md").read_text()
    start, end = markers("fast-path")
    current = re.sub(re.escape(start) + ".*?" + re.escape(end),
                     lambda _: f"{start}\n{fast_path.readme_block(root, measured)}\n{end}", readme, flags=re.S)
    if start not in readme:
        raise SystemExit(f"README.md has no {start} ... {end} block: add those two lines where the fast path is "
                         "announced, then run `python tools/instructor_guide.py --write`")
    if current != readme:
        out_of_date["README.md"] = "".join(difflib.unified_diff(readme.splitlines(True), current.splitlines(True),
                                                                "README.md", "generated", n=0))
        if write:
            (root / "README.md").write_text(current)
    guide, new = (root / GUIDE).read_text(), updated_guide(root)
    if new != guide:
        out_of_date[GUIDE] = "".join(difflib.unified_diff(guide.splitlines(True), new.splitlines(True), GUIDE,
                                                          "generated", n=1))
        if write:
            (root / GUIDE).write_text(new)
    return out_of_date


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
        "what": "The notebooks reviewers timed, as counted by tools/instructor_guide.py's reading model",
        "reviewer_minutes": "issue 11: a careful read-through took 65-75 min (01) and 100-120 min (05), on the code "
                            "round 2 started from (commit 132a941); issue 25: 05 took 95-110 min at commit d9183a3, "
                            "its speaker notes read too",
        "features": "counted from git show <commit>:notebooks/<name>.ipynb and :solutions/<name>.py",
        "run_seconds": "132a941: benchmarks/notebooks.py at that commit, the 2-core machine alone (stop 9's closing "
                       "note, `issues stops`); d9183a3: data/notebooks_cpu.json at that commit",
        "derived_by": "python tools/instructor_guide.py --calibrate",
        "read_throughs": read_throughs,
    }
    (root / CALIBRATION).write_text(json.dumps(record, indent=2) + "\n")
    return record


# --- command line -----------------------------------------------------------------------------------------------

def report(root=ROOT):
    measured = run_times(root)["notebooks"]
    print(f"{'notebook':<32}" + "".join(f"{part:>12}" for part in Estimate(Features(0, 0, 0, 0, 0, 0), 0).parts)
          + f"{'total':>8}{'rounded':>9}")
    for path in notebook_paths(root):
        result = estimate(path, root, measured)
        print(f"{path.stem:<32}" + "".join(f"{m:12.1f}" for _, _, m in result.parts.values())
              + f"{result.total:8.1f}{result.rounded:9d}")
    for label, (result, (low, high)) in calibration(root).items():
        verdict = "inside" if low <= result.total <= high else "OUTSIDE"
        print(f"calibration: {label}{' (speaker notes read)' if REVIEWED[label][4] else ''}: "
              f"model {result.total:.1f} min, reviewer {low}-{high}: {verdict}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="update the notebooks' Time lines and the guide's blocks")
    mode.add_argument("--check", action="store_true", help="only say what is out of date")
    mode.add_argument("--calibrate", action="store_true", help=f"re-derive {CALIBRATION} from git history")
    args = parser.parse_args(argv)
    if args.calibrate:
        calibrate()
        report()
        return 0
    if not (args.write or args.check):
        report()
        return 0
    files = stale(write=args.write)
    if args.write:
        print("[instructor_guide] updated: " + (", ".join(files) if files else "nothing, all current"))
        learner = editions.stale(write=True)  # the learner's edition follows the notebooks it was made from
        print("[instructor_guide] learner/ updated: " + (", ".join(learner) if learner else "nothing, all current"))
        return 0
    if files:
        print("".join(files.values()))
        print("[instructor_guide] out of date (run `python tools/instructor_guide.py --write`): " + ", ".join(files))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
