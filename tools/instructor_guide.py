"""Learner times and the instructor guide's generated parts, from one transparent reading model.

    python tools/instructor_guide.py               print each notebook's estimate, part by part, and the calibration
    python tools/instructor_guide.py --check       say what is out of date, as a diff; exit 1 if anything is
    python tools/instructor_guide.py --write       rewrite every notebook's "**Time:** about N minutes." and the
                                                   generated blocks of docs/instructors.md
    python tools/instructor_guide.py --calibrate   re-derive data/instructor_calibration.json from git history

**The reading model.** Nobody timed today's notebooks, so the times are estimated from what a notebook asks of a
careful learner, with every rate stated here:

    minutes = prose words / PROSE_WORDS_PER_MINUTE
            + code lines x SECONDS_PER_CODE_LINE / 60
            + predictions x MINUTES_PER_PREDICTION
            + exercises x MINUTES_PER_EXERCISE + lines of their worked solutions x MINUTES_PER_SOLUTION_LINE
            + explorers x MINUTES_PER_EXPLORER
            + the notebook's own run time (data/notebooks_cpu.json, written by benchmarks/notebooks.py --json)

- Prose, 100 words a minute: adults read non-fiction silently at about 238 words a minute (Brysbaert 2019, a
  meta-analysis), and read to remember at about 138 (Carver 1992, "memorizing" gear). This prose is denser than
  that (inline code, byte counts, formulas) and every claim is checked against a printed number: about 3/4 of it.
  Speaker-notes cells (``**Speaker notes.**``) are for the lecturer, not counted.
- Code, 5 s a line: every non-blank line of every code cell but the Colab setup cell, read with what it prints.
  Code review that hunts defects works best below 400-500 lines an hour (7-9 s a line: Cohen 2006, the SmartBear
  study at Cisco); a learner follows the code rather than verifying each line, and much of it formats a printout
  that is on screen.
- A prediction, 1 min: think, type a guess into ``cu.predict(...)``, run, read the reveal. A ``**Predict:**`` prompt
  that no ``cu.predict(`` answers (notebook 07, and every notebook before predictions were code) counts as one.
- An exercise, 5 min plus 1 min per line of its worked solution (``solutions/<notebook>.py``, function bodies without
  docstrings): plan it, write it, run the checker, read its verdict, fix. 07's one-line fixes stay short this way.
- An explorer panel, 3 min: a handful of settings, each re-measured in under a second (benchmarks/explorers.py).

**Calibrated** against the only real timings there are: the issue's reviewer timed careful read-throughs of notebook
01 at 65-75 min and of 05 at 100-120 min as they were when issue 11 was filed (commit 132a941; 05 was later split
into 05 and 06). Their features are in data/instructor_calibration.json; the rates above put old 01 and old 05
inside both ranges (the tool with no option prints by how much). Two timings cannot pin down six rates: the rates come from
the reasoning above, and the calibration shows they agree with the reviewer, near the top of 01's range and the
bottom of 05's (the reviewer found 05 slower than its size alone predicts).

>>> estimate = Estimate(Features(prose_words=1000, code_lines=120, predictions=3, exercises=1, solution_lines=4,
...                              explorers=1), run_seconds=30)
>>> estimate.total, estimate.rounded
(35.5, 35)
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

from project import ROOT, pinned_torch, torch_requirement

PROSE_WORDS_PER_MINUTE = 100
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
TIME_LINE = re.compile(r"\*\*Time:\*\* about (\d+) minutes\.")
PROMPT = re.compile(r"\*\*Predict(?::\*\*|\*\*)")
HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*$", re.M)
CHECKER_CALL = re.compile(r"\bcheck_\w+\(")

# The reviewer's timings (issue 11) and the notebooks they timed: the versions at the commit round 2 started from.
REVIEWED_COMMIT = "132a9414b6b0681e0ac81e6a9b4453883c21d8f3"
REVIEWED = {"01_graph_lifecycle": (65, 75), "05_laplacian_pinn": (100, 120)}
# Their run times, measured by benchmarks/notebooks.py at that commit with the machine alone (closing note of stop 9,
# `issues stops`); the notebooks need the course_utils of their day, so they are not re-run here.
REVIEWED_RUN_SECONDS = {"01_graph_lifecycle": 6.2, "05_laplacian_pinn": 26.5}


@dataclasses.dataclass(frozen=True)
class Features:
    """What a notebook asks of a careful learner, counted from its source (see the module docstring)."""
    prose_words: int
    code_lines: int
    predictions: int
    exercises: int
    solution_lines: int
    explorers: int


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


def features(notebook, solutions_source=""):
    """Count a notebook's :class:`Features` (``notebook`` as nbformat returns it)."""
    cells = notebook.cells
    code = [c for c in cells if c.cell_type == "code" and not c.source.startswith(SETUP_MARK)]
    return Features(
        prose_words=sum(prose_words(c.source) for c in cells if c.cell_type == "markdown" and not is_notes(c)),
        code_lines=sum(1 for c in code for line in c.source.splitlines() if line.strip()),
        predictions=predictions(cells),
        exercises=sum(1 for c in code if "raise NotImplementedError" in c.source and CHECKER_CALL.search(c.source)),
        solution_lines=solution_lines(solutions_source),
        explorers=sum(1 for c in code if "cu.explorers." in c.source and "assert" not in c.source),
    )


# --- today's notebooks ------------------------------------------------------------------------------------------

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
    return {name: (Estimate(Features(**entry["features"]), entry["run_seconds"]), tuple(entry["reviewer_minutes"]))
            for name, entry in record["notebooks"].items()}


def model_block(root=ROOT):
    rows = ["| version timed by the reviewer | model (unrounded) | reviewer | inside? |", "|---|---:|---:|---|"]
    for name, (result, (low, high)) in calibration(root).items():
        rows.append(f"| `{name}` at `{REVIEWED_COMMIT[:7]}` | {result.total:.1f} min | {low}-{high} min | "
                    f"{'yes' if low <= result.total <= high else '**no**'} |")
    rates = (f"prose {PROSE_WORDS_PER_MINUTE} words/min; code {SECONDS_PER_CODE_LINE} s/line; "
             f"{MINUTES_PER_PREDICTION} min per prediction; {MINUTES_PER_EXERCISE} min per exercise + "
             f"{MINUTES_PER_SOLUTION_LINE} min per line of its worked solution; {MINUTES_PER_EXPLORER} min per explorer; "
             f"plus the measured run time; rounded to {ROUND_TO} minutes")
    return f"Rates: {rates}. Calibration:\n\n" + "\n".join(rows)


def blocks(root=ROOT):
    """``{block name: text}``: every generated block of the guide."""
    measured = run_times(root)["notebooks"]
    found = {"model": model_block(root), "memory": memory_block(root), "torch": torch_block(root)}
    for path in notebook_paths(root):
        number = path.stem[:2]
        found[f"objectives-{number}"] = objectives_block(path)
        found[f"time-{number}"] = time_block(path, estimate(path, root, measured))
        found[f"checks-{number}"] = checks_block(path)
    return found


def markers(name):
    return f"<!-- {name}: written by tools/instructor_guide.py --write -->", f"<!-- /{name} -->"


def updated_guide(root=ROOT):
    """The guide's text with every generated block current."""
    text = (root / GUIDE).read_text()
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


def updated_title(path, minutes):
    """``(notebook, index of its title cell, new title source)``."""
    notebook = nbformat.read(path, as_version=4)
    index = title_cell(notebook, path.name)
    source = TIME_LINE.sub(f"**Time:** about {minutes} minutes.", notebook.cells[index].source)
    return notebook, index, source


def stale(root=ROOT, write=False):
    """``{file: unified diff}`` for every file that is out of date; with ``write``, bring each up to date."""
    out_of_date, measured = {}, run_times(root)["notebooks"]
    for path in notebook_paths(root):
        notebook, index, source = updated_title(path, estimate(path, root, measured).rounded)
        old = notebook.cells[index].source
        if source != old:
            name = path.relative_to(root).as_posix()
            out_of_date[name] = "".join(difflib.unified_diff(
                old.splitlines(True), source.splitlines(True), f"{name} (title cell)", "the reading model", n=0))
            if write:
                notebook.cells[index].source = source
                nbformat.write(notebook, path)
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
    notebooks = {}
    for name, minutes in REVIEWED.items():
        found = features(nbformat.reads(_git_show(root, REVIEWED_COMMIT, f"notebooks/{name}.ipynb"), as_version=4),
                         _git_show(root, REVIEWED_COMMIT, f"solutions/{name}.py"))
        notebooks[name] = {"commit": REVIEWED_COMMIT, "reviewer_minutes": list(minutes),
                           "features": dataclasses.asdict(found), "run_seconds": REVIEWED_RUN_SECONDS[name]}
    record = {
        "what": "The notebooks the reviewer of issue 11 timed, as counted by tools/instructor_guide.py's reading model",
        "reviewer_minutes": "issue 11: a careful read-through took 65-75 min (01) and 100-120 min (05); the issue was "
                            f"filed on the code round 2 started from, commit {REVIEWED_COMMIT[:7]}",
        "features": f"counted from git show {REVIEWED_COMMIT[:7]}:notebooks/<name>.ipynb and :solutions/<name>.py",
        "run_seconds": f"benchmarks/notebooks.py at {REVIEWED_COMMIT[:7]}, the 2-core machine alone (stop 9's closing "
                       "note, `issues stops`)",
        "derived_by": "python tools/instructor_guide.py --calibrate",
        "notebooks": notebooks,
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
    for name, (result, (low, high)) in calibration(root).items():
        verdict = "inside" if low <= result.total <= high else "OUTSIDE"
        print(f"calibration: {name} at {REVIEWED_COMMIT[:7]}: model {result.total:.1f} min, "
              f"reviewer {low}-{high}: {verdict}")


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
        return 0
    if files:
        print("".join(files.values()))
        print("[instructor_guide] out of date (run `python tools/instructor_guide.py --write`): " + ", ".join(files))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
