"""What a lecture or a lab needs around the measurements: the lecture style (readable from the back row), pacing a
watched loop, predictions committed before a measurement, and code shown as a reader needs it.

``lecture`` (``lecture_style``), ``pacing`` (``paced``), ``predictions`` (``predict``) and ``sources`` (``source_code``,
``folded_sources``). The explorers and checkers build on these; the notebooks reach them as ``cu.*``.

>>> from course_utils.teaching.pacing import paced
>>> list(paced(range(3), seconds=0))
[0, 1, 2]
"""
__all__ = []
