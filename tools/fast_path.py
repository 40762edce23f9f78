"""The PINN fast path: the route through the course for a learner who arrives with a PINN that runs out of memory.

    python tools/fast_path.py     print the route: each stop, the cells it runs, its minutes by the reading model

The route is data, :data:`STOPS`: each stop is a notebook and a section of it (a heading, the section running to the
next heading of its level or above), or the notebook's set-up (``heading=None``: the cells above its first ``##``
section). A learner opens each notebook, runs the route's cells in order and reads them; nothing else. So the route
holds every cell its cells need (:func:`missing_names` finds a name a skipped cell defines;
tests/test_fast_path.py runs the route's cells alone, in order, in a fresh kernel per notebook).

It serves the three cases this audience arrives with (seed 000's): memory that climbs while the residual is computed
(05 Part 1: the price of training, and the posted "fixes" tested), second derivatives taken without ``create_graph``
(05 Part 1: that residual trained to the wrong answer), a loop that leaks (05 Part 2, to the fixed loop), then the
learner's own step under ``find_leaks`` (07 §5): growing, it names the line to fix; flat, the step's memory is its
price, and 07 §5 sends the learner to 06 «When the price itself does not fit».

>>> [stop.notebook[:2] for stop in STOPS if stop.heading is None]
['05', '07', '06']
"""
import ast
import builtins
import dataclasses
import sys

import nbformat

from editions import learner_edition
from project import ROOT

MARK = "<!-- fast-path: written by tools/instructor_guide.py --write -->"  # the box below the title of MARKED_IN


@dataclasses.dataclass(frozen=True)
class Stop:
    """A stop of the route: ``heading`` starts a section (it may be the first words of the heading); None is the
    notebook's set-up. ``gives``: what the learner gets there (None: shown together with the next stop)."""
    notebook: str
    heading: str | None
    gives: str | None = None


STOPS = (
    Stop("05_laplacian_pinn", None),
    Stop("05_laplacian_pinn", "The problem"),
    Stop("05_laplacian_pinn", "Part 1", "the posted residual read line by line: what climbs is the price of training; "
         "the posted \"fixes\" tested (Myths 1–4); second derivatives without `create_graph` trained to the wrong "
         "answer; seed 000's own log read as a price, not a leak"),
    Stop("05_laplacian_pinn", "Part 2", "a training loop that leaks, in four versions, to the fixed loop"),
    Stop("07_find_the_leak", None),
    Stop("07_find_the_leak", "5 · Bring your own code", "`find_leaks` on your own training step: if it grows, its top "
         "row names the line to fix; if it reads flat, your step's memory is its price: go on to the last stop"),
    Stop("06_which_laplacian", None),
    Stop("06_which_laplacian", "When the price itself does not fit", "five ways to pay less when the price itself "
         "does not fit, measured"),
)
# What the route assumes, to read first if it is new (each with its notebook's set-up).
ASSUMES = (
    Stop("01_graph_lifecycle", None),
    Stop("01_graph_lifecycle", "3 · `backward()` frees what the graph saved"),
    Stop("01_graph_lifecycle", "4 · The graph lives as long as something refers to its output"),
    Stop("01_graph_lifecycle", "5 · `create_graph=True`: a graph of the graph, and a cycle through `param.grad`"),
    Stop("02_no_grad_vs_detach", None),
    Stop("02_no_grad_vs_detach", "2 · `tensor.detach()`: cut one tensor out"),
)
MARKED_IN = ("00_start_here", "05_laplacian_pinn")  # where the route is shown, right below the title


def notebook_cells(name, root=ROOT):
    """The cells of ``notebooks/<name>.ipynb`` as the learner's edition has them (no speaker notes)."""
    return learner_edition(nbformat.read(root / "notebooks" / f"{name}.ipynb", as_version=4)).cells


def _headings(cells):
    """``[(level, title, cell index)]``: the first heading of each markdown cell."""
    import instructor_guide

    return [(level, title, start) for level, title, start, _ in instructor_guide.spans(cells)]


def stop_range(cells, stop):
    """``(first cell, end)`` of a stop: the set-up (every cell above the first ``##`` heading, the route's own box
    left out by :func:`route`), or the section that starts with ``stop.heading``."""
    import instructor_guide

    if stop.heading is None:
        return 0, next((start for level, _, start in _headings(cells) if level == 2), len(cells))
    found = [(start, end) for _, title, start, end in instructor_guide.spans(cells) if title.startswith(stop.heading)]
    if len(found) != 1:
        raise SystemExit(f"the fast path's stop {stop.notebook} «{stop.heading}» matches {len(found)} headings: "
                         "name one exactly")
    return found[0]


def title(stop, root=ROOT):
    """The full heading a stop starts at ("set-up" for a notebook's set-up).

    >>> title(Stop("05_laplacian_pinn", "Part 2"))
    'Part 2 · The real leaks in a training loop, and the fix'
    """
    if stop.heading is None:
        return "set-up"
    (found,) = {found for _, found, _ in _headings(notebook_cells(stop.notebook, root)) if found.startswith(stop.heading)}
    return found


def route(stops=STOPS, root=ROOT):
    """``[(stop, [cell indices])]`` in the learner edition of each stop's notebook, the route's box left out."""
    found, cache = [], {}
    for stop in stops:
        cells = cache.setdefault(stop.notebook, notebook_cells(stop.notebook, root))
        start, end = stop_range(cells, stop)
        found.append((stop, [i for i in range(start, end) if not cells[i].source.startswith(MARK)]))
    return found


def runs(stops=STOPS, root=ROOT):
    """``{notebook: [cell indices]}``: what the route runs in each notebook's kernel, in the notebook's order."""
    found = {}
    for stop, indices in route(stops, root):
        found.setdefault(stop.notebook, set()).update(indices)
    return {name: sorted(indices) for name, indices in found.items()}


def names(source):
    """``(names a cell binds, names it reads)``; a cell that is not Python (a magic) binds and reads nothing.

    >>> sorted(names("import torch\\nx = torch.ones(2)\\nprint(y)")[1])
    ['print', 'torch', 'y']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound, read


def missing_names(cells, indices):
    """``[(cell, name, the skipped cell that binds it)]``: names the chosen code cells read that no chosen cell before
    them binds, but a skipped cell above does (a ``NameError``, or a stale value, for a learner who skips it)."""
    missing, bound = [], set(dir(builtins))
    for index in indices:
        if cells[index].cell_type != "code":
            continue
        binds, reads = names(cells[index].source)
        for name in sorted(reads - bound - binds):
            binders = [i for i in range(index) if cells[i].cell_type == "code" and name in names(cells[i].source)[0]]
            if binders:
                missing.append((index, name, binders[-1]))
        bound |= binds
    return missing


def closure(cells, indices):
    """``indices`` and every cell above them that they need, directly or through each other (:func:`missing_names`)."""
    chosen = set(indices)
    while missing := missing_names(cells, sorted(chosen)):
        chosen.update(binder for _, _, binder in missing)
    return sorted(chosen)


def minutes(stops=STOPS, root=ROOT, measured=None):
    """``([(stop, minutes)], total)``: each stop read with the reading model of tools/instructor_guide.py (its share of
    its notebook's measured run time included)."""
    import instructor_guide

    measured = measured or instructor_guide.run_times(root)["notebooks"]
    found, cache = [], {}
    for stop in stops:
        cells = cache.setdefault(stop.notebook, notebook_cells(stop.notebook, root))
        start, end = stop_range(cells, stop)
        solution = root / "solutions" / f"{stop.notebook}.py"
        result = instructor_guide.span_estimate(cells, start, end, solution.read_text() if solution.exists() else "",
                                                measured[stop.notebook]["seconds"])
        found.append((stop, result.total))
    return found, round(sum(m for _, m in found), 1)


def _cite(notebook, heading, here):
    return (f"[{notebook[:2]}]({notebook}.ipynb) " if notebook != here else "") + f"«{heading}»"


def box(here, root=ROOT, measured=None):
    """The markdown cell that shows the route below the title of ``here`` (a notebook of MARKED_IN)."""
    stops, total = minutes(STOPS, root, measured)
    assumed, assumed_total = minutes(ASSUMES, root, measured)
    merged, pending = [], []
    for stop, stop_minutes in stops:
        pending.append((stop, stop_minutes))
        if stop.gives is not None:
            merged.append((pending, stop.gives))
            pending = []
    lines = [MARK, f"**PINN fast path, about {round(total)} minutes.** Came here because a PINN runs out of memory on "
             "second derivatives? Open each notebook below, run its set-up (the cells above its first section), then "
             "read and run only these sections, in order (*Shift+Enter* through each):", ""]
    for number, (group, gives) in enumerate(merged, start=1):
        where = " and ".join(_cite(stop.notebook, title(stop, root), here) for stop, _ in group if stop.heading)
        lines.append(f"{number}. {where}: {gives} (about {max(1, round(sum(m for _, m in group)))} min);")
    lines[-1] = lines[-1].removesuffix(";") + "."
    by_notebook = {}
    for stop in ASSUMES:
        if stop.heading:
            by_notebook.setdefault(stop.notebook, []).append(f"«{stop.heading}»")
    assumes = "; ".join(f"[{name[:2]}]({name}.ipynb) " + ", ".join(found) for name, found in by_notebook.items())
    lines += ["", f"It assumes {assumes}: read those first (about {round(assumed_total)} minutes more) if a graph's "
              "saved tensors are new to you. The minutes come from the course's reading model "
              "(`tools/instructor_guide.py`)."]
    return "\n".join(lines)


def readme_block(root=ROOT, measured=None):
    """The README's paragraph on the route, with the same minutes as the box (:func:`box`)."""
    _, total = minutes(STOPS, root, measured)
    _, assumed = minutes(ASSUMES, root, measured)
    return (f"**Came with a PINN that runs out of memory on second derivatives?** Take the **PINN fast path**, about "
            f"{round(total)} minutes by the course's reading model ({round(assumed)} more for what it assumes from 01 and "
            "02): 05's Part 1 (the price of training, the posted \"fixes\" tested, second derivatives without "
            "`create_graph` trained to the wrong answer, seed 000's own log), its Part 2 (a leaking loop, to the fixed "
            "loop), `find_leaks` on your own training step (07, section 5) and, when your step's memory is its price "
            "and that does not fit, 06's ways to pay less. The route is at the top of "
            "[00](notebooks/00_start_here.ipynb) and [05](notebooks/05_laplacian_pinn.ipynb), and in the "
            "[instructor guide](docs/instructors.md). Each notebook's title states its minutes section by section.")


def main():
    for stop, indices in route():
        print(f"{stop.notebook[:2]} «{stop.heading or 'set-up'}»: cells {indices[0]}-{indices[-1]}")
    for name, indices in runs().items():
        missing = missing_names(notebook_cells(name), indices)
        print(f"{name}: {len(indices)} cells run" + (f", MISSING {missing}" if missing else ", none missing"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
