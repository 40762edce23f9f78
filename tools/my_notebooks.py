"""Your own copies of the notebooks, in my_notebooks/: `make lab` opens these, so `git pull` never conflicts.

    python -m tools.my_notebooks                                  copy the notebooks you have no copy of yet
    python -m tools.my_notebooks --fresh 01_graph_lifecycle       a fresh copy of one (yours is kept, renamed)
    python -m tools.my_notebooks --lecture                        the lecturer's copies, in lecture_notebooks/
    python -m tools.my_notebooks --condensed                      the condensed lecture as one notebook (the
                                                                  lecture path's live sections on slides, its
                                                                  notebooks in order): lecture_condensed/lecture.ipynb

my_notebooks/ holds the learner's edition (no speaker notes, tools/editions.py); lecture_notebooks/, which
`make present` opens, holds the lecture edition (speaker notes included, each live section's minutes in its
notes: tools/lecture_edition.py), and lecture_condensed/lecture.ipynb (`make present CONDENSED=1`) the condensed
lecture, one notebook: one slideshow, one kernel.
Copies are never overwritten: a notebook added by an update is copied the next time `make lab` starts, and
one that changed reaches you only when you ask for a fresh copy. The folders sit next to notebooks/, so a
copy finds the course exactly as the original does.
"""
import argparse
import datetime
import sys

from tools.course import ROOT, load
from tools.editions import learner_text
from tools.lecture_edition import LECTURE, condensed_lecture_text, lecture_text


def _copy(notebook, target, lecture):
    if lecture:
        target.write_text(lecture_text(load(notebook.parents[1]), notebook))
    else:
        target.write_text(learner_text(notebook))


def _keep(path, now=None):
    """Rename your copy at ``path`` to ``<stem>.<time>.ipynb``; return its new path (None when there is none)."""
    if not path.exists():
        return None
    stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")
    return path.rename(path.with_name(f"{path.stem}.{stamp}.ipynb"))


def copy_missing(course, mine, lecture=False, condensed=False):
    """Copy every notebook of ``course`` that ``mine`` lacks (the learner's edition unless ``lecture``; with
    ``condensed`` the condensed lecture, one notebook: tools/lecture_edition.py's ``LECTURE``); return the names
    copied."""
    mine.mkdir(exist_ok=True)
    if condensed:
        if (mine / LECTURE).exists():
            return []
        (mine / LECTURE).write_text(condensed_lecture_text(load(course.parent)))
        return [LECTURE]
    copied = []
    for notebook in load(course.parent).paths:
        if not (mine / notebook.name).exists():
            _copy(notebook, mine / notebook.name, lecture)
            copied.append(notebook.name)
    return copied


def fresh_copy(name, course, mine, now=None, lecture=False, condensed=False):
    """Replace your copy of one notebook with the course's current one; yours is kept as ``<name>.<time>.ipynb``.

    ``name`` may be the file name, its stem, or its two-digit number (``condensed``: the one condensed lecture, whatever
    ``name``). Returns the kept file's path (None when you had no copy).
    """
    mine.mkdir(exist_ok=True)
    if condensed:  # the condensed lecture is one notebook
        kept = _keep(mine / LECTURE, now)
        copy_missing(course, mine, condensed=True)
        return kept
    paths = load(course.parent).paths
    matches = [p for p in paths if name in (p.name, p.stem, p.name[:2])]
    if len(matches) != 1:
        known = ", ".join(p.stem for p in paths)
        raise SystemExit(f"no single notebook called {name!r}: give one of {known} (or its number)")
    notebook = matches[0]
    kept = _keep(mine / notebook.name, now)
    _copy(notebook, mine / notebook.name, lecture)
    return kept


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fresh", metavar="NOTEBOOK", help="a fresh copy of this notebook (e.g. 01_graph_lifecycle)")
    parser.add_argument("--lecture", action="store_true", help="the lecture edition, in lecture_notebooks/")
    parser.add_argument("--condensed", action="store_true",
                        help="the condensed lecture, one notebook: lecture_condensed/lecture.ipynb")
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
