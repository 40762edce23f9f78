"""How long does importing the instruments take once torch is imported? Target: under 0.3 s.

    python benchmarks/import_time.py [--rounds 7]

Each round is a fresh interpreter: it imports torch, then times importing every instrument module (the drift
guard's probes included: they run on the first import). Prints the fastest and the median of the rounds, and
``import autograd_memory`` alone (which imports not even torch).
"""
import argparse
import pathlib
import statistics
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "instruments" / "src" / "autograd_memory"
MODULES = sorted(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) for path in PACKAGE.rglob("*.py")
                 if path.stem not in ("__init__", "__main__", "magics"))  # magics: IPython's, loaded by %load_ext
TIMED = ("import time, importlib, torch\nstart = time.perf_counter()\nimport autograd_memory\nalone = time.perf_counter()\n"
         "for name in {modules!r}:\n    importlib.import_module(name)\n"
         "print(alone - start, time.perf_counter() - start)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    code = TIMED.format(modules=MODULES)
    rounds = [tuple(map(float, subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                              check=True).stdout.split())) for _ in range(args.rounds)]
    alone, everything = zip(*rounds)
    print(f"import autograd_memory alone: median {statistics.median(alone) * 1000:.1f} ms")
    print(f"every instrument module after torch ({len(MODULES)} modules): fastest {min(everything):.3f} s, "
          f"median {statistics.median(everything):.3f} s (target < 0.3 s)")
    return 0 if statistics.median(everything) < 0.3 else 1


if __name__ == "__main__":
    sys.exit(main())
