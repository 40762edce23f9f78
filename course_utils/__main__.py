"""Command line: ``python -m course_utils check`` and ``python -m course_utils selftest [--device cpu|cuda]``."""
import argparse
import sys
from typing import Optional

__all__ = ["main"]


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_utils", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="print [OK]/[FAIL] for everything the course needs, and the instruments' probes")
    selftest = commands.add_parser("selftest", help="run fixed scenarios and compare the meters with the device's counters")
    selftest.add_argument("--device", default=None, help="cpu, cuda or mps (default: the best available)")
    selftest.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    args = parser.parse_args(argv)

    if args.command == "check":
        from autograd_memory.cli import main as instruments

        from .setup.env import check_env

        env_ok = check_env().ok
        print("\nThe PyTorch privates the instruments rely on (python -m autograd_memory check):")
        return 0 if env_ok and instruments(["check"]) == 0 else 1
    from .setup.devices import pick_device
    from .setup.selftest import run_selftest

    try:
        device = pick_device(args.device)
    except RuntimeError as error:
        print(f"selftest: {error}", file=sys.stderr)
        return 2
    return 0 if run_selftest(device=device, json_path=args.json).ok else 1


if __name__ == "__main__":
    sys.exit(main())
