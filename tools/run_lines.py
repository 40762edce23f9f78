"""Every notebook's "**Runs on CPU**" line, from one record: the seconds ``data/notebooks_cpu.json`` measured for it
(``benchmarks/notebooks.py``), in one phrasing, written by `python -m tools build` (`make generate`). 00's line names
the longest notebook too, so that no notebook states another's time in other words.

    >>> record = {"provenance": {"cores_used": 2}, "notebooks": {"00_a": {"seconds": 9.0}, "05_b": {"seconds": 26.3}}}
    >>> run_line("00_a", record, longest=True)
    '**Runs on CPU** in about 9 s on 2 cores (the longest notebook, 05, in about 26 s)'
    >>> run_line("05_b", record)
    '**Runs on CPU** in about 26 s on 2 cores'
"""
import re

from tools.course import notebook_text, read
from tools.reading_model import run_times

RUN_LINE = re.compile(r"\*\*Runs on CPU\*\* in about \d+ s on \d+ cores(?: \(the longest notebook, \d+, in about \d+ s\))?")


def run_line(stem, record, longest=False):
    """The line for notebook ``stem``; ``longest``: name the course's longest notebook and its time too."""
    seconds, cores = record["notebooks"], record["provenance"]["cores_used"]
    line = f"**Runs on CPU** in about {round(seconds[stem]['seconds'])} s on {cores} cores"
    if longest:
        slowest = max(seconds, key=lambda name: seconds[name]["seconds"])
        line += f" (the longest notebook, {slowest[:2]}, in about {round(seconds[slowest]['seconds'])} s)"
    return line


def run_lines(course):
    """The run-lines target: ``{notebook: its text with its run line}``; each notebook holds exactly one (the first
    notebook's names the longest)."""
    record = run_times(course.root)
    found = {}
    for index, path in enumerate(course.paths):
        notebook = read(path)
        cells = [cell for cell in notebook.cells if cell.cell_type == "markdown" and RUN_LINE.search(cell.source)]
        if len(cells) != 1 or len(RUN_LINE.findall(cells[0].source)) != 1:
            raise SystemExit(f"{path.name}: state its run time once, as '**Runs on CPU** in about N s on 2 cores' "
                             f"(`make generate` fills in the numbers); found {len(cells)} cells with one")
        line = run_line(path.stem, record, longest=index == 0)
        cells[0].source = RUN_LINE.sub(lambda _: line, cells[0].source)
        found[path] = notebook_text(notebook)
    return found
