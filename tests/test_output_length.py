"""tools/output_length.py: how many lines of text a notebook cell's output puts on the page, and the plugin that fails
an nbval cell over the limit (registered for the whole run by tests/conftest.py)."""
import doctest

from tools import output_length


def test_its_examples_hold():
    failed, tried = doctest.testmod(output_length)
    assert tried >= 3 and failed == 0


def test_the_plugin_is_registered_for_the_whole_run(pytestconfig):
    assert isinstance(pytestconfig.pluginmanager.get_plugin("amlab-output-length"), output_length.OutputLength)


def test_an_output_over_the_limit_is_counted_as_over():
    long = [{"output_type": "stream", "name": "stdout", "text": "x\n" * (output_length.MAX_LINES + 1)}]
    assert output_length.shown_lines(long) > output_length.MAX_LINES
    assert output_length.shown_lines([{"output_type": "display_data", "data": {"image/png": "..."}}]) == 0
