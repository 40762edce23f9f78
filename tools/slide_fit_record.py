"""The recorded fit of the lecture's slides (data/slide_fit.json), and whether it still describes the notebooks.

    python -m tools.slide_fit --record    # (make measure) run the lecture path in lecture mode, measure it in chromium

Measuring every slide of the lecture path in chromium takes minutes, so the test suite reads this record
(tests/test_slide_fit_record.py): per lecture-path notebook (course.toml's lecture path) and window size, the slides, the
cut ones, the smallest text and the smallest graph label (as shown, or enlarged by a click), beside a fingerprint of
what the measurement depends on: each notebook's cells as RISE shows them (type, source, slide type; cells of type
``skip``, never shown, left out), the condensed lecture's one notebook likewise, and the projector stylesheet
tools/rise.css. Editing either makes the record stale
until it is measured again; tests/browser/test_projector.py measures 04 live.

>>> cell = {"cell_type": "markdown", "source": "# Title", "metadata": {"slideshow": {"slide_type": "slide"}}}
>>> hidden = dict(cell, metadata={"slideshow": {"slide_type": "skip"}})
>>> fingerprint([cell]) == fingerprint([dict(cell, id="x", outputs=[])]), fingerprint([cell]) == fingerprint([])
(True, False)
>>> fingerprint([cell, hidden]) == fingerprint([cell])
True
"""
import datetime
import hashlib
import json
import pathlib

from tools.course import ROOT
from tools.course import load as load_course
from tools.lecture_edition import LECTURE

RECORD = "data/slide_fit.json"
STYLESHEET = "tools/rise.css"
SIZES = ((1280, 720), (1920, 1080))
KEPT = ("slides", "cut", "unreachable", "wide", "min_px", "smallest_text_px", "svg_label_px", "img_scale", "cut_ids",
        "graph_slides", "graph_label_px", "zoomed_graphs")


def fingerprint(cells):
    """A SHA-256 of the cells as a slideshow shows them: type, source and slide type (not outputs, ids or counts, nor
    the cells it skips)."""
    kinds = [cell.get("metadata", {}).get("slideshow", {}).get("slide_type") for cell in cells]
    shown = [(cell["cell_type"], "".join(cell["source"]), kind) for cell, kind in zip(cells, kinds) if kind != "skip"]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()


def notebook_fingerprint(path):
    return fingerprint(json.loads(pathlib.Path(path).read_text())["cells"])


def stylesheet_fingerprint(root=ROOT):
    return hashlib.sha256((root / STYLESHEET).read_bytes()).hexdigest()


def condensed_fingerprint(root=ROOT):
    """The fingerprint of the condensed lecture, one notebook (its parts' cells and course.toml's cut)."""
    from tools.lecture_edition import condensed_lecture_text

    return fingerprint(json.loads(condensed_lecture_text(load_course(root)))["cells"])


def make(results, command, root=ROOT, condensed=None):
    """The record of ``results`` (``slide_fit.measure``'s ``{notebook file: {"WxH": summary}}``) and of the condensed
    lecture's ``condensed`` (the same, for its one notebook), per-slide data left out."""
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    def kept(found, fingerprinted):
        return {pathlib.Path(name).stem: {"source_sha256": fingerprinted(root / "notebooks" / pathlib.Path(name).name),
                                          **{size: {key: summary[key] for key in KEPT} for size, summary in by_size.items()}}
                for name, by_size in sorted(found.items())}
    return {"provenance": {"command": command, "date": date},
            "stylesheet_sha256": stylesheet_fingerprint(root),
            "notebooks": kept(results, notebook_fingerprint),
            "condensed": kept(condensed or {}, lambda path: condensed_fingerprint(root))}


def load(root=ROOT):
    return json.loads((root / RECORD).read_text())


def stale(record, root=ROOT):
    """What changed since ``record`` was measured: a list of sentences, empty when it is current."""
    found = []
    if record["stylesheet_sha256"] != stylesheet_fingerprint(root):
        found.append(f"{STYLESHEET} changed")
    wanted = {path.stem: path for path in load_course(root).lecture_notebooks()}
    for name in sorted(set(wanted) - set(record["notebooks"])):
        found.append(f"{name} is on the lecture path but not in the record")
    for name in sorted(set(record["notebooks"]) - set(wanted)):
        found.append(f"{name} is in the record but no longer on the lecture path")
    for name, path in sorted(wanted.items()):
        if name in record["notebooks"] and record["notebooks"][name]["source_sha256"] != notebook_fingerprint(path):
            found.append(f"notebooks/{path.name} changed (its cells or their slide types)")
    measured, lecture = record.get("condensed", {}), pathlib.Path(LECTURE).stem
    if set(measured) != {lecture}:
        found.append(f"the condensed lecture is one notebook ({LECTURE}); the record measured {sorted(measured)}")
    elif measured[lecture]["source_sha256"] != condensed_fingerprint(root):
        found.append("the condensed lecture changed (its notebooks' cells, slide types or cut)")
    return found
