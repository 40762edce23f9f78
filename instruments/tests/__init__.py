"""The tests of autograd_memory: one file per module (a package, so that its conftest never shadows the course's)."""
