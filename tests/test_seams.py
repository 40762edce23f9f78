"""Seams: every PyTorch private lives in autograd_memory/seams/torch_internals.py and every IPython private in
autograd_memory/optional/ipython_internals.py, checked in every Python file of both packages, the tests and the
benchmarks (code only: strings and comments may name a private to explain it)."""
import io
import pathlib
import re
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]  # the repository (not from conftest: notebooks/ has one too)

INSTRUMENTS = ROOT / "instruments" / "src" / "autograd_memory"
FOLDERS = [ROOT / "course_utils", INSTRUMENTS, ROOT / "instruments" / "tests", ROOT / "tests", ROOT / "benchmarks"]
FILES = sorted({path for folder in FOLDERS for path in folder.rglob("*.py")})
TORCH_PRIVATE = re.compile(r"\btorch\._C\b|\b_python_dispatch\b|\btorch\._dynamo\b|\btorch\._functorch\b"
                           r"|\b_DisableTorchDispatch\b|\b_get_current_dispatch_mode\b|\b_top_saved_tensors_default_hooks\b"
                           r"|\._raw_saved_\w+")  # node._saved_<name> is documented (autograd mechanics, "Saved tensors")
IPYTHON_PRIVATE = re.compile(r"\b_filename_map\b")
HOMES = {TORCH_PRIVATE: INSTRUMENTS / "seams" / "torch_internals.py",
         IPYTHON_PRIVATE: INSTRUMENTS / "optional" / "ipython_internals.py"}


def code_only(path):
    """The file's code with its strings and comments blanked out (each line keeps its place)."""
    lines = path.read_text().splitlines()
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT):
            (row, col), (end_row, end_col) = token.start, token.end
            for r in range(row, end_row + 1):
                start, stop = (col if r == row else 0), (end_col if r == end_row else len(lines[r - 1]))
                lines[r - 1] = lines[r - 1][:start] + " " * (stop - start) + lines[r - 1][stop:]
    return "\n".join(lines)


def test_the_scan_covers_both_packages_the_tests_and_the_benchmarks():
    covered = {folder.name for path in FILES for folder in FOLDERS if path.is_relative_to(folder)}
    assert covered == {"course_utils", "autograd_memory", "tests", "benchmarks"} and len(FILES) > 60


@pytest.mark.parametrize("private", HOMES, ids=["torch", "ipython"])
def test_privates_live_in_their_one_module(private):
    offenders = {path.relative_to(ROOT).as_posix(): sorted({match[0] for match in private.finditer(code_only(path))})
                 for path in FILES if path != HOMES[private] and private.search(code_only(path))}
    assert not offenders, f"use {HOMES[private].name} (add a function there, with what it relies on): {offenders}"
