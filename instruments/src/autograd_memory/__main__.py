"""``python -m autograd_memory leaks|timeline|check``: see :mod:`autograd_memory.cli`."""
import sys

from .cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
