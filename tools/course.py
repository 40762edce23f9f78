"""The course as ``course.toml`` declares it: its notebooks, the lecture path and its condensed cut, the PINN fast
path, the editions' folders and the Colab set-up; with each notebook read once (:func:`read`).

    >>> course = load()
    >>> [notebook.id for notebook in course.notebooks][:2], course.notebooks[1].stem
    (['00', '01'], '01_graph_lifecycle')
    >>> course.lecture_path[1]
    Row(notebook='00', section='Step 2 — read your first meter', mode='live', minutes=4, note='')
"""
import copy
import dataclasses
import functools
import pathlib
import re
from typing import NamedTuple

import nbformat

from tools.project import MANIFEST, ROOT, manifest

MODES = ("live", "second", "homework", "skip")
# How a notebook of the course is written (docs/writing.md), as the tools read it:
NOTES_MARK = "**Speaker notes.**"
SETUP_MARK = "# Setup for Google Colab"
TIME_LINE = re.compile(r"\*\*Time:\*\* about (\d+) minutes(?: \(by section: [^)\n]*\))?\.")
PROMPT = re.compile(r"\*\*Predict(?::\*\*|\*\*)")
HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*$", re.M)
CHECKER_CALL = re.compile(r"\bcheck_\w+\(")
FAST_PATH_MARK = "<!-- fast-path: written by `make generate` -->"  # its cell is a route, not content
ROUTE_CELL = "<!-- fast-path:"  # the route's cell, whichever tool wrote it (a version in git history says its own name)
IMPORTED = ("course_utils", "instruments/src")  # the code the notebooks import: what their readings come from


def imported_code(root=ROOT):
    """Every Python file of the code the notebooks import (:data:`IMPORTED`), in path order."""
    return [path for folder in IMPORTED for path in sorted((pathlib.Path(root) / folder).rglob("*.py"))]


@dataclasses.dataclass(frozen=True)
class Notebook:
    """One ``[[notebooks]]`` entry: its two-digit ``id``, ``file`` in notebooks/, ``title`` and ``question``."""
    id: str
    file: str
    title: str
    question: str
    path: pathlib.Path

    @property
    def stem(self):
        return self.path.stem


class Row(NamedTuple):
    """A row of the lecture path: a section of a notebook, how it is taught in class, its minutes there."""
    notebook: str
    section: str
    mode: str
    minutes: int
    note: str = ""


class Cut(NamedTuple):
    """The condensed lecture's cut (course.toml's ``[lecture.condensed]``): the rows' modes it shows, the minutes of
    each notebook's title slide, the minutes left for questions and the lecture's length."""
    shown: tuple = ("live",)
    title_minutes: int = 1
    questions: int = 0
    total: int = 90


class Stop(NamedTuple):
    """A stop of the fast path: a section of a notebook, and what it gives ("" joins it to the stop above)."""
    notebook: str
    heading: str
    gives: str = ""


@dataclasses.dataclass(frozen=True)
class Course:
    """``course.toml`` at ``root``, checked against the notebooks there."""
    root: pathlib.Path
    manifest: dict

    @property
    def source(self):
        return self.root / self.manifest["editions"]["source"]

    @functools.cached_property
    def notebooks(self):
        return [Notebook(entry["id"], entry["file"], entry["title"], entry["question"], self.source / entry["file"])
                for entry in self.manifest["notebooks"]]

    @property
    def paths(self):
        return [notebook.path for notebook in self.notebooks]

    def notebook(self, id_or_stem):
        """The notebook with this id (``"05"``) or stem (``"05_laplacian_pinn"``)."""
        found = [n for n in self.notebooks if id_or_stem in (n.id, n.stem, n.file)]
        if len(found) != 1:
            raise SystemExit(f"{MANIFEST} has no single notebook {id_or_stem!r}: give one of "
                             + ", ".join(n.id for n in self.notebooks))
        return found[0]

    def folder(self, edition):
        """Where an edition goes (``[editions]``), e.g. ``folder("learner")``."""
        return self.root / self.manifest["editions"][edition]

    @functools.cached_property
    def lecture_path(self):
        return [Row(**row) for row in self.manifest["lecture"]["path"]]

    @property
    def lecture_minutes(self):
        return self.manifest["lecture"]["minutes"]

    @property
    def condensed_modes(self):
        return tuple(self.manifest["lecture"]["condensed"]["modes"])

    @property
    def cut(self):
        """The condensed lecture's cut (``[lecture.condensed]``), as :class:`Cut`."""
        condensed = self.manifest["lecture"]["condensed"]
        return Cut(self.condensed_modes, condensed["title_minutes"], condensed["questions"], self.lecture_minutes)

    def lecture_notebooks(self):
        """The notebooks the lecture path names, whatever their rows' modes."""
        named = {row.notebook for row in self.lecture_path}
        return [n.path for n in self.notebooks if n.id in named]

    def live_notebooks(self):
        """The notebooks the condensed lecture shows: those with a row of a condensed mode."""
        shown = {row.notebook for row in self.lecture_path if row.mode in self.condensed_modes}
        return [n.path for n in self.notebooks if n.id in shown]

    @property
    def fast_path(self):
        return self.manifest["fast_path"]

    @property
    def stops(self):
        return [Stop(**stop) for stop in self.fast_path["stops"]]

    @property
    def colab(self):
        return self.manifest["colab"]

    @property
    def branch(self):
        return self.manifest["course"]["branch"]

    def check(self):
        """A SystemExit that says what to fix when the manifest and notebooks/ disagree."""
        listed = {n.file for n in self.notebooks}
        on_disk = {p.name for p in self.source.glob("[0-9][0-9]_*.ipynb")}
        if on_disk - listed:
            raise SystemExit(f"{sorted(on_disk - listed)} in {self.source.name}/ but not in {MANIFEST}: add a "
                             "[[notebooks]] entry (id, file, title, question) for each")
        if listed - on_disk:
            raise SystemExit(f"{MANIFEST} lists {sorted(listed - on_disk)}, which {self.source.name}/ lacks")
        ids = [n.id for n in self.notebooks]
        if ids != sorted(set(ids)) or any(n.file[:2] != n.id for n in self.notebooks):
            raise SystemExit(f"{MANIFEST}'s notebooks: each id is its file's first two digits, in order, once")
        for row in self.lecture_path:
            if row.mode not in MODES or row.notebook not in ids:
                raise SystemExit(f"{MANIFEST} [lecture] path: {row} needs a mode of {MODES} and a listed notebook")
        return self


def load(root=ROOT):
    """The course at ``root``, checked (:meth:`Course.check`)."""
    return Course(pathlib.Path(root), manifest(root)).check()


@functools.lru_cache(maxsize=64)
def _parsed(path, mtime_ns, size):
    return nbformat.read(path, as_version=4)


def read(path):
    """The notebook at ``path``, parsed once while the file is unchanged; a copy, free to edit."""
    stat = pathlib.Path(path).stat()
    return copy.deepcopy(_parsed(str(path), stat.st_mtime_ns, stat.st_size))


def notebook_text(nb):
    """``nb`` as ``nbformat.write`` writes it (the committed form)."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


# --- a notebook's structure -------------------------------------------------------------------------------------

def is_notes(cell):
    return cell.cell_type == "markdown" and cell.source.startswith(NOTES_MARK)


def spans(cells):
    """``[(level, title, first cell, end)]``: every heading of a notebook (speaker notes aside), each running to the
    next heading of its level or above."""
    found = []
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and not is_notes(cell):
            found += [(len(m[1]), m[2], index) for m in HEADING.finditer(cell.source)][:1]
    return [(level, title, start, next((s for l, _, s in found[i + 1:] if l <= level), len(cells)))
            for i, (level, title, start) in enumerate(found)]


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
