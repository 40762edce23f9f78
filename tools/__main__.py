"""The course's build and measure commands.

    python -m tools build      write every generated file from course.toml, the notebooks and the records in data/
                               (`make generate`: text from text, seconds; it runs no notebook)
    python -m tools check      list what is stale, and exit 1 if anything is (build exits 0 when only a measured record is)
    python -m tools list       the targets, in the order they are built, with what each reads
    python -m tools measure [NOTEBOOK ...]
                               execute the notebooks whose code changed and record their run times (`make measure`,
                               which then rebuilds and renews the other measured records)
"""
import argparse
import sys

from tools import course, run_times, targets

# What `python -m tools measure` renews, in order: ``(name, measure(course, only) -> names that failed)``. The other
# records `make measure` renews have commands of their own (the slide fit, the class sizing: see the Makefile).
MEASUREMENTS = [("notebook run times", run_times.measure)]


def measure(only=()):
    """Run every measurement; 1 if one refused what it measured (over budget: reported, not written)."""
    found = course.load()
    failed = {name: refused for name, run in MEASUREMENTS if (refused := run(found, only))}
    for name, refused in failed.items():
        print(f"[measure] {name}: not recorded for {', '.join(refused)} (see above)")
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "check", "list", "measure"])
    parser.add_argument("notebooks", nargs="*", help="measure: only these notebooks (id, stem or file)")
    args = parser.parse_args(argv)
    if args.notebooks and args.command != "measure":
        parser.error("only `measure` takes notebooks")
    if args.command == "measure":
        return measure(args.notebooks)
    if args.command == "list":
        for target in targets.TARGETS:
            print(f"{target.name}: reads {', '.join(target.inputs)}")
        return 0
    left = targets.build() if args.command == "build" else targets.stale()
    for name, found in left.items():
        target = next(t for t in targets.TARGETS if t.name == name)
        renew = f"run `{target.command}`" if isinstance(target, targets.Measured) else "run `make generate`"
        print(f"[{name}] stale ({renew}): " + "; ".join(found))
    if args.command == "build":  # a stale measured record is reported, not a failure: `make measure` builds after it
        print("[build] " + ("every target is current" if not left else "done; a measured record is stale: run `make measure`"))
        return 0
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
