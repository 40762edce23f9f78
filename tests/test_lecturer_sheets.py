"""The lecturer's sheets (tools/lecturer_sheets.py) say what the notebooks say."""
import nbformat

from autograd_memory import LINT_RULES
from tools import lecturer_sheets
from tools.course import ROOT, is_notes, load


def test_the_cheat_sheet_has_a_rule_for_every_summary_bullet_and_stays_short():
    sheet = lecturer_sheets.cheat_sheet(load())
    for path in load().paths:
        cells = nbformat.read(path, as_version=4).cells
        start = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and lecturer_sheets.SUMMARY.search(c.source))
        summary = cells[start].source
        for cell in cells[start + 1:]:  # a long Summary goes on in the markdown cells of its next sub-slides
            if cell.cell_type != "markdown" or cell.source.startswith("#") or is_notes(cell):
                break
            summary += "\n" + cell.source
        bullets = summary.split("\n\n**Next", 1)[0].count("\n- ") + summary.startswith("- ")
        rules = lecturer_sheets.summary_rules(path)
        assert len(rules) == bullets and all(f"- {rule}" in sheet for rule in rules), path.name
    assert len(sheet.split()) < 760, "one printed page (tests/browser/test_cheat_sheet_pdf.py prints it)"


def test_the_cheat_sheet_names_every_lint_rule():
    sheet = lecturer_sheets.cheat_sheet(load())
    assert "python -m autograd_memory lint" in sheet
    assert all(f"`{code}` {rule.title}" in sheet for code, rule in LINT_RULES.items())


def test_the_worksheet_lists_every_exercise_with_its_checker_and_its_solutions_file():
    sheet = lecturer_sheets.worksheet(load())
    for path in load().paths:
        for section, checker in lecturer_sheets.exercises(path):
            assert f"| {section} | `{checker}` | `solutions/{path.stem}.py`" in sheet
        if lecturer_sheets.exercises(path):
            assert (ROOT / "solutions" / f"{path.stem}.py").exists()
    assert "clinic/running_loss.py" in sheet
