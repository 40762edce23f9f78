"""The documents stay short and the tree tells no one's machine or process: README.md at most 150 lines,
CONTRIBUTING.md at most 1,200 words, no path of a developer's machine anywhere, and no issue numbers or review
rounds in code, docs or tests (the commit log holds the history)."""
import re
import subprocess

import pytest

TEXT = (".py", ".md", ".toml", ".json", ".yml", ".yaml", ".ipynb", ".cfg", ".sh", ".txt", ".css", ".html", "Makefile", "run")
# A home or work folder of someone's machine (work, home, Users or root at the top of a path)
DEVELOPER_PATH = re.compile(r"(?<![\w.~-])/(?:work|home|Users|root)/[\w.-]")
# The project's own process: an issue's number, a review round, a ticket's number (not `--rounds N`, not a colour)
HISTORY = re.compile(r"\b[Ii]ssues? \d|(?<![\w-])[Rr]ounds? \d|(?:^|[\s(])#\d{2,}\b(?![0-9a-fA-F])(?!\s*[;}])")
SELF = "tests/test_docs.py"  # names the patterns it looks for


def _files(root):
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    return [name for name in filter(None, listed.split("\0")) if name.endswith(TEXT) and (root / name).is_file()]


def test_the_readme_is_at_most_150_lines(root):
    lines = len((root / "README.md").read_text().splitlines())
    assert lines <= 150, f"README.md has {lines} lines: keep it for the people who use the course, move the rest to docs/"


def test_contributing_is_at_most_1200_words(root):
    words = len((root / "CONTRIBUTING.md").read_text().split())
    assert words <= 1200, f"CONTRIBUTING.md has {words} words: keep layers, the build, adding a notebook, the tests"


def test_no_path_of_a_developers_machine(root):
    found = [f"{name}:{number}: {line.strip()[:100]}" for name in _files(root) if name != SELF
             for number, line in enumerate((root / name).read_text(errors="replace").splitlines(), 1)
             if DEVELOPER_PATH.search(line)]
    assert not found, "paths of someone's machine (write them relative to the repository):\n" + "\n".join(found)


@pytest.mark.parametrize("text, history", [("as issue 11's reviewer found", True), ("in round 2", True),
                                           ("see #25", True), ("color:#555", False), ('"#2e7d32"', False),
                                           ("color: #555;", False), ("--rounds 3", False),
                                           ("the issue is memory", False)])
def test_the_history_pattern(text, history):
    assert bool(HISTORY.search(text)) == history


def test_no_process_history_in_code_docs_or_tests(root):
    found = [f"{name}:{number}: {line.strip()[:100]}" for name in _files(root) if name != SELF and not name.startswith("learner/")
             for number, line in enumerate((root / name).read_text(errors="replace").splitlines(), 1)
             if HISTORY.search(line) and "upstream" not in line]
    assert not found, ("issue numbers or review rounds (the commit log holds the history; an upstream project's "
                       "tracker says 'upstream'):\n" + "\n".join(found))
