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


def test_html_escapes_cells_aligns_them_and_keeps_raw_columns_as_they_are():
    table = Table(("name", "picture"), [("a<b", "<svg></svg>")], align="lr", caption="x & y")
    page = table.html("class='t'", raw=(1,))
    assert page.startswith("<table class='t'><thead><tr><th>name</th><th>picture</th></tr></thead>")
    assert "<td style='text-align:left'>a&lt;b</td><td style='text-align:right'><svg></svg></td>" in page
    assert page.endswith("<caption style='caption-side:bottom'>x &amp; y</caption></table>")
    titled = table.html(title="<b>run</b>")
    assert titled.count("<caption") == 1 and "<caption style='text-align:left'><b>run</b><br>x &amp; y</caption>" in titled


def test_html_leaves_out_a_header_of_empty_cells():
    assert Table(("", ""), [("label", "1 B")]).html().startswith("<table><tbody><tr>")


def test_a_header_of_empty_cells_is_left_out_of_the_text_too():
    assert str(Table(("", ""), [("peak", "4 kB"), ("time", "1.0 ms")], align="lr")).splitlines() == [
        "peak    4 kB", "time  1.0 ms"]
