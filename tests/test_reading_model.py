"""The instructor guide (docs/instructors.md, tools/guide.py) and the learner times (tools/reading_model.py).

- the lecture path's live minutes sum to 90, and every heading the guide cites exists in that notebook;
- the reading model, calibrated on the versions reviewers timed, lands inside the reviewers' ranges;
- the model counts what its docstring says (a small notebook built here);
- the PINN fast path fits its bound and is marked where course.toml says;
- the README links the guide.
"""
import dataclasses
import json
import re

import nbformat
import pytest

from tools import guide as guide_blocks
from tools import reading_model as guide
from tools.blocks import filled, markers
from tools.course import NOTES_MARK, SETUP_MARK, headings, load, spans

CITATION = re.compile(r"\b(\d\d) «([^»]+)»")
MODES = {"live", "second", "skip", "homework"}


def guide_text(root):
    return (root / guide_blocks.GUIDE).read_text()


def notebook(root, number):
    (path,) = (root / "notebooks").glob(f"{number}_*.ipynb")
    return path


def test_the_lecture_path_fills_90_minutes_with_live_demos(root):
    course = load(root)
    rows, cut = course.lecture_path, course.cut
    assert {row.mode for row in rows} <= MODES, f"each row is one of {sorted(MODES)}"
    live = sum(row.minutes for row in rows if row.mode == "live")
    titles = cut.title_minutes * len(course.live_notebooks())
    assert live + titles + cut.questions <= course.lecture_minutes == 90, (
        f"the lecture's live demos ({live} min), its title slides ({titles}) and questions ({cut.questions}) "
        "take more than 90 minutes")
    assert all(row.minutes == 0 for row in rows if row.mode not in ("live", "second")), (
        "skipped and homework rows take no class time: give them 0 minutes")


def test_every_heading_the_guide_cites_exists_in_its_notebook(root):
    text = guide_text(root)
    cited = [(row.notebook, row.section) for row in load(root).lecture_path] + [
        (number, " ".join(heading.split())) for number, heading in CITATION.findall(text)]   # a citation may wrap
    assert len(cited) > 60, "the guide cites the lecture path's sections and each misconception's refuting section"
    missing = [(number, heading) for number, heading in cited if heading not in headings(notebook(root, number))]
    assert not missing, f"headings the guide cites that are not in the notebook (renamed?): {missing}"
    start, end = markers("lecture-path")
    outside_table = re.sub(re.escape(start) + ".*?" + re.escape(end), "", text, flags=re.S)
    unattributed = [outside_table[max(0, m.start() - 30):m.end() + 30] for m in re.finditer("«", outside_table)
                    if not re.search(r"\b\d\d $", outside_table[:m.start()])]
    assert not unattributed, f"cite a section as 'NN «heading»' so that it can be checked: {unattributed}"


def test_every_notebook_has_misconceptions_questions_and_its_generated_blocks(root):
    text = guide_text(root)
    for path in load(root).paths:
        number = path.stem[:2]
        section = re.search(rf"^## {number} · .*?(?=^## )", text, re.S | re.M)
        assert section, f"{guide_blocks.GUIDE} has no '## {number} · ...' section for {path.name}"
        where = f"{guide_blocks.GUIDE}, section '## {number} · ...'"
        for lead in ("**Discussion questions.**", "**Common misconceptions.**", "**The live demo"):
            assert lead in section[0], f"{where}: write its {lead} paragraph (CONTRIBUTING.md, 'Adding a notebook')"
        refuted = CITATION.findall(section[0].split("**Common misconceptions.**")[1].split("**The live demo")[0])
        assert refuted and all(n == number for n, _ in refuted), (
            f"{where}: each misconception cites the section of {path.name} that refutes it, as {number} «heading»")
        asked = section[0].split("**Discussion questions.**")[1].split("**Common misconceptions.**")[0]
        questions = re.findall(r"^\d\. ", asked, re.M)
        assert len(questions) == 3, f"{where}: three discussion questions (1. 2. 3.), found {len(questions)}"
        for block in ("objectives", "time", "checks"):
            assert markers(f"{block}-{number}")[0] in section[0], f"{path.name}: no generated {block} block"


def test_the_calibrated_model_lands_in_the_reviewers_ranges(root):
    record = json.loads((root / guide.CALIBRATION).read_text())
    fields = {field.name for field in dataclasses.fields(guide.Features)}
    for name, entry in record["read_throughs"].items():
        assert set(entry["features"]) == fields, (
            f"{guide.CALIBRATION} counts other features than the model: run `python -m tools.reading_model --calibrate`")
    results = guide.calibration(root)
    for name, (estimate, (low, high)) in results.items():
        assert (low, high) == guide.read_throughs(root)[name].minutes
        assert low <= estimate.total <= high, (
            f"the reading model gives {estimate.total} min for {name} as the reviewer read it; they needed {low}-{high}: "
            "change the rates in tools/reading_model.py (and say why in its docstring)")


def test_the_rates_are_the_fit_to_the_timed_read_throughs(root):
    rates = {name: getattr(guide, name) for name in guide.RATE_GRID}
    assert guide.fit(root) == rates, (
        "the rates are the ones nearest the reasoned rates that put every timed read-through inside its range: "
        "set them to what `python -m tools.reading_model` prints")
    assert {name: value for name, value in guide.REASONED.items() if rates[name] != value}, "the fit moved some rate"


def test_a_route_counts_the_cells_its_cells_need_and_its_jumps(root):
    route = guide.read_throughs(root)["fast path@0c4f881"]
    features, seconds = guide.read_through_features(route, root)
    whole, _ = guide.read_through_features(guide.ReadThrough(route.commit, (0, 0),
                                                             {"05_laplacian_pinn": None}), root)
    assert features.jumps == 4, "05 «Myth vs measured», back to «Myth 2» («Myth 3» follows it), on to «Part 2», 07 §5"
    assert 0 < features.code_lines < whole.code_lines and 0 < seconds < 60


def _cell(kind, source, **metadata):
    cell = (nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell)(source)
    cell.metadata.update(metadata)
    return cell


def test_the_model_counts_what_its_docstring_says():
    nb = nbformat.v4.new_notebook(cells=[
        _cell("code", SETUP_MARK + "\nimport sys\nsys.path"),                            # not read by learners
        _cell("markdown", "# 09 · A title\n\n**Time:** about 5 minutes. See [00](00_start_here.ipynb)."),
        _cell("markdown", NOTES_MARK + " Ask the room first.", slideshow={"slide_type": "notes"}),
        _cell("markdown", "## 1 · A section\n**Predict:** how many bytes?"),
        _cell("code", "guess = cu.predict('bytes', guess=...)\n\nx = 1"),
        _cell("markdown", "**Predict:** and now?"),                                          # answered by no call
        _cell("code", "cu.explorers.trapezoid()"),
        _cell("code", "reading = cu.explorers.trapezoid_reading(1, 2, 3)\nassert reading"),    # a check, not a panel
        _cell("code", "def answer():\n    raise NotImplementedError\n\nchecks.check_answer(answer)"),
    ])
    solution = 'def answer():\n    """Why."""\n    return 1\n\n\ndef run_checks():\n    return [check_answer(answer)]\n'
    found = guide.features(nb, solution)
    assert found == guide.Features(prose_words=19, code_lines=8, predictions=2, exercises=1, solution_lines=1, explorers=1)
    estimate = guide.Estimate(found, run_seconds=6)
    assert estimate.total == round(19 / guide.PROSE_WORDS_PER_MINUTE + 8 * guide.SECONDS_PER_CODE_LINE / 60
                                   + 2 * guide.MINUTES_PER_PREDICTION + guide.MINUTES_PER_EXERCISE
                                   + guide.MINUTES_PER_SOLUTION_LINE + guide.MINUTES_PER_EXPLORER + 0.1, 1)


def test_check_cells_are_read_under_their_section_with_their_messages(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        _cell("markdown", "# 09 · Title\n\n**Time:** about 5 minutes."),
        _cell("markdown", "## 1 · First\ntext"),
        _cell("code", "order = 2.0\nassert 1.95 < order < 2.05, f'the fit gave h^{order:.3f}'"),
        _cell("code", "if device.type == 'cuda':\n    assert False, 'CUDA only'"),
        _cell("markdown", "### A sub-section"),
        _cell("code", "for c in (1, 2):\n    assert c > 0, 'positive'"),
    ])
    path = tmp_path / "09_new.ipynb"
    nbformat.write(nb, path)
    assert guide_blocks.check_cells(path) == [("1 · First", [("1.95 < order < 2.05", "the fit gave h^{order}")]),
                                       ("A sub-section", [("c > 0", "positive")])]


def test_the_time_line_states_each_section_and_they_add_up(root):
    for path in load(root).paths:
        sections = guide.section_estimates(path, root)
        titles = [title for level, title, *_ in spans(nbformat.read(path, as_version=4).cells) if level == 2]
        assert [label for label, _ in sections] == ["intro", *titles], f"{path.name}: one entry per ## section"
        total = guide.estimate(path, root).total
        assert abs(sum(result.total for _, result in sections) - total) < 1, (
            f"{path.name}: the sections' minutes add up to the notebook's {total}")
        line = guide.time_line(path, root)
        assert line in nbformat.read(path, as_version=4).cells[1].source or line in path.read_text(), path.name


def test_a_guide_without_a_block_says_how_to_add_it(tmp_path, root):
    text = guide_text(root)
    start, end = markers("memory")
    with pytest.raises(SystemExit, match="has no <!-- memory: generated by"):
        filled(re.sub(re.escape(start) + ".*?" + re.escape(end), "", text, flags=re.S), "memory", "x",
                            guide_blocks.GUIDE)


def test_readme_links_the_guide(root):
    assert "](docs/instructors.md)" in (root / "README.md").read_text(), (
        "README's 'For instructors' should link the instructor guide: [docs/instructors.md](docs/instructors.md)")


@pytest.mark.parametrize("module", ["reading_model", "guide", "fast_path", "routes", "course", "blocks", "targets", "project",
                                    "notebook_map", "torch_table", "run_times", "setup_cell"])
def test_the_tools_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"tools.{module}"))
    assert result.attempted >= 1 and result.failed == 0, f"tools/{module}.py's examples: {result}"


def test_every_notebook_states_its_run_time_once_from_the_record_in_one_phrasing():
    from tools import run_lines, run_times

    course, record = load(), run_times.load()
    for index, path in enumerate(course.paths):
        prose = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown")
        assert run_lines.RUN_LINE.findall(prose) == [run_lines.run_line(path.stem, record, longest=index == 0)], (
            f"{path.name}: its run line, from data/notebooks_cpu.json (run `make generate`)")
        other = re.findall(r"[^.\n]*\b(?:under a minute|a minute and a half|about a minute)\b[^.\n]*", prose)
        assert not other, f"{path.name} states a run time in other words: {other}"

