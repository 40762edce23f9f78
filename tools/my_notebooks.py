"""Your own copies of the notebooks, in my_notebooks/: `make lab` opens these, so `git pull` never conflicts.

    python -m tools.my_notebooks                                  copy the notebooks you have no copy of yet
    python -m tools.my_notebooks --fresh 01_graph_lifecycle       a fresh copy of one (yours is kept, renamed)
    python -m tools.my_notebooks --lecture                        the lecturer's copies, in lecture_notebooks/
    python -m tools.my_notebooks --condensed                      the lecturer's copies of the lecture path's
                                                                  notebooks, only its live sections on slides,
                                                                  in lecture_condensed/

my_notebooks/ holds the learner's edition (no speaker notes, tools/editions.py); lecture_notebooks/, which
`make present` opens, holds the lecture edition (speaker notes included, each live section's minutes in its
notes: tools/lecture_edition.py), and lecture_condensed/ (`make present CONDENSED=1`) its condensed form.
Copies are never overwritten: a notebook added by an update is copied the next time `make lab` starts, and
one that changed reaches you only when you ask for a fresh copy. The folders sit next to notebooks/, so a
copy finds the course exactly as the original does.
"""
import argparse
import datetime
import sys

from tools.course import ROOT, load
from tools.editions import learner_text
from tools.lecture_edition import lecture_text


def _copy(notebook, target, lecture, condensed):
    if lecture or condensed:
        target.write_text(lecture_text(load(notebook.parents[1]), notebook, condensed))
    else:
        target.write_text(learner_text(notebook))


def _notebooks(course, condensed):
    """The notebooks of the folder ``course`` to copy: all the manifest lists, or ``condensed``, the ones the
    condensed lecture shows."""
    found = load(course.parent)
    return found.live_notebooks() if condensed else found.paths


def copy_missing(course, mine, lecture=False, condensed=False):
    """Copy every notebook of ``course`` that ``mine`` lacks (the learner's edition unless ``lecture``; with
    ``condensed`` the lecture path's notebooks, condensed); return the names copied."""
    mine.mkdir(exist_ok=True)
    copied = []
    for notebook in _notebooks(course, condensed):
        if not (mine / notebook.name).exists():
            _copy(notebook, mine / notebook.name, lecture, condensed)
            copied.append(notebook.name)
    return copied


def fresh_copy(name, course, mine, now=None, lecture=False, condensed=False):
    """Replace your copy of one notebook with the course's current one; yours is kept as ``<name>.<time>.ipynb``.

    ``name`` may be the file name, its stem, or its two-digit number. Returns the kept file's path (None when
    you had no copy).
    """
    matches = [p for p in _notebooks(course, condensed) if name in (p.name, p.stem, p.name[:2])]
    if len(matches) != 1:
        known = ", ".join(p.stem for p in _notebooks(course, condensed))
        raise SystemExit(f"no single notebook called {name!r}: give one of {known} (or its number)")
    notebook = matches[0]
    mine.mkdir(exist_ok=True)
    kept = None
    if (mine / notebook.name).exists():
        stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")
        kept = mine / f"{notebook.stem}.{stamp}.ipynb"
        (mine / notebook.name).rename(kept)
    _copy(notebook, mine / notebook.name, lecture, condensed)
    return kept


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fresh", metavar="NOTEBOOK", help="a fresh copy of this notebook (e.g. 01_graph_lifecycle)")
    parser.add_argument("--lecture", action="store_true", help="the lecture edition, in lecture_notebooks/")
    parser.add_argument("--condensed", action="store_true",
                        help="the lecture edition with only the lecture path's live sections on slides, in lecture_condensed/")
    args = parser.parse_args(argv)
    found = load()
    mine = found.folder("condensed" if args.condensed else "lecture" if args.lecture else "mine")
    if args.fresh is not None:
        kept = fresh_copy(args.fresh, found.source, mine, lecture=args.lecture, condensed=args.condensed)
        print(f"[my_notebooks] fresh copy of {args.fresh}" + (f"; yours is kept as {kept.relative_to(ROOT)}" if kept else ""))
    copied = copy_missing(found.source, mine, lecture=args.lecture, condensed=args.condensed)
    if copied:
        print(f"[my_notebooks] your copies, to edit and run freely: {', '.join(copied)} -> {mine.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
