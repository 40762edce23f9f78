"""Set-up: what a learner runs before the course, and what the course reads from outside itself.

``env`` (``check_env``: one row per thing the course needs), ``devices`` (``pick_device``), ``selftest`` (the meters
next to the device's own counters, on the worked problems) and ``reference`` (measurements made outside the course,
from ``data/reference/``). ``python -m course_utils check`` and ``... selftest`` run them.

>>> from course_utils.setup.reference import reference_names
>>> "h200_pinn_figures" in reference_names()
True
"""
__all__ = []
