"""The PINN fast path (course.toml's ``[fast_path]``): the route through the course for a learner who arrives with a
PINN that runs out of memory, read with the reading model; the cell that shows it below the titles of the notebooks in
``marked_in``, the README's paragraph and the guide's table.

    python -m tools.fast_path     print the route: each stop, the cells it runs, its minutes

A learner opens each notebook of the route, runs its set-up (the cells above its first ``##`` section), then runs and
reads the route's sections in it (a section runs to the next heading of its level or above): those cells, and no
other. So the route must hold every cell its cells need (tools/routes.py; tests/test_fast_path.py runs them alone,
in order, in a fresh kernel per notebook).

It serves the cases seed 000's learner arrives with: memory that climbs while the residual is computed (05 Part 1: the
price of training, the posted "fixes" tested), second derivatives taken without ``create_graph`` (05 Part 1: that
residual trained to the wrong answer), a loop that leaks (05 Part 2, to the fixed loop), then their own step under
``find_leaks`` (07 §5): growing, it names the line to fix; flat, the step's memory is its price, and 07 §5 sends them to
06 «When the price itself does not fit».

    >>> from tools.course import load
    >>> [(stop.notebook[:2], stop.heading) for stop, _ in route(load())][:2]
    [('05', None), ('05', 'The problem')]
"""
import sys

from tools import run_times
from tools.blocks import filled
from tools.course import FAST_PATH_MARK, Stop, load, notebook_text, read, spans, title_cell
from tools.editions import learner_edition
from tools.reading_model import MINUTES_PER_JUMP, span_estimate
from tools.routes import jumps, missing_names

README_BLOCK = "fast-path"


def notebook_cells(course, notebook):
    """The cells of a notebook (id or stem) as the learner's edition has them (no speaker notes)."""
    return learner_edition(read(course.notebook(notebook).path)).cells


def stops(course, which="stops"):
    """The route's stops (``which="assumes"``: what it assumes), each notebook's set-up (``heading=None``) before its
    first section."""
    entries = course.fast_path["stops"] if which == "stops" else course.fast_path["assumes"]
    found, opened = [], set()
    for entry in entries:
        stem = course.notebook(entry["notebook"]).stem
        if stem not in opened:
            found.append(Stop(stem, None, ""))
            opened.add(stem)
        found.append(Stop(stem, entry["heading"], entry.get("gives", "")))
    return found


def stop_range(cells, stop):
    """``(first cell, end)`` of a stop: the set-up (the cells above the first ``##`` heading), or the section that starts
    with ``stop.heading``."""
    found = spans(cells)
    if stop.heading is None:
        return 0, next((start for level, _, start, _ in found if level == 2), len(cells))
    matches = [(start, end) for _, title, start, end in found if title.startswith(stop.heading)]
    if len(matches) != 1:
        raise SystemExit(f"course.toml's fast path names the heading {stop.heading!r} of {stop.notebook}, which matches "
                         f"{len(matches)} headings: name one exactly")
    return matches[0]


def title(course, stop):
    """The full heading a stop starts at ("set-up" for a notebook's set-up)."""
    if stop.heading is None:
        return "set-up"
    (found,) = {title for _, title, _, _ in spans(notebook_cells(course, stop.notebook)) if title.startswith(stop.heading)}
    return found


def route(course, which="stops"):
    """``[(stop, [cell indices])]`` in the learner's edition, the route's own cell left out."""
    found = []
    for stop in stops(course, which):
        cells = notebook_cells(course, stop.notebook)
        start, end = stop_range(cells, stop)
        found.append((stop, [i for i in range(start, end) if not cells[i].source.startswith(FAST_PATH_MARK)]))
    return found


def runs(course, which="stops"):
    """``{notebook stem: [cell indices]}``: what the route runs in each notebook's kernel, in the notebook's order."""
    found = {}
    for stop, indices in route(course, which):
        found.setdefault(stop.notebook, set()).update(indices)
    return {name: sorted(indices) for name, indices in found.items()}


def minutes(course, which="stops", measured=None):
    """``([(stop, minutes)], total)``: each stop's cells read with the reading model (its share of its notebook's
    measured run time included), plus MINUTES_PER_JUMP where the reader has to find its place (:func:`jumps`)."""
    measured = measured or run_times.load(course.root)
    found, ranges = [], []
    for stop in stops(course, which):
        cells = notebook_cells(course, stop.notebook)
        start, end = stop_range(cells, stop)
        solution = course.root / "solutions" / f"{stop.notebook}.py"
        result = span_estimate(cells, start, end, solution.read_text() if solution.exists() else "",
                               run_times.seconds(measured, stop.notebook))
        jumped = jumps([*ranges, (stop.notebook, start, end)]) - jumps(ranges)
        found.append((stop, round(result.total + jumped * MINUTES_PER_JUMP, 1)))
        ranges.append((stop.notebook, start, end))
    return found, round(sum(m for _, m in found), 1)


def _cite(course, stop, here):
    return (f"[{stop.notebook[:2]}]({stop.notebook}.ipynb) " if stop.notebook != here else "") + f"«{title(course, stop)}»"


def fast_path_text(course, here, measured=None):
    """The markdown cell that shows the route below the title of ``here`` (a notebook stem of ``marked_in``)."""
    found, total = minutes(course, "stops", measured)
    _, assumed = minutes(course, "assumes", measured)
    merged, set_up = [], 0.0
    for stop, stop_minutes in found:
        if stop.heading is None:  # a notebook's set-up: its minutes go with the first section read there
            set_up = stop_minutes
        elif stop.gives or not merged:
            merged.append(([stop], stop.gives, stop_minutes + set_up, set_up > 0))
            set_up = 0.0
        else:
            merged[-1] = (merged[-1][0] + [stop], merged[-1][1], merged[-1][2] + stop_minutes, merged[-1][3])
    lines = [FAST_PATH_MARK, f"**PINN fast path, about {round(total)} minutes.** Came here because a PINN runs out of "
             "memory on second derivatives? Open each notebook below, run its set-up (the cells above its first section), "
             "then run and read only these sections, in order (*Shift+Enter* through each):", ""]
    for number, (group, gives, group_minutes, with_set_up) in enumerate(merged, start=1):
        where = " and ".join(_cite(course, stop, here) for stop in group)
        lines.append(f"{number}. {where}: {gives} (about {max(1, round(group_minutes))} min"
                     + (", with the notebook's set-up);" if with_set_up else ");"))
    lines[-1] = lines[-1].removesuffix(";") + "."
    by_notebook = {}
    for stop in stops(course, "assumes"):
        if stop.heading:
            by_notebook.setdefault(stop.notebook, []).append(f"«{stop.heading}»")
    assumes = "; ".join(f"[{name[:2]}]({name}.ipynb) " + ", ".join(found) for name, found in by_notebook.items())
    lines += ["", f"It assumes {assumes}: read those first (about {round(assumed)} minutes more) if a graph's saved "
              "tensors are new to you. The minutes come from the course's reading model (`tools/reading_model.py`), "
              "calibrated against timed read-throughs."]
    return "\n".join(lines)


def with_fast_path_cell(notebook, index, text):
    """``notebook`` with the fast path's cell ``text`` right below the title cell at ``index`` (added the first time),
    and no other cell that marks it."""
    import nbformat

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
    measured = run_times.load(course.root)
    found = {}
    for marked in course.fast_path["marked_in"]:
        path = course.notebook(marked).path
        notebook = read(path)
        text = fast_path_text(course, path.stem, measured)
        found[path] = notebook_text(with_fast_path_cell(notebook, title_cell(notebook, path.name), text))
    return found


def readme_paragraph(course, measured=None):
    """The README's paragraph on the route, with the same minutes as the cell of :func:`fast_path_text`."""
    _, total = minutes(course, "stops", measured)
    _, assumed = minutes(course, "assumes", measured)
    marked = " and ".join(f"[{course.notebook(m).id}](notebooks/{course.notebook(m).file})"
                          for m in course.fast_path["marked_in"])
    return (f"**Came with a PINN that runs out of memory on second derivatives?** Take the **PINN fast path**, about "
            f"{round(total)} minutes by the course's reading model ({round(assumed)} more for what it assumes from 01 "
            "and 02): 05's Part 1 (the price of training, the posted \"fixes\" tested, second derivatives without "
            "`create_graph` trained to the wrong answer, seed 000's own log), its Part 2 (a leaking loop, to the fixed "
            "loop), `find_leaks` on your own training step (07, section 5) and, when your step's memory is its price "
            f"and that does not fit, 06's ways to pay less. The route is at the top of {marked}, and in the "
            "[instructor guide](docs/instructors.md). Each notebook's title states its minutes section by section.")


def readme_fast_path(course):
    """The README's fast-path target."""
    path = course.root / "README.md"
    return {path: filled(path.read_text(), README_BLOCK, readme_paragraph(course), "README.md")}


def fast_path_block(course):
    """The guide's table of the route's stops and their minutes."""
    found, total = minutes(course)
    _, assumed = minutes(course, "assumes")
    rows = ["| stop | section | what it gives | minutes |", "|---|---|---|---:|"]
    for number, (stop, stop_minutes) in enumerate(found, start=1):
        where = f"«{title(course, stop)}»" if stop.heading else "set-up (the cells above the first section)"
        gives = stop.gives or ("(with the row below)" if stop.heading is None else "(with the row above)")
        rows.append(f"| {number} | {stop.notebook[:2]} {where} | {gives} | {stop_minutes:.1f} |")
    rows.append(f"| | **total**, with {MINUTES_PER_JUMP} min for each place the reader has to find | | **{total:.1f}** |")
    return ("The PINN fast path (course.toml's `[fast_path]`), for a learner who came with a PINN that runs out of memory "
            "on second derivatives; it is shown below the title of 00 and 05, with what it assumes from 01 and 02 "
            f"({assumed:.1f} minutes more). Minutes from the reading model, each stop's cells run and read:\n\n"
            + "\n".join(rows))


def main():
    course = load()
    for stop, indices in route(course):
        print(f"{stop.notebook[:2]} «{stop.heading or 'set-up'}»: cells {indices[0]}-{indices[-1]}")
    for name, indices in runs(course).items():
        missing = missing_names(notebook_cells(course, name), indices)
        print(f"{name}: {len(indices)} cells run" + (f", MISSING {missing}" if missing else ", none missing"))
    found, total = minutes(course)
    print(f"total: {total} min; assumes: {minutes(course, 'assumes')[1]} min more")
    return 0


if __name__ == "__main__":
    sys.exit(main())
