"""One small table type for everything the instruments print as rows and columns, and the mixin that shows it.

A :class:`Table` prints as aligned plain text (terminals, ``print``, doctests) and shows as a Markdown table
in a notebook, so its cells may hold Markdown (``**false**``, ```code```); :meth:`Table.html` writes it as HTML for
the objects that display as HTML (a report, a gauge's summary, a graph's table). :class:`ShowsAsText` gives any
object with a ``__str__`` the same look in IPython's plain-text display.

>>> table = Table(("meter", "bytes"), [("live", "4.0 kB"), ("saved", "0 B")], align="lr", caption="one step")
>>> print(table)
meter   bytes
live   4.0 kB
saved     0 B
one step
>>> print(table._repr_markdown_())
| meter | bytes |
|:---|---:|
| live | 4.0 kB |
| saved | 0 B |
<BLANKLINE>
one step

With the large display set (:func:`~autograd_memory.formats.display_settings.use_large`, which the course's
``lecture_style()`` switches on) a table *displays* (Markdown, IPython's text) only its
``key_rows``, or its first ``display_settings.TABLE_ROWS`` rows, and then a line "… N more rows"; ``str()`` stays whole.
"""
import html as html_text
from dataclasses import dataclass, field
from typing import Optional, Sequence

from . import display_settings

__all__ = ["ShowsAsText", "Table"]


class ShowsAsText:
    """Mixin: IPython's plain-text display shows ``str(self)`` (not the dataclass repr)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # IPython's printer walks the class's MRO and takes the first class that defines _repr_pretty_ *or* __repr__:
        # a dataclass subclass defines __repr__, so each subclass carries _repr_pretty_ itself.
        cls._repr_pretty_ = ShowsAsText._repr_pretty_

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))


@dataclass
class Table(ShowsAsText):
    """``header`` and ``rows`` of cells (anything ``str`` accepts); ``align`` one letter per column,
    ``"l"`` or ``"r"`` (all left by default); ``caption`` a line under the table; ``key_rows`` the indices of the
    rows that matter, the ones a lecture shows (default: the first ``display_settings.TABLE_ROWS``).

    >>> from autograd_memory.formats.display_settings import use_large
    >>> table = Table(("step", "bytes"), [(step, 4000 * step) for step in range(10)], key_rows=(0, 9))
    >>> use_large()
    >>> print(table._repr_markdown_())
    | step | bytes |
    |:---|:---|
    | 0 | 0 |
    | 9 | 36000 |
    <BLANKLINE>
    … 8 more rows: 1, 2, 3, 4, 5, 6, 7, 8
    >>> use_large(False)
    """

    header: Sequence
    rows: list = field(default_factory=list)
    align: Optional[str] = None
    caption: str = ""
    key_rows: Sequence = ()

    def __post_init__(self):
        self.rows = [tuple(row) for row in self.rows]  # a generator of rows is read once, here
        self.align = self.align or "l" * len(self.header)
        if len(self.align) != len(self.header) or set(self.align) - {"l", "r"}:
            raise ValueError(f"align needs one 'l' or 'r' per column ({len(self.header)}), got {self.align!r}")
        widths = {len(row) for row in self.rows} - {len(self.header)}
        if widths:
            raise ValueError(f"every row needs {len(self.header)} cells like the header; found rows of {sorted(widths)}")
        self.key_rows = tuple(self.key_rows)
        outside = [i for i in self.key_rows if not 0 <= i < len(self.rows)]
        if outside:
            raise ValueError(f"key_rows are row indices from 0 to {len(self.rows) - 1}; got {outside}")

    def _shown(self) -> tuple:
        """The rows to display and the line that says what was left out (lecture mode), or all rows and ""."""
        if not display_settings.is_large():
            return self.rows, ""
        keep = set(self.key_rows) if self.key_rows else set(range(display_settings.TABLE_ROWS))
        left_out = [row for i, row in enumerate(self.rows) if i not in keep]
        if not left_out:
            return self.rows, ""
        names = ", ".join(str(row[0]) for row in left_out)
        return ([row for i, row in enumerate(self.rows) if i in keep],
                f"… {len(left_out)} more row{'s' if len(left_out) > 1 else ''}: {names}")

    def _headed(self) -> bool:
        """A header of empty cells is not shown (text, HTML): a table of labelled values."""
        return any(str(cell) for cell in self.header)

    def _cells(self, rows) -> list:
        return [[str(cell) for cell in self.header]] + [[str(cell) for cell in row] for row in rows]

    def _text(self, rows, more="") -> str:
        cells = self._cells(rows)
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.header))]
        pad = {"l": str.ljust, "r": str.rjust}
        lines = ["  ".join(pad[a](cell, w) for cell, w, a in zip(row, widths, self.align)).rstrip() for row in cells]
        lines = lines if self._headed() else lines[1:]
        return "\n".join(lines + [line for line in (more, self.caption) if line])

    def __str__(self) -> str:
        return self._text(self.rows)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(self._text(*self._shown()))

    def _repr_markdown_(self) -> str:
        escape = lambda cell: cell.replace("|", "\\|").replace("\n", " ")
        rows, more = self._shown()
        header, *rows = self._cells(rows)
        lines = ["| " + " | ".join(map(escape, header)) + " |",
                 "|" + "|".join(":---" if a == "l" else "---:" for a in self.align) + "|"]
        lines += ["| " + " | ".join(map(escape, row)) + " |" for row in rows]
        return "\n".join(lines + [line for text in (more, self.caption) if text for line in ("", text)])

    def html(self, attributes: str = "", title: str = "", raw: Sequence[int] = ()) -> str:
        """The whole table as HTML (every row, as ``str()``): a header row (none if its cells are all empty), each cell
        aligned as ``align`` says and escaped, except the columns whose indices are in ``raw`` (cells that are HTML
        already: a picture), the ``caption`` under it. ``attributes`` go into the ``<table>`` tag
        (``"class='x' style='y'"``); ``title``, HTML, is a caption above it instead (the ``caption`` on its next line).

        >>> page = Table(("meter", "bytes"), [("live", "<4 kB>")], align="lr", caption="one step").html()
        >>> print(page.replace("<tbody>", "\\n<tbody>").replace("<caption", "\\n<caption"))
        <table><thead><tr><th>meter</th><th>bytes</th></tr></thead>
        <tbody><tr><td style='text-align:left'>live</td><td style='text-align:right'>&lt;4 kB&gt;</td></tr></tbody>
        <caption style='caption-side:bottom'>one step</caption></table>
        """
        side = {"l": "left", "r": "right"}
        head = "".join(f"<th>{html_text.escape(str(cell))}</th>" for cell in self.header)
        head = f"<thead><tr>{head}</tr></thead>" if self._headed() else ""
        body = "".join("<tr>" + "".join(
            f"<td style='text-align:{side[a]}'>{cell if i in raw else html_text.escape(str(cell))}</td>"
            for i, (cell, a) in enumerate(zip(row, self.align))) + "</tr>" for row in self.rows)
        caption = html_text.escape(self.caption)
        if title:  # one caption per table: the title above, the caption on its next line
            caption = f"<caption style='text-align:left'>{title}{'<br>' + caption if caption else ''}</caption>"
        elif caption:
            caption = f"<caption style='caption-side:bottom'>{caption}</caption>"
        return f"<table{' ' + attributes if attributes else ''}>{head}<tbody>{body}</tbody>{caption}</table>"
