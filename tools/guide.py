"""The instructor guide's generated blocks (docs/instructors.md): per notebook its objectives, learner time and own
checks; the lecture path's table (course.toml's ``[lecture]``), the condensed lecture, the fast path, the reading
model's calibration, the notebooks' memory and run times, the torch range. The prose around them is hand-written;
a notebook without a section gets one (:func:`section_skeleton`).

    >>> from tools.course import load
    >>> print(section_skeleton(load().paths[0]).splitlines()[0])
    ## 00 · Start here — Autograd Memory Lab
"""
import ast
import re

from tools import run_times
from tools.blocks import filled, has_block, markers
from tools.course import HEADING, SETUP_MARK, is_notes, read, title_cell
from tools.fast_path import fast_path_block
from tools.lecture_edition import condensed_block
from tools.project import pinned_torch, torch_requirement
from tools.reading_model import (
    MINUTES_PER_EXERCISE,
    MINUTES_PER_EXPLORER,
    MINUTES_PER_JUMP,
    MINUTES_PER_PREDICTION,
    MINUTES_PER_SOLUTION_LINE,
    PROSE_WORDS_PER_MINUTE,
    ROUND_TO,
    SECONDS_PER_CODE_LINE,
    calibration,
    estimate,
    read_throughs,
)

GUIDE = "docs/instructors.md"


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
    notebook, heading, found = read(path), None, []
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


def torch_block(root):
    return (f"`pyproject.toml` allows `{torch_requirement(root)}`, and CI pins `torch=={pinned_torch(root)}` "
            "(README, \"Tested range of PyTorch\", says which versions the whole suite passed on).")


def memory_block(root):
    record = run_times.load(root)
    p, budget = record["provenance"], record["budget"]
    shared = max(p["load_average_before"], p["load_average_after"]) > p["cores_used"]
    busy = (" (more than the cores used: other programs shared them, so the run times are longer than on an idle "
            "machine; the memory is not affected)") if shared else ""
    rows = ["| notebook | peak RSS of its kernel | run time |", "|---|---:|---:|"]
    rows += [f"| `{name}` | {figures['peak_rss_bytes'] / 1e9:.2f} GB | {figures['seconds']:.1f} s"
             + (f" (added on {figures['provenance']['date'][:10]}, torch {figures['provenance']['torch']})"
                if "provenance" in figures else "") + " |"
             for name, figures in record["notebooks"].items()]
    return "\n".join([
        f"Measured by `{p['command']}` on {p['date'][:10]}: torch {p['torch']}, {p['cores_used']} of the machine's "
        f"{p['machine_cores']} cores, 1-minute load average {p['load_average_before']} before and "
        f"{p['load_average_after']} after{busy}. "
        f"The course's budget per notebook: {budget['seconds']} s and {budget['peak_rss_bytes'] / 1e9:.1f} GB.", "",
        *rows, "",
        f"Largest peak: {max(f['peak_rss_bytes'] for f in record['notebooks'].values()) / 1e9:.2f} GB. Give each student "
        "at least that much memory, plus the browser's share on their own machine."])


def model_block(root):
    rows = ["| what was timed | by | model (unrounded) | timed | inside? |", "|---|---|---:|---:|---|"]
    timed = read_throughs(root)
    for label, (result, (low, high)) in calibration(root).items():
        through = timed[label]
        read = "; ".join(f"`{name}`" + (" (" + "; ".join(headings) + ")" if headings else "")
                         for name, headings in through.read.items())
        rows.append(f"| {read} at `{through.commit[:7]}`{', speaker notes read' if through.notes else ''} | {through.who} "
                    f"| {result.total:.1f} min | {low}-{high} min | {'yes' if low <= result.total <= high else '**no**'} |")
    rates = (f"prose {PROSE_WORDS_PER_MINUTE} words/min; code {SECONDS_PER_CODE_LINE} s/line; "
             f"{MINUTES_PER_PREDICTION} min per prediction; {MINUTES_PER_EXERCISE} min per exercise + "
             f"{MINUTES_PER_SOLUTION_LINE} min per line of its worked solution; {MINUTES_PER_EXPLORER} min per explorer; "
             f"{MINUTES_PER_JUMP} min per place a route's reader has to find; plus the measured run time; rounded to "
             f"{ROUND_TO} minutes")
    return (f"Rates, fitted to the timed read-throughs below (`python -m tools.reading_model --calibrate`): {rates}. "
            "Calibration:\n\n" + "\n".join(rows))


def time_block(path, result):
    rows = ["| part | counted | rate | minutes |", "|---|---|---|---:|"]
    rows += [f"| {part} | {counted} | {rate} | {minutes:.1f} |" for part, (counted, rate, minutes) in result.parts.items()]
    rows.append(f"| **total** | | | **{result.total:.1f}**: about {result.rounded} minutes |")
    return f"Learner time for `{path.name}` (the reading model of `tools/reading_model.py`):\n\n" + "\n".join(rows)


def objectives_block(path):
    """The objectives as the notebook's title cell states them (from ``**Objectives.**`` to the next blank line)."""
    notebook = read(path)
    title = notebook.cells[title_cell(notebook, path.name)].source
    found = re.search(r"\*\*Objectives\.\*\*(.*?)(?:\n\s*\n|$)", title, re.S)
    if not found:
        raise SystemExit(f"{path.name}: its title cell has no '**Objectives.**' paragraph")
    return f"From the title cell of `{path.name}`:{found[1].rstrip()}"


def lecture_path_block(course):
    """The lecture path (course.toml's ``[lecture] path``) as the guide's table."""
    rows = ["| notebook | section | in class | minutes |", "|---|---|---|---:|"]
    rows += [f"| {row.notebook} | «{row.section}» | {row.mode}{f' ({row.note})' if row.note else ''} | {row.minutes} |"
             for row in course.lecture_path]
    return "\n".join(rows)


def blocks(course):
    """``{block name: text}``: every generated block of the guide."""
    root = course.root
    measured = run_times.load(root)
    found = {"model": model_block(root), "memory": memory_block(root), "torch": torch_block(root),
             "lecture-path": lecture_path_block(course), "fast-path": fast_path_block(course),
             "condensed": condensed_block(course)}
    for path in course.paths:
        number = path.stem[:2]
        found[f"objectives-{number}"] = objectives_block(path)
        found[f"time-{number}"] = time_block(path, estimate(path, root, measured))
        found[f"checks-{number}"] = checks_block(path)
    return found


def section_skeleton(path):
    """A new notebook's section of the guide: its heading and generated blocks, ready for the lecturer's notes."""
    notebook = read(path)
    title = notebook.cells[title_cell(notebook, path.name)].source.splitlines()[0].removeprefix("# ")
    number = path.stem[:2]
    empty = "\n\n".join("\n".join(markers(f"{kind}-{number}")) for kind in ("objectives", "time", "checks"))
    return f"## {title}\n\n[`notebooks/{path.name}`](../notebooks/{path.name})\n\n{empty}\n\n"


def with_new_sections(text, course):
    """The guide with a section (:func:`section_skeleton`) for each notebook that has none, after the last
    notebook's section: adding a notebook needs no hand edit here."""
    for path in course.paths:
        if has_block(text, f"objectives-{path.stem[:2]}"):
            continue
        sections = [found.start() for found in re.finditer(r"^## (\d\d) · ", text, re.M)]
        after = re.compile(r"^## (?!\d\d · )", re.M).search(text, sections[-1] + 1) if sections else None
        at = after.start() if after else len(text)
        text = text[:at] + section_skeleton(path) + text[at:]
    return text


def guide(course):
    """The guide target: ``{docs/instructors.md: its text with every generated block current}``."""
    path = course.root / GUIDE
    text = with_new_sections(path.read_text(), course)
    for name, body in blocks(course).items():
        text = filled(text, name, body, GUIDE)
    return {path: text}
