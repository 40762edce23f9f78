"""predict/reveal: an empty guess never fails, a wrong kind of guess says how to write it, the reveal says how far off."""
import pytest
import torch

from course_utils import GraphMemory, predict


@pytest.mark.parametrize("empty", [..., None])
def test_an_empty_guess_asks_gently_and_the_reveal_still_shows_the_answer(empty, capsys):
    prediction = predict("bytes x.exp() saves", guess=empty)
    assert "Write your guess first" in capsys.readouterr().out
    result = prediction.reveal(4000, why="exp keeps its output")
    assert result.status == "no guess" and not result.right
    assert "4.00 kB" in result.text and "exp keeps its output" in result.text


def test_a_guess_against_a_real_meter_reading():
    x = torch.ones(1000, requires_grad=True)
    guess = predict("bytes x.exp() saves", guess=x.numel() * x.element_size())
    with GraphMemory() as graph:
        y = x.exp()
    result = guess.reveal(graph.bytes, why="exp keeps its output")
    assert result.status == "exact" and result.right and result.ratio == 1.0
    del y


@pytest.mark.parametrize("guess, measured, status, words", [
    (8000, 4000, "off", "2.0x too high"),
    (1000, 4000, "off", "4.0x too low"),
    (4200, 4000, "close", "(5% away)"),
    (4020, 4000, "close", "(0.5% away)"),          # not "within 0%"
    (4_000_000, 4000, "off", "(1,000x too high)"),  # not "1000.0x" or "1e+03x"
    (40, 4000, "off", "(100x too low)"),
    (0, 4000, "off", "too low"),
    (10, 0, "off", "it is zero"),
    (0, 0, "exact", "exactly"),
    (-4000, 4000, "off", "wrong sign"),
])
def test_how_far_off(guess, measured, status, words):
    result = predict("q", guess=guess).reveal(measured)
    assert result.status == status and words in result.text, result.text


def test_factors_are_written_out():
    guess = predict("speed-up", guess=1000, unit="x")
    assert "1,000x" in guess.ask() and "e+" not in guess.reveal(2.5).text
    assert "2.5x" in predict("speed-up", guess=2.5, unit="x").ask()


def test_choices():
    assert predict("grad_fn?", guess="no", choices=("yes", "no")).reveal("no").status == "exact"
    wrong = predict("grad_fn?", guess="yes", choices=("yes", "no")).reveal("no", why="no_grad records nothing")
    assert wrong.status == "off" and "[OFF]" in wrong.text and "no_grad records nothing" in wrong.text


def test_a_wrong_kind_of_guess_says_how_to_write_it():
    with pytest.raises(TypeError, match="guess=4000"):
        predict("bytes", guess="4 kB")
    with pytest.raises(TypeError, match="a number"):
        predict("bytes", guess=True)
    with pytest.raises(ValueError, match="one of them"):
        predict("grad_fn?", guess="maybe", choices=("yes", "no"))
    with pytest.raises(ValueError, match="unit must be"):
        predict("bytes", guess=1, unit="MB")


def test_units():
    assert "3x" in predict("factor", guess=3, unit="x").ask()
    assert "1,234" in predict("count", guess=1234, unit="number").ask()


def test_a_cell_ending_in_reveal_shows_the_verdict_once(capfd):
    """In IPython (as in a notebook), the last expression's value is displayed: the printed verdict must not repeat."""
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    shell.run_cell("from course_utils import predict\nguess = predict('bytes', guess=4000)")
    capfd.readouterr()
    shell.run_cell("guess.reveal(4000, why='exp keeps its output')")
    shown = capfd.readouterr().out
    assert shown.count("exp keeps its output") == 1, f"the verdict should show once; the cell showed:\n{shown}"


@pytest.mark.parametrize("empty", [..., None])
def test_in_lecture_mode_an_empty_guess_asks_the_room_and_the_reveal_shows_the_answer_without_a_nag(empty, capsys):
    """The lecture's notebooks run before class with every guess empty: the slide asks the question, and the reveal
    reads as a measurement, not as "next time write your guess"."""
    from course_utils import lecture_style

    lecture_style()
    try:
        prediction = predict("bytes x.exp() saves", guess=empty)
        asked = capsys.readouterr().out
        result = prediction.reveal(4000, why="exp keeps its output")
    finally:
        lecture_style(False)
    assert asked.startswith("Predict: bytes x.exp() saves?") and "guess=" not in asked, asked
    assert result.text.startswith("[MEASURED] bytes x.exp() saves: the meter read 4.00 kB."), result.text
    assert "Next time" not in result.text and "NO GUESS" not in result.text and "exp keeps its output" in result.text
    assert result.status == "no guess"
