"""The course's one build command.

    python -m tools build    write every generated file from course.toml and the notebooks (`make generate`)
    python -m tools check    list what is stale, and exit 1 if anything is
    python -m tools list     the targets, in the order they are built, with what each reads
"""
import argparse
import sys

from tools import targets


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "check", "list"])
    command = parser.parse_args(argv).command
    if command == "list":
        for target in targets.TARGETS:
            print(f"{target.name}: reads {', '.join(target.inputs)}")
        return 0
    left = targets.build() if command == "build" else targets.stale()
    for name, found in left.items():
        target = next(t for t in targets.TARGETS if t.name == name)
        renew = f"run `{target.command}`" if hasattr(target, "command") else "run `make generate`"
        print(f"[{name}] stale ({renew}): " + "; ".join(found))
    if command == "build":
        print("[build] " + ("every target is current" if not left else "done, but a measured record is stale"))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
