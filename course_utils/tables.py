"""One small table type for everything the course prints as rows and columns, and the mixin that shows it.

A :class:`Table` prints as aligned plain text (terminals, ``print``, doctests) and shows as a Markdown table
in a notebook, so its cells may hold Markdown (``**false**``, ```code```). :class:`ShowsAsText` gives any
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
"""
from dataclasses import dataclass, field
from typing import Optional, Sequence

__all__ = ["ShowsAsText", "Table"]


class ShowsAsText:
    """Mixin: IPython's plain-text display shows ``str(self)`` (not the dataclass repr)."""

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))


@dataclass
class Table(ShowsAsText):
    """``header`` and ``rows`` of cells (anything ``str`` accepts); ``align`` one letter per column,
    ``"l"`` or ``"r"`` (all left by default); ``caption`` a line under the table."""

    header: Sequence
    rows: list = field(default_factory=list)
    align: Optional[str] = None
    caption: str = ""

    def __post_init__(self):
        self.rows = [tuple(row) for row in self.rows]  # a generator of rows is read once, here
        self.align = self.align or "l" * len(self.header)
        if len(self.align) != len(self.header) or set(self.align) - {"l", "r"}:
            raise ValueError(f"align needs one 'l' or 'r' per column ({len(self.header)}), got {self.align!r}")
        widths = {len(row) for row in self.rows} - {len(self.header)}
        if widths:
            raise ValueError(f"every row needs {len(self.header)} cells like the header; found rows of {sorted(widths)}")

    def _cells(self) -> list:
        return [[str(cell) for cell in self.header]] + [[str(cell) for cell in row] for row in self.rows]

    def __str__(self) -> str:
        cells = self._cells()
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.header))]
        pad = {"l": str.ljust, "r": str.rjust}
        lines = ["  ".join(pad[a](cell, w) for cell, w, a in zip(row, widths, self.align)).rstrip() for row in cells]
        return "\n".join(lines + ([self.caption] if self.caption else []))

    def _repr_markdown_(self) -> str:
        escape = lambda cell: cell.replace("|", "\\|").replace("\n", " ")
        header, *rows = self._cells()
        lines = ["| " + " | ".join(map(escape, header)) + " |",
                 "|" + "|".join(":---" if a == "l" else "---:" for a in self.align) + "|"]
        lines += ["| " + " | ".join(map(escape, row)) + " |" for row in rows]
        return "\n".join(lines + (["", self.caption] if self.caption else []))
