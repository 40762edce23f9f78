"""The PINN fast path (course.toml's ``[fast_path]``), read with the reading model: the cell that marks it below the
titles of the notebooks in ``marked_in``, and the guide's table of its stops.

    >>> from tools.course import load
    >>> stops, total = fast_path(load())
    >>> stops[0][:2], total <= load().fast_path["limit"]
    (('05_laplacian_pinn', 'Myth vs measured'), True)
"""
import math

import nbformat

from tools.course import notebook_text, read
from tools.reading_model import FAST_PATH_MARK, estimate, run_times, span_estimate, spans, title_cell


def _find_span(cells, heading):
    """``(full heading, first cell, end)`` of the one heading that starts with ``heading``."""
    matches = [(title, start, end) for _, title, start, end in spans(cells) if title.startswith(heading)]
    if len(matches) != 1:
        raise SystemExit(f"course.toml's fast path names the heading {heading!r}, which matches {len(matches)} "
                         "headings: name one exactly")
    return matches[0]


def _solutions(course, stem):
    solution = course.root / "solutions" / f"{stem}.py"
    return solution.read_text() if solution.exists() else ""


def fast_path(course, measured=None):
    """``([(notebook stem, full heading, what it gives, minutes)], total minutes)``: the stops read with the model;
    the total adds the run of ``run_first`` top to bottom (its sections need the cells above them)."""
    measured = measured or run_times(course.root)["notebooks"]
    stops = []
    for stop in course.stops:
        notebook = course.notebook(stop.notebook)
        cells = read(notebook.path).cells
        title, start, end = _find_span(cells, stop.heading)
        result = span_estimate(cells, start, end, _solutions(course, notebook.stem), 0)
        stops.append((notebook.stem, title, stop.gives, result.total))
    first = course.notebook(course.fast_path["run_first"])
    total = sum(minutes for *_, minutes in stops) + measured[first.stem]["seconds"] / 60
    return stops, round(total, 1)


def fast_path_text(course, notebook_name, measured=None):
    """The markdown cell that marks the fast path below the title of ``notebook_name`` (a stem)."""
    measured = measured or run_times(course.root)["notebooks"]
    stops, total = fast_path(course, measured)
    first = course.notebook(course.fast_path["run_first"])

    def cite(name, heading):
        return (f"[{name[:2]}]({name}.ipynb) " if name != notebook_name else "") + f"«{heading}»"

    run = "this notebook" if notebook_name == first.stem else f"[{first.id} · {first.title}]({first.file})"
    lines = [FAST_PATH_MARK,
             f"**PINN fast path, about {math.ceil(total)} minutes.** Came here because a PINN runs out of memory "
             f"on second derivatives? Run {run} top to bottom (*Run → Run All Cells*, about "
             f"{measured[first.stem]['seconds']:.0f} s), then read only these sections:", ""]
    merged = []
    for name, heading, gives, minutes in stops:
        if not gives:
            merged[-1] = (merged[-1][0] + [(name, heading)], merged[-1][1], merged[-1][2] + minutes)
        else:
            merged.append(([(name, heading)], gives, minutes))
    for number, (places, gives, minutes) in enumerate(merged, start=1):
        where = " and ".join(cite(name, heading) for name, heading in places)
        lines.append(f"{number}. {where}: {gives} (about {max(1, round(minutes))} min);")
    lines[-1] = lines[-1].rstrip(";") + "."
    by_notebook = {}
    for entry in course.fast_path["assumes"]:
        by_notebook.setdefault(course.notebook(entry["notebook"]).stem, []).append(f"«{entry['heading']}»")
    assumes = "; ".join(f"[{name[:2]}]({name}.ipynb) " + ", ".join(headings) for name, headings in by_notebook.items())
    whole = sum(estimate(path, course.root, measured).rounded for path in course.paths)
    ids = [notebook.id for notebook in course.notebooks]
    lines += ["", f"It assumes {assumes}: read those first if a graph's saved tensors are new to you. The minutes come "
                  f"from the reading model of `tools/reading_model.py` (the whole course, {ids[0]} to {ids[-1]}: about "
                  f"{whole} minutes)."]
    return "\n".join(lines)


def with_fast_path_cell(notebook, index, text):
    """``notebook`` with the fast path's cell ``text`` right below the title cell at ``index`` (added the first time),
    and no other cell that marks it."""
    cells = notebook.cells
    cells[index + 2:] = [cell for cell in cells[index + 2:] if not cell.source.startswith(FAST_PATH_MARK)]
    if index + 1 < len(cells) and cells[index + 1].cell_type == "markdown" and cells[index + 1].source.startswith(FAST_PATH_MARK):
        cells[index + 1].source = text
        return notebook
    cell = nbformat.v4.new_markdown_cell(text, metadata={"slideshow": {"slide_type": "skip"}})  # the learner's route
    if notebook.nbformat_minor < 5:
        del cell["id"]
    cells.insert(index + 1, cell)
    return notebook


def fast_path_cells(course):
    """The fast-path target: ``{notebook: its text with the current fast-path cell}`` for each notebook marked."""
    measured = run_times(course.root)["notebooks"]
    found = {}
    for marked in course.fast_path["marked_in"]:
        path = course.notebook(marked).path
        notebook = read(path)
        text = fast_path_text(course, path.stem, measured)
        found[path] = notebook_text(with_fast_path_cell(notebook, title_cell(notebook, path.name), text))
    return found


def fast_path_block(course):
    """The guide's table of the fast path's stops and their minutes."""
    stops, total = fast_path(course)
    first = course.notebook(course.fast_path["run_first"])
    rows = ["| stop | section | what it gives | minutes |", "|---|---|---|---:|"]
    rows += [f"| {number} | {name[:2]} «{heading}» | {gives or '(with the row above)'} "
             f"| {minutes:.1f} |" for number, (name, heading, gives, minutes) in enumerate(stops, start=1)]
    rows.append(f"| | running {first.id} top to bottom first | | "
                f"{run_times(course.root)['notebooks'][first.stem]['seconds'] / 60:.1f} |")
    rows.append(f"| | **total** | | **{total:.1f}** (the bound: {course.fast_path['limit']}) |")
    return ("The PINN fast path, for a learner who came with a PINN that runs out of memory on second derivatives; it is "
            "marked below the title of 00 and 05, with what it assumes from 01 and 02. Minutes from the reading model:\n\n"
            + "\n".join(rows))
