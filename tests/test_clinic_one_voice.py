"""One voice: for every clinic mystery of notebook 07, find_leaks and the mystery's checker agree. The report flags
the script as a leak and the checker refuses it unchanged; the one edit the report suggests (each leak row's
``remedy``: the line as the script has it, and what it should say) is what the checker accepts."""
import pytest

from autograd_memory import find_leaks
from course_utils.checks import ExerciseFailed
from course_utils.checks.nb07_find_the_leak import MYSTERIES, check_fix, mystery


def report_of(name):
    step = mystery(name)["step"]
    return find_leaks(step, steps=3, warmup=1)


@pytest.mark.parametrize("name", MYSTERIES)
def test_find_leaks_advice_is_the_fix_the_checker_accepts(name):
    report = report_of(name)
    assert report.rows, f"find_leaks finds no leak in {name}.py:\n{report}"
    unchanged = report.rows[0].code
    with pytest.raises(ExerciseFailed):
        check_fix(name, lambda: (unchanged, unchanged))
    fixes = {tuple(row.remedy.edits) for row in report.rows}
    assert len(fixes) == 1, f"every leak row of {name}.py should give the same edit (one holder, one fix):\n{report}"
    edits = list(fixes.pop())
    assert edits and all(old and new for old, new in edits), f"the advice for {name}.py names no line to edit:\n{report}"
    result = check_fix(name, lambda: edits if len(edits) > 1 else edits[0])
    assert result.passed, f"the checker refuses find_leaks' own fix for {name}.py ({edits!r}): {result}"


@pytest.mark.parametrize("name", MYSTERIES)
def test_every_edit_the_advice_offers_in_words_is_one_the_checker_accepts(name):
    # beyond its edit, the advice's words may offer another ("or set .grad = None after each step"): the checker must
    # accept that edit too, or the advice must not offer it
    for row in report_of(name).rows:
        if ".grad = None" in row.remedy.text:
            offered = ("    optimizer.step()\n", f"    optimizer.step()\n    {row.kept_in} = None\n")
            try:
                check_fix(name, lambda: offered)  # noqa: B023 - called at once
            except ExerciseFailed as refused:
                pytest.fail(f"find_leaks offers {offered[1].strip()!r} for {name}.py; the checker refuses it: {refused}")
