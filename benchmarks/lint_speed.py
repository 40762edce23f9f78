"""How long does the lint take per file, next to Python's own parser on the same files? Target: milliseconds a file.

    python benchmarks/lint_speed.py [--rounds 5]

Times ``check_file`` on every .py file and notebook of the course (the clinic, the notebooks, the solutions,
course_utils, tools and the instruments), fastest of the rounds, and ``ast.parse`` of the same sources in the same run:
the ratio says what the analysis adds to reading the file, whatever the machine's load.
"""
import argparse
import ast
import json
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "instruments" / "src"))  # the lint needs only the standard library

from autograd_memory import check_file  # noqa: E402 (after the path it is found on; the lint imports no torch)

FOLDERS = ["notebooks", "solutions", "course_utils", "tools", "instruments/src"]


def sources(path):
    if path.suffix == ".ipynb":
        return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"] if cell["cell_type"] == "code"]
    return [path.read_text()]


def fastest(run, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    files = sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*")
                   if path.suffix in (".py", ".ipynb") and ".ipynb_checkpoints" not in path.parts)
    lint = {path: fastest(lambda: check_file(str(path)), args.rounds) for path in files}
    parse = {path: fastest(lambda: [ast.parse(s) for s in sources(path)], args.rounds) for path in files}
    per_file = sorted(lint.values())
    slowest = max(lint, key=lint.get)
    print(f"{len(files)} files: median {statistics.median(per_file) * 1e3:.1f} ms a file, "
          f"slowest {lint[slowest] * 1e3:.1f} ms ({slowest.relative_to(ROOT)}), all {sum(per_file):.2f} s")
    print(f"ast.parse alone: all {sum(parse.values()):.2f} s; the lint takes {sum(per_file) / sum(parse.values()):.1f}x "
          "the parse of the same files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
