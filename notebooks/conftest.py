"""The notebooks under nbval (`make test`): besides nbval's own check that every cell runs, each code cell's
output must read in place, at most MAX_LINES lines of text (pictures and live widgets aside). Code cells are the
same in the learner's edition (tools/editions.py drops only speaker notes), so this is the learner's view.
Longer outputs go into a summary, a table's key rows, or a picture.
"""
import pytest

MAX_LINES = 25
_NOT_TEXT = ("image/", "application/vnd.jupyter.widget-view+json")  # what a reader sees as a picture or a widget


def shown_lines(outputs):
    """The lines of text ``outputs`` (a code cell's, as nbformat dicts) put on the page: streams, and per
    displayed value the representation a notebook shows (Markdown before plain text; none for a picture).

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
            text = data.get("text/markdown") or data.get("text/plain") or ""
            lines += len(text.rstrip("\n").splitlines())
    return lines


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
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
