"""The students' handouts as `make slides` builds them (tools/student_handouts.py): the cheat sheet prints on one A4
page, with a rule, its leaking code, its fix and a measured number for each rule; the lab worksheet's tasks fit its
90 minutes, end in 07's clinic, and give each task room for the answer. Printed by Debian's chromium."""
import re

from tools import student_handouts
from tools.course import load


def test_the_cheat_sheet_is_one_a4_page_of_rules_with_code_and_numbers(tmp_path, root):
    counts = student_handouts.build(tmp_path, load(root), log=lambda line: None)
    page = (tmp_path / "cheat_sheet.html").read_text()
    assert counts[tmp_path / "cheat_sheet.html"] == 1, "the cheat sheet prints on one A4 page"
    rules = page.count("class='rule'")
    assert rules == len(student_handouts.RULES) >= 5
    assert page.count("<pre class='bad'>") == page.count("<pre class='good'>") == rules, "each rule has its code and fix"
    numbers = re.findall(r"<div class='number'>(.*?)</div>", page)
    assert len(numbers) == rules and all(re.search(r"\d+(\.\d+)? (k|M)?B\b", number) for number in numbers), (
        f"each rule shows the bytes the meters measured: {numbers}")
    kept, item = re.search(r"([\d.]+ k?B) kept per step with the tensor, ([\d.]+ k?B) with", page).groups()
    assert item == "0 B" and kept != "0 B", "the measured numbers say what the rule says: .item() keeps nothing"


def test_the_lab_worksheet_fits_90_minutes_and_reaches_the_clinic(tmp_path, root):
    course = load(root)
    lab, rows = course.manifest["lab"], student_handouts.lab_rows(course.manifest["lab"])
    assert rows[-1]["end"] <= lab["minutes"] == 90, f"the lab's tasks take {rows[-1]['end']} min, more than 90"
    clinic = [row for row in rows if row["notebook"] == "07"]
    assert clinic and rows[-len(clinic):] == clinic, "the lab ends in 07's clinic"
    page = student_handouts.lab_worksheet(course)
    assert page.count("class='answer'") == len(rows), "every task has room for its answer"
    assert all(f"min {row['start']}-{row['end']}" in page for row in rows), "each task shows its minutes"
