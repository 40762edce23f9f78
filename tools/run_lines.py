"""Every notebook's "**Runs on CPU**" line, from one record: the seconds ``data/notebooks_cpu.json`` measured for it
(`make measure`: tools/run_times.py), in one phrasing, written by `python -m tools build` (`make generate`). 00's line names
the longest notebook too, so that no notebook states another's time in other words.

    >>> record = {"notebooks": {"00_a": {"seconds": 9.0}, "05_b": {"seconds": 26.3}}}
    >>> run_line("00_a", record, longest=True)
    '**Runs on CPU** in about 9 s on 2 cores (the longest notebook, 05, in about 26 s)'
    >>> run_line("05_b", record)
    '**Runs on CPU** in about 26 s on 2 cores'
"""
import re

from tools import run_times
from tools.course import notebook_text, read, title_cell

RUN_LINE = re.compile(r"\*\*Runs on CPU\*\* in about \d+ s on \d+ cores(?: \(the longest notebook, \d+, in about \d+ s\))?")


def run_line(stem, record, longest=False):
    """The line for notebook ``stem``; ``longest``: name the course's longest notebook and its time too."""
    line = f"**Runs on CPU** in about {round(run_times.seconds(record, stem))} s on {run_times.CORES} cores"
    if longest:
        slowest = max(record["notebooks"], key=lambda name: run_times.seconds(record, name))
        line += f" (the longest notebook, {slowest[:2]}, in about {round(run_times.seconds(record, slowest))} s)"
    return line


def run_lines(course):
    """The run-lines target: ``{notebook: its text with its run line}``; each notebook holds exactly one (the first
    notebook's names the longest), and a new notebook's title cell gains it."""
    record = run_times.load(course.root)
    found = {}
    for index, path in enumerate(course.paths):
        notebook = read(path)
        cells = [cell for cell in notebook.cells if cell.cell_type == "markdown" and RUN_LINE.search(cell.source)]
        line = run_line(path.stem, record, longest=index == 0)
        if not cells:  # a new notebook: its title cell gains the line, as the others hold it
            title = notebook.cells[title_cell(notebook, path.name)]
            title.source = title.source.rstrip("\n") + f"\n\n{line}."
        elif len(cells) > 1 or len(RUN_LINE.findall(cells[0].source)) > 1:
            raise SystemExit(f"{path.name}: states its run time {sum(len(RUN_LINE.findall(c.source)) for c in cells)} "
                             "times; keep one '**Runs on CPU** in about N s on 2 cores' line (`make generate` fills it in)")
        else:
            cells[0].source = RUN_LINE.sub(lambda _: line, cells[0].source)
        found[path] = notebook_text(notebook)
    return found
