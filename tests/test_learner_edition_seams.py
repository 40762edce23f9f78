"""The learner's edition reads on its own: no seams where the speaker notes were cut out (tools/editions.py).

`learner/` is `notebooks/` without its speaker-notes cells. What a lecture carries in its notes (the transition to the
next slide, the question put to the room) leaves a seam when the notes go: a heading whose section is another one's, a
question with no answer after it, a block printed twice, words that only make sense on a slide. Each test below finds
one kind, in every learner copy. (tests/test_seams.py is another thing: where the code's PyTorch privates live.)

A question is a ``**Predict:**`` prompt; its answer is what follows it in its own section: a code cell that measures it
before the next question or heading, and, for a guess committed in code (``guess = cu.predict(...)``, CONTRIBUTING.md),
that guess's ``guess.reveal(...)`` in the same section.
"""
import difflib
import pathlib
import re

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)
LEARNER = sorted((ROOT / "learner").glob("[0-9][0-9]_*.ipynb"))

PROMPT = re.compile(r"\*\*Predict(?::\*\*|\*\*)")
HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*$", re.M)
COMMIT = re.compile(r"^(\w+) = cu\.predict\(", re.M)
# Words a learner reading alone cannot act on: they point at a slide, a room, a projector or a live audience.
SLIDE_WORDS = re.compile(r"\b(?:slides?|the room|projector|audience|show of hands|raise your hand)\b", re.I)
REPEAT_MIN_WORDS = 30  # a paragraph this long, printed twice, is a repeated block (a short refrain, such as an
# exercise's one-line instruction under each of 07's mysteries, repeats on purpose)
REPEAT_SIMILARITY = 0.9


def cells(path):
    return nbformat.read(path, as_version=4).cells


def events(notebook_cells):
    """``[(cell index, kind, text)]`` in reading order: kind is ``heading``, ``prompt``, ``commit`` (a guess
    committed: text is its name), ``reveal`` (text: the names revealed) or ``code`` (any other code cell)."""
    found = []
    for index, cell in enumerate(notebook_cells):
        if cell.cell_type == "markdown":
            marks = [(m.start(), "heading", m[2]) for m in HEADING.finditer(cell.source)]
            marks += [(m.start(), "prompt", cell.source[m.start():m.start() + 80]) for m in PROMPT.finditer(cell.source)]
            found += [(index, kind, text) for _, kind, text in sorted(marks)]
        elif cell.cell_type == "code":
            committed = COMMIT.findall(cell.source)
            revealed = re.findall(r"\b(\w+)\.reveal\(", cell.source)
            found += [(index, "commit", name) for name in committed]
            if revealed:
                found.append((index, "reveal", " ".join(revealed)))
            if not committed:
                found.append((index, "code", ""))
    return found


def unanswered_questions(notebook_cells):
    """Each ``**Predict:**`` prompt with no code cell after it before the next prompt or heading: two questions back to
    back, or a heading between a question and what answers it."""
    found, open_prompt = [], None
    for index, kind, text in events(notebook_cells):
        if kind in ("prompt", "heading") and open_prompt:
            what = "another question" if kind == "prompt" else f"the heading «{text}»"
            found.append(f"cell {open_prompt[0]}: {open_prompt[1]!r}... is followed by {what} (cell {index}) before "
                         "any cell answers it")
            open_prompt = None
        if kind == "prompt":
            open_prompt = (index, text)
        elif kind in ("code", "reveal"):
            open_prompt = None
    return found


def misplaced_guesses(notebook_cells):
    """Each guess committed in code that is not right after its question (only markdown or other guesses between),
    never revealed, or revealed under another heading than the one it was committed under."""
    found, last, heading, committed = [], None, None, {}
    for index, kind, text in events(notebook_cells):
        if kind == "heading":
            heading = text
        elif kind == "prompt":
            last = "prompt"
        elif kind == "commit":
            if last not in ("prompt", "commit"):
                found.append(f"cell {index}: the guess {text!r} is committed with no question right before it")
            committed[text] = (index, heading)
            last = "commit"
        elif kind == "reveal":
            for name in text.split():
                if name in committed:
                    start, where = committed.pop(name)
                    if where != heading:
                        found.append(f"cell {index}: the guess {name!r} (cell {start}, under «{where}») is revealed "
                                     f"under «{heading}»")
            last = "code"
        else:
            last = "code"
    found += [f"cell {start}: the guess {name!r} is never revealed" for name, (start, _) in committed.items()]
    return found


def empty_sections(notebook_cells):
    """Headings with nothing under them before the next heading of their level or above."""
    found, marks = [], [(i, kind, text) for i, kind, text in events(notebook_cells)]
    for position, (index, kind, text) in enumerate(marks):
        if kind != "heading":
            continue
        level = len(HEADING.search(notebook_cells[index].source)[1]) if notebook_cells[index].source.startswith("#") else 0
        following = marks[position + 1] if position + 1 < len(marks) else None
        body = notebook_cells[index].source.split(text, 1)[1].strip()
        if not body and following and following[1] == "heading" and following[0] == index + 1:
            next_level = len(HEADING.search(notebook_cells[index + 1].source)[1])
            if next_level <= level:
                found.append(f"cell {index}: «{text}» has nothing under it before «{following[2]}»")
    return found


def normalized(text):
    """Text as a reader compares it: numbers and spacing left out (two copies of a block with different numbers are
    still one block printed twice)."""
    return " ".join(re.sub(r"\d[\d,.]*", "#", re.sub(r"<!--.*?-->", " ", text, flags=re.S)).lower().split())


def repeated_blocks(notebook_cells):
    """Markdown paragraphs of REPEAT_MIN_WORDS words or more that a notebook prints twice (or nearly: numbers aside,
    REPEAT_SIMILARITY alike), and code cells of three lines or more it holds twice."""
    blocks = [(index, normalized(paragraph)) for index, cell in enumerate(notebook_cells) if cell.cell_type == "markdown"
              for paragraph in re.split(r"\n\s*\n", cell.source) if len(paragraph.split()) >= REPEAT_MIN_WORDS]
    found = []
    for position, (first, text) in enumerate(blocks):
        for second, other in blocks[position + 1:]:
            matcher = difflib.SequenceMatcher(None, text, other, autojunk=False)
            if matcher.real_quick_ratio() >= REPEAT_SIMILARITY and matcher.ratio() >= REPEAT_SIMILARITY:
                found.append(f"cells {first} and {second}: {text[:70]!r}...")
    code = {}
    for index, cell in enumerate(notebook_cells):
        if cell.cell_type == "code" and len([line for line in cell.source.splitlines() if line.strip()]) >= 3:
            code.setdefault(cell.source.strip(), []).append(index)
    found += [f"cells {indices}: the same code twice" for indices in code.values() if len(indices) > 1]
    return found


def slide_words(notebook_cells):
    """Words that only make sense on a slide or in a room, in the text a learner reads (markdown, and the code with
    what it prints)."""
    return [f"cell {index}: {match[0]!r} in {cell.source[max(0, match.start() - 40):match.end() + 30]!r}"
            for index, cell in enumerate(notebook_cells)
            for match in SLIDE_WORDS.finditer(cell.source)]


SEAMS = {"unanswered questions": unanswered_questions, "misplaced guesses": misplaced_guesses,
         "empty sections": empty_sections, "repeated blocks": repeated_blocks, "slide words": slide_words}


def test_every_notebook_has_a_learner_copy():
    assert [path.name for path in LEARNER] == sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("kind", SEAMS)
@pytest.mark.parametrize("path", LEARNER, ids=[p.stem[:2] for p in LEARNER])
def test_no_seam_in_the_learners_copy(path, kind):
    found = SEAMS[kind](cells(path))
    assert not found, f"learner/{path.name}, {kind} (fix notebooks/{path.name}, then regenerate learner/):\n" + "\n".join(found)


# --- the finders themselves, on small notebooks -------------------------------------------------------------------

def _nb(*sources):
    return [nbformat.v4.new_code_cell(s[5:]) if s.startswith("code:") else nbformat.v4.new_markdown_cell(s) for s in sources]


def test_a_question_answered_in_its_section_passes():
    good = _nb("## 1 · A", "**Predict:** how many?", "code:g = cu.predict('n', guess=...)", "code:x = 1",
               "code:g.reveal(x)", "Because.", "## 2 · B")
    assert all(not finder(good) for finder in SEAMS.values())


@pytest.mark.parametrize("finder, sources", [
    (unanswered_questions, ("## 5 · A", "**Predict:** a?", "### B\n**Predict:** b?", "code:x = 1")),
    (unanswered_questions, ("**Predict:** a?", "## Next")),
    (misplaced_guesses, ("**Predict:** a?", "code:x = 1", "code:g = cu.predict('a', guess=...)", "code:g.reveal(x)")),
    (misplaced_guesses, ("## 6", "**Predict:** a?", "code:g = cu.predict('a', guess=...)", "### Explore", "code:g.reveal(1)")),
    (misplaced_guesses, ("**Predict:** a?", "code:g = cu.predict('a', guess=...)", "code:x = 1")),
    (empty_sections, ("### Myth 4", "### Myth 5", "code:x = 1")),
    (repeated_blocks, ("**Fast path, about 22 minutes.** " + "Run this notebook top to bottom, then read only these "
                       "sections of it, in order, and skip the rest of the course until you need it: " * 2, "text",
                       "**Fast path, about 26 minutes.** " + "Run this notebook top to bottom, then read only these "
                       "sections of it, in order, and skip the rest of the course until you need it: " * 2)),
    (slide_words, ("Before the next slide fits the law, write it yourself.",)),
    (slide_words, ("Ask the room.",)),
], ids=["back-to-back questions", "a heading before the answer", "guess after the measurement", "revealed elsewhere",
        "never revealed", "empty section", "a block twice", "next slide", "the room"])
def test_each_finder_finds_its_seam(finder, sources):
    assert finder(_nb(*sources))
