"""The formats: how the instruments write what they measure, for people.

``units`` (``format_bytes``, the one format for sizes), ``tables`` (``Table``: aligned text in a terminal, Markdown
in a notebook) and ``display_settings`` (text sizes, rows shown, legend entries, and the large set for a projector).
They import nothing of torch; every layer above prints through them.

>>> from autograd_memory.formats.units import format_bytes
>>> format_bytes(4000)
'4.00 kB'
"""
__all__ = []
