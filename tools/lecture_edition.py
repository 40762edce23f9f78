"""The lecture edition of a notebook, read off the lecture path (course.toml's ``[lecture]``, the one source):

- each live section's first speaker-notes cell opens with its minutes in class, e.g. ``**Speaker notes.** **In
  class: 6 min** (lecture path, from minute 8 of 90).``, for the lecturer's pace in the speaker view (RISE's, key T,
  and the decks', key S);
- **condensed** (``make present CONDENSED=1``, ``make slides CONDENSED=1``): every cell outside the path's sections
  of the modes ``[lecture.condensed]`` names (live ones) has slide type ``skip``, except each notebook's title slide;
  a section resumed after a hidden part starts a new slide. Nothing is removed, so the code still runs top to bottom:
  run all cells first, then present.

A row's section is its heading and what follows, up to the next heading of its level or above; a cell goes by the
innermost row around it (01's «3 · ...» is live, the «Going further» inside it is not). `make present` and
`make slides` write the lecture edition; the learner's edition (tools/editions.py) has no speaker notes.

    >>> import nbformat
    >>> md = lambda source, kind: nbformat.v4.new_markdown_cell(source, metadata={"slideshow": {"slide_type": kind}})
    >>> nb = nbformat.v4.new_notebook(cells=[md("# 09 · Title\\n\\n**Time:** about 5 minutes.", "slide"),
    ...     md("## 1 · Shown", "slide"), md("**Speaker notes.** Ask first.", "notes"), md("## 2 · Not", "slide")])
    >>> lecture = lecture_edition(nb, "09_x", [("09", "1 · Shown", "live", 6)], condensed=True)
    >>> [(cell.source.split("\\n")[0], cell.metadata.slideshow.slide_type)
    ...  for cell in lecture.cells]  # doctest: +NORMALIZE_WHITESPACE
    [('# 09 · Title', 'slide'), ('## 1 · Shown', 'slide'),
     ('**Speaker notes.** **In class: 6 min** (lecture path, from minute 0 of 6). Ask first.', 'notes'),
     ('## 2 · Not', 'skip')]
"""
import copy
import re

import nbformat

from tools import course
from tools.course import Cut, notebook_text, read

KEEP = "slide-keep"  # a cell's tag: on the condensed lecture's slides
MINUTES_TAG = re.compile(r"slide-(\d+)-min")  # a kept cell's tag: it opens a condensed slide of that many minutes
PHRASE = re.compile(r"<!-- slide -->(.*?)<!-- /slide -->", re.S)  # a phrase of a kept Markdown cell marked for its slide
PACE = re.compile(r"\*\*Speaker notes\.\*\* \*\*This slide: \d+ min\*\*")
TIMING = re.compile(r"\*\*In class: \d+ min\*\* \(lecture path, from minute \d+ of \d+\)\. ?")
SHOWN = {"slide", "subslide", "fragment", "-", None}  # slide types a slideshow shows (not skip, not notes)


def slide_type(cell):
    return cell.get("metadata", {}).get("slideshow", {}).get("slide_type")


def _set_slide_type(cell, kind):
    cell.metadata.setdefault("slideshow", {})["slide_type"] = kind


def timings(rows):
    """``{(notebook number, heading): (minutes, minute it starts at, minutes in all)}`` for the path's live rows, in the
    table's order.

    >>> timings([("00", "Step 2", "live", 4), ("01", "1 · A", "homework", 0), ("01", "2 · B", "live", 6)])
    {('00', 'Step 2'): (4, 0, 10), ('01', '2 · B'): (6, 4, 10)}
    """
    live = [(number, heading, minutes) for number, heading, mode, minutes, *_ in rows if mode == "live"]
    total, found, start = sum(minutes for *_, minutes in live), {}, 0
    for number, heading, minutes in live:
        found[number, heading] = (minutes, start, total)
        start += minutes
    return found


def deciding_rows(cells, name, rows):
    """For each cell, the row of the lecture path that decides it (the innermost whose section holds it) or None;
    a row whose heading ``name`` lacks raises SystemExit."""
    spans = course.spans(cells)
    deciding = [None] * len(cells)
    for row in (row for row in rows if row[0] == name[:2]):
        matches = [(start, end) for _, title, start, end in spans if title == row[1]]
        if len(matches) != 1:
            raise SystemExit(f"course.toml's lecture path names {row[0]} «{row[1]}», but {name} has "
                             f"{len(matches) or 'no'} such heading{'s' if matches else ''}: write the heading as it "
                             "stands now in the notebook (renamed or removed?)")
        ((start, end),) = matches
        for index in range(start, end):
            if deciding[index] is None or start >= deciding[index][0]:
                deciding[index] = (start, row)
    return [found and found[1] for found in deciding]


def timing(minutes, start, total):
    """What a live section's first speaker note opens with.

    >>> timing(6, 8, 90)
    '**In class: 6 min** (lecture path, from minute 8 of 90).'
    """
    return f"**In class: {minutes} min** (lecture path, from minute {start} of {total})."


def _timed_notes(cell, minutes, start, total):
    rest = TIMING.sub("", cell.source[len(course.NOTES_MARK):].lstrip(), count=1)
    cell.source = f"{course.NOTES_MARK} {timing(minutes, start, total)} {rest}".rstrip()


def _title_slide(nb, name):
    """The indices of the title cell's whole slide: up to the next cell that starts a slide."""
    first = course.title_cell(nb, name)
    end = next((i for i in range(first + 1, len(nb.cells)) if slide_type(nb.cells[i]) == "slide"), len(nb.cells))
    return set(range(first, end))


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def is_kept(cell):
    """Whether ``cell`` is marked for the condensed lecture's slides (tag ``slide-keep``)."""
    return KEEP in tags(cell)


def slide_minutes(cell):
    """The minutes of the condensed slide that ``cell`` opens (its tag ``slide-N-min``), or None: it opens none.

    >>> slide_minutes({"metadata": {"tags": ["slide-keep", "slide-2-min"]}}), slide_minutes({"metadata": {}})
    (2, None)
    """
    found = [int(match[1]) for match in map(MINUTES_TAG.fullmatch, tags(cell)) if match]
    return found[0] if found else None


def marked_text(source):
    """A kept Markdown cell as its condensed slide shows it: its headings and the phrases marked for the slide
    (``<!-- slide -->...<!-- /slide -->``, invisible elsewhere), each a paragraph; all of it when nothing is marked.

    >>> marked_text("## 2 · A\\nLong prose. <!-- slide -->The point,\\nwrapped.<!-- /slide --> More prose.")
    '## 2 · A\\n\\nThe point, wrapped.'
    >>> marked_text("Short and whole.")
    'Short and whole.'
    """
    phrases = PHRASE.findall(source)
    if not phrases:
        return source
    headings = [line for line in source.splitlines() if line.startswith("#")]
    return "\n\n".join(headings + [" ".join(phrase.split()) for phrase in phrases])


def pace(minutes, start, total):
    """What a condensed slide's speaker note opens with: its minutes, and where it sits in the lecture.

    >>> pace(2, 14, 90)
    '**This slide: 2 min** (minute 14 to 16 of 90).'
    """
    return f"**This slide: {minutes} min** (minute {start} to {start + minutes} of {total})."


def notebook_start(rows, number, cut):
    """The minute the condensed lecture reaches notebook ``number``'s title slide: every earlier notebook's title
    slide and shown rows come first, in the path's order."""
    earlier = [row for row in rows if row[0] < number and row[2] in cut.shown]
    return sum(row[3] for row in earlier) + cut.title_minutes * len({row[0] for row in earlier})


def _new_notes(nb, source, cell_id):
    cell = nbformat.v4.new_markdown_cell(source, metadata={"slideshow": {"slide_type": "notes"}})
    if nb.nbformat_minor < 5:
        del cell["id"]  # cell ids came with nbformat 4.5
    else:
        cell.id = cell_id  # the same at every run, so a copy made twice is the same file
    return cell


def lecture_edition(nb, name, rows, condensed=False, cut=Cut()):
    """A copy of ``nb`` (the notebook ``name``, e.g. ``01_graph_lifecycle``) with the live sections' minutes in their
    speaker notes and, ``condensed``, only the title slide and the sections of the ``rows`` (the course's
    ``lecture_path``) whose mode is in ``cut.shown`` on slides; where the notebook marks cells ``slide-keep``, only
    those (:func:`_marked_cut`). Idempotent."""
    nb = copy.deepcopy(nb)
    deciding, timed = deciding_rows(nb.cells, name, rows), timings(rows)
    for row in dict.fromkeys(row for row in deciding if row and row[2] == "live"):
        own = [i for i, decided in enumerate(deciding) if decided == row]
        notes = next((i for i in own if course.is_notes(nb.cells[i])), None)
        if notes is None:  # a live section without notes gets one, after its heading, for its minutes
            nb.cells.insert(own[0] + 1, _new_notes(nb, course.NOTES_MARK, f"in-class-{own[0]}"))
            deciding.insert(own[0] + 1, row)
            notes = own[0] + 1
        _timed_notes(nb.cells[notes], *timed[row[0], row[1]])
    if condensed:
        title = _title_slide(nb, name)
        inside = [index in title or bool(row and row[2] in cut.shown) for index, row in enumerate(deciding)]
        if any(map(is_kept, nb.cells)):
            return _marked_cut(nb, name, inside, rows, cut)
        hidden = False
        for cell, shown in zip(nb.cells, inside):
            if not shown:
                hidden = hidden or slide_type(cell) in SHOWN
                _set_slide_type(cell, "skip")
            elif slide_type(cell) in SHOWN:
                if hidden:  # what the hidden part's slide held is gone: this cell starts its own
                    _set_slide_type(cell, "slide")
                hidden = False
    return nb


def _marked_cut(nb, name, inside, rows, cut):
    """The condensed slides of a marked notebook: of the cells ``inside`` the cut, those tagged ``slide-keep`` (a
    Markdown cell as :func:`marked_text`, the title cell as its heading) and the speaker notes right after them. A
    kept cell tagged ``slide-N-min`` opens a slide, the others join the slide before (a fragment stays one); each
    slide's notes open with its minutes and its place in the lecture (:func:`pace`)."""
    start, cells, keeping = notebook_start(rows, name[:2], cut), [], False
    title = course.title_cell(nb, name)
    for index, (cell, shown) in enumerate(zip(nb.cells, inside)):
        if course.is_notes(cell):
            if PACE.match(cell.source):
                continue  # the pace note of an edition made before: written again below
            if not (shown and keeping):
                _set_slide_type(cell, "skip")
            else:
                rest = TIMING.sub("", cell.source[len(course.NOTES_MARK):].lstrip(), count=1)
                cell.source = f"{course.NOTES_MARK} {rest}".rstrip()  # the section's minutes: the slides' now
            cells.append(cell)
            continue
        keeping = shown and is_kept(cell)
        if not keeping:
            if slide_type(cell) != "notes":
                _set_slide_type(cell, "skip")
            cells.append(cell)
            continue
        minutes = slide_minutes(cell)
        _set_slide_type(cell, "slide" if minutes else "fragment" if slide_type(cell) == "fragment" else "-")
        if index == title:  # the title slide: its heading
            cell.source = "\n".join(line for line in cell.source.splitlines() if line.startswith("# "))
        elif cell.cell_type == "markdown":
            cell.source = marked_text(cell.source)
        cells.append(cell)
        if minutes:
            cells.append(_new_notes(nb, f"{course.NOTES_MARK} {pace(minutes, start, cut.total)}",
                                    f"pace-{len(cells)}"))
            start += minutes
    nb.cells = cells
    return nb


LECTURE = "lecture.ipynb"  # the condensed lecture as one notebook, in lecture_condensed/ (make present CONDENSED=1)


def one_lecture(parts):
    """The condensed lecture as one notebook: ``parts`` (``{notebook stem: its condensed edition}``, in the lecture's
    order) one after another, every cell of each (its hidden ones still run), so that it is one slideshow, run in one
    kernel, and one deck. Each cell id gets its notebook's number, so ids stay unique; the metadata is the first part's.

    >>> md = lambda source, kind: nbformat.v4.new_markdown_cell(source, metadata={"slideshow": {"slide_type": kind}})
    >>> parts = {f"0{n}_x": nbformat.v4.new_notebook(cells=[md(f"# 0{n}", "slide"), md("hidden", "skip")]) for n in (1, 2)}
    >>> lecture = one_lecture(parts)
    >>> [cell.source for cell in lecture.cells], slide_count(lecture)
    (['# 01', 'hidden', '# 02', 'hidden'], 2)
    """
    first = next(iter(parts.values()))
    lecture = nbformat.v4.new_notebook(metadata=copy.deepcopy(first.metadata))
    lecture.nbformat_minor = max(first.nbformat_minor, 5)
    for stem, part in parts.items():
        for index, cell in enumerate(part.cells):
            cell = copy.deepcopy(cell)
            cell.id = f"{stem[:2]}-{cell.get('id') or index}"[:64]
            lecture.cells.append(cell)
    return lecture


def condensed_lecture_text(course, paths=None):
    """The condensed lecture (:func:`one_lecture`) of the notebooks at ``paths`` (default: the course's, those the
    condensed lecture shows; executed copies keep their outputs), as the text of an .ipynb file."""
    paths = course.live_notebooks() if paths is None else paths
    return notebook_text(one_lecture({path.stem: lecture_edition(read(path), path.stem, course.lecture_path, True,
                                                                 course.cut) for path in paths}))


def lecture_text(course, path, condensed=False):
    """The lecture edition of the notebook at ``path``, as the text of an .ipynb file."""
    return notebook_text(lecture_edition(read(path), path.stem, course.lecture_path, condensed, course.cut))


def slide_count(nb):
    """The slides a slideshow of ``nb`` steps through (reveal.js's innermost sections, as nbconvert and RISE make them):
    each shown cell of type ``slide`` or ``subslide``, and the first shown cell whatever its type.

    >>> md = lambda kind: nbformat.v4.new_markdown_cell("x", metadata={"slideshow": {"slide_type": kind}})
    >>> slide_count(nbformat.v4.new_notebook(cells=[md("-"), md("fragment"), md("subslide"), md("skip"), md("slide")]))
    3
    """
    shown = [slide_type(cell) for cell in nb.cells if slide_type(cell) in SHOWN]
    return sum(1 for kind in shown[1:] if kind in ("slide", "subslide")) + bool(shown)


def condensed_summary(course):
    """``{notebook: (slides, minutes)}``: the condensed lecture's slides and minutes in class, for each notebook it
    shows."""
    rows = course.lecture_path
    editions = {path.stem: lecture_edition(read(path), path.stem, rows, True, course.cut) for path in course.live_notebooks()}
    return {stem: (slide_count(nb), sum(slide_minutes(cell) or 0 for cell in nb.cells if slide_type(cell) == "slide"))
            for stem, nb in editions.items()}


def condensed_block(course):
    """The guide's table of the condensed lecture, counted from the notebooks and the lecture path."""
    summary, cut = condensed_summary(course), course.cut
    lines = ["| notebook | slides | minutes in class |", "|---|---:|---:|"]
    lines += [f"| {name[:2]} | {slides} | {minutes} |" for name, (slides, minutes) in summary.items()]
    lines.append(f"| questions | | {cut.questions} |")
    minutes = sum(m for _, m in summary.values()) + cut.questions
    lines.append(f"| **all** | **{sum(s for s, _ in summary.values())}** | **{minutes}** of {cut.total} |")
    return ("The condensed lecture per notebook (its slides counted as its deck counts them: each slide and sub-slide; "
            "its minutes are its slides' own, from the cells that open them):\n\n" + "\n".join(lines)
            + "\n\nEach slide's speaker notes open with its minutes and its place, e.g. "
            + f"\"{pace(cut.title_minutes, 0, cut.total)}\"")
