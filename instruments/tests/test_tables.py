"""autograd_memory.formats.tables: aligned text for terminals, Markdown for notebooks, and a clear error for a ragged
table."""
import pytest

from autograd_memory import Table
from autograd_memory.formats.tables import ShowsAsText


def test_text_columns_align_left_or_right():
    table = Table(("name", "bytes"), [("a", "1 B"), ("longer", "10.0 kB")], align="lr")
    assert str(table).splitlines() == ["name      bytes", "a           1 B", "longer  10.0 kB"]


def test_markdown_escapes_pipes_so_a_cell_stays_one_cell():
    markdown = Table(("advice",), [("a | b",)])._repr_markdown_()
    assert markdown.splitlines()[-1] == "| a \\| b |"


@pytest.mark.parametrize("rows, align, hint", [
    ([("only one cell",)], None, "every row needs 2 cells"),
    ([], "lc", "one 'l' or 'r' per column"),
])
def test_a_malformed_table_says_what_to_fix(rows, align, hint):
    with pytest.raises(ValueError, match=hint):
        Table(("a", "b"), rows, align=align)


def test_ipython_shows_the_text_form_not_the_dataclass_repr():
    pretty = pytest.importorskip("IPython.lib.pretty", reason="IPython's printer").pretty
    shown = Table(("a",), [("1",)])
    assert isinstance(shown, ShowsAsText) and pretty(shown) == str(shown)
