"""The notebooks under nbval (`make test` registers :class:`OutputLength` from tests/conftest.py): besides nbval's own
check that every cell runs, each code cell's output must read in place, at most MAX_LINES lines of text (pictures and
live widgets aside). Code cells are the same in the learner's edition (tools/editions.py drops only speaker notes), so
this is the learner's view. Longer outputs go into a summary, a table's key rows, or a picture.
"""
import re

import pytest

MAX_LINES = 25
_NOT_TEXT = ("image/", "application/vnd.jupyter.widget-view+json")  # what a reader sees as a picture or a widget


def html_lines(page):
    """The lines of text an HTML output shows: its table rows, paragraphs, headings, list items and the lines
    of its ``<pre>`` blocks; an inline ``<svg>`` is a picture, and a folded ``<details>`` shows one line until opened.

    >>> html_lines("<h4>after</h4><p>5 kB</p><svg><text>a</text></svg><table><tr><td>1</td></tr></table>")
    3
    >>> html_lines("<details><summary>code</summary><pre>a\\nb\\nc</pre></details>" * 2)
    2
    """
    page = re.sub(r"<svg\b.*?</svg>", "", page, flags=re.S | re.I)
    page = re.sub(r"<details\b.*?</details>", "<p>", page, flags=re.S | re.I)
    blocks = len(re.findall(r"<(?:tr|p|h[1-6]|li|br|caption)\b", page, flags=re.I))
    pre = sum(len(block.strip("\n").splitlines()) for block in re.findall(r"<pre\b[^>]*>(.*?)</pre>", page, flags=re.S | re.I))
    return blocks + pre


def shown_lines(outputs):
    """The lines of text ``outputs`` (a code cell's, as nbformat dicts) put on the page: streams, and per
    displayed value the representation a notebook shows (HTML, then Markdown, then plain text; none for a
    picture or a live widget).

    >>> shown_lines([{"output_type": "stream", "name": "stdout", "text": "a\\nb\\n"},
    ...              {"output_type": "display_data", "data": {"image/png": "...", "text/plain": "<Figure>"}},
    ...              {"output_type": "execute_result", "data": {"text/markdown": "| x |\\n|---|\\n| 1 |",
    ...                                                         "text/plain": "x\\n1"}}])
    5
    """
    lines = 0
    for output in outputs:
        if output["output_type"] == "stream":
            lines += len(output["text"].rstrip("\n").splitlines())
        elif output["output_type"] in ("display_data", "execute_result"):
            data = output.get("data", {})
            if any(mime.startswith(_NOT_TEXT) for mime in data):
                continue
            if "text/html" in data:
                lines += html_lines(data["text/html"])
            else:
                text = data.get("text/markdown") or data.get("text/plain") or ""
                lines += len(text.rstrip("\n").splitlines())
    return lines


class OutputLength:
    """A pytest plugin: fails an nbval cell whose output runs over MAX_LINES lines of text."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        outputs = getattr(item, "test_outputs", None)  # nbval's cell items keep the outputs of their run
        if call.when != "call" or not report.passed or outputs is None:
            return
        lines = shown_lines(outputs)
        if lines > MAX_LINES:
            report.outcome = "failed"
            report.longrepr = (f"{item.name}: its output runs to {lines} lines of text, over the {MAX_LINES} a reader takes "
                               f"in at a glance. Print a summary (a table's key rows, the totals, a picture) and leave "
                               f"the rest to a variable the learner can inspect.\nThe cell:\n{item.cell.source}")
