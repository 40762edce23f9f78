"""Predictions written in code: commit a guess *before* the measurement, then see how far off it was.

A notebook's predict cell holds ``guess=...``; the learner replaces ``...`` with a number (or one
of the offered answers) and runs it. After the measurement, ``reveal`` compares the guess with
what the meter read and says why the meter read that, in the checkers' voice::

    exp_saves = predict("bytes x.exp() saves for backward", guess=...)   # the predict cell
    ...                                                                     # the measurement
    exp_saves.reveal(graph.bytes, why="exp's derivative is exp: it keeps its output")

An empty guess (``...`` or ``None``) never fails a notebook: ``predict`` asks gently for one, and
``reveal`` still shows the answer, so the notebook runs top to bottom under nbval. In lecture mode (``make present``,
whose notebooks run before class) an empty guess asks the room instead, and the reveal reads "[MEASURED] ...".

>>> p = predict("bytes x.exp() saves", guess=8000)
Your guess for 'bytes x.exp() saves': 8.00 kB. Now run the measurement.
>>> result = p.reveal(4000, why="exp keeps its output, 1,000 float32")
[OFF] bytes x.exp() saves: you guessed 8.00 kB, the meter read 4.00 kB (2.0x too high). Why: exp keeps its output, 1,000 float32.
>>> result.status, result.ratio
('off', 2.0)
>>> _ = predict("does y have a grad_fn?", guess=..., choices=("yes", "no"))  # doctest: +ELLIPSIS
Write your guess first: replace the ... in guess=... with one of 'yes', 'no' and run this cell again (the notebook ...
"""
import math
from dataclasses import dataclass

from autograd_memory import format_bytes

from . import lecture

__all__ = ["predict", "Prediction", "Reveal", "UNITS"]

def _times(value):
    """A factor as a reader writes it: ``_times(2.5)`` is '2.5x', ``_times(1000)`` is '1,000x' (not '1e+03x')."""
    return f"{value:,.0f}x" if abs(value) >= 100 else f"{value:.3g}x"


def _percent(fraction):
    """A relative miss with the digits that show it: ``_percent(0.005)`` is '0.5%', ``_percent(0.048)`` '4.8%'."""
    return f"{fraction * 100:.2g}%"


UNITS = {  # unit -> how a value in it is written
    "bytes": format_bytes,
    "number": lambda value: f"{value:,}" if isinstance(value, int) else f"{value:.4g}",
    "x": _times,
}
CLOSE = 0.10  # a numeric guess within 10 % of the measurement is "close"


def _is_empty(guess):
    return guess is None or guess is Ellipsis


@dataclass(frozen=True)
class Reveal:
    """What :meth:`Prediction.reveal` found: ``status`` is ``"exact"``, ``"close"``, ``"off"`` or ``"no guess"``."""

    question: str
    guess: object
    measured: object
    status: str
    text: str
    ratio: float = None  # guess / measured, for numbers

    @property
    def right(self):
        return self.status in ("exact", "close")

    def __str__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)

    def _ipython_display_(self):
        """Nothing: :meth:`Prediction.reveal` printed the text already (a cell ending in ``.reveal(...)`` would
        otherwise show the verdict twice). ``print(result)`` shows it again."""


class Prediction:
    """A committed guess. Made by :func:`predict`; :meth:`reveal` it once the meter has spoken."""

    def __init__(self, question, guess, unit="bytes", choices=None, tolerance=CLOSE):
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(map(repr, UNITS))}, got {unit!r}")
        if choices is not None:
            choices = tuple(choices)
            if not _is_empty(guess) and guess not in choices:
                raise ValueError(f"your guess {guess!r} for {question!r} is not one of the answers offered: "
                                 f"{', '.join(map(repr, choices))}. Pick one of them, e.g. guess={choices[0]!r}.")
        elif not _is_empty(guess) and (isinstance(guess, bool) or not isinstance(guess, (int, float))):
            raise TypeError(f"your guess for {question!r} should be a number ({unit}), got {guess!r}: "
                            f"write it as e.g. guess=4000 (no quotes, no units).")
        self.question, self.guess, self.unit, self.choices, self.tolerance = question, guess, unit, choices, tolerance

    @property
    def empty(self):
        return _is_empty(self.guess)

    def _format(self, value):
        if self.choices is not None or not isinstance(value, (int, float)) or isinstance(value, bool):
            return repr(value)
        return UNITS[self.unit](value)

    def ask(self):
        """The line the predict cell prints: in lecture mode (:func:`~course_utils.teaching.lecture.is_on`, the
        notebooks run before class with every guess empty) an empty guess asks the room the question."""
        offered = f" ({' / '.join(map(str, self.choices))})" if self.choices is not None else ""
        if self.empty and lecture.is_on():
            return f"Predict: {self.question.rstrip('?')}?{offered} Commit a guess, then run the measurement."
        if self.empty:
            wanted = (f"one of {', '.join(map(repr, self.choices))}" if self.choices is not None
                      else f"a number ({self.unit})")
            return (f"Write your guess first: replace the ... in guess=... with {wanted} and run this cell again "
                    "(the notebook runs on without it).")
        return f"Your guess for {self.question!r}: {self._format(self.guess)}. Now run the measurement."

    def reveal(self, measured, why=""):
        """Compare the guess with ``measured`` (what the meter read); print and return a :class:`Reveal`.

        ``why`` explains the measured value; it is shown whatever the guess was.
        """
        because = f" Why: {why.rstrip('.')}." if why else ""
        shown = self._format(measured)
        if self.empty and lecture.is_on():  # the room guessed aloud: the measurement, no nag
            return self._say(measured, "no guess", f"[MEASURED] {self.question}: the meter read {shown}.{because}")
        if self.empty:
            return self._say(measured, "no guess", f"[NO GUESS] {self.question}: the meter read {shown}.{because} "
                             "Next time write your guess in the predict cell before you run the measurement.")
        if self.choices is not None:
            status = "exact" if self.guess == measured else "off"
            verdict = "[RIGHT]" if status == "exact" else "[OFF]"
            return self._say(measured, status, f"{verdict} {self.question}: you said {self._format(self.guess)}, "
                                               f"the meter says {shown}.{because}")
        ratio = self.guess / measured if measured else (1.0 if self.guess == 0 else math.inf)
        if self.guess == measured:
            status, how = "exact", "exactly"
        elif abs(ratio - 1) <= self.tolerance:
            status, how = "close", f"{_percent(abs(ratio - 1))} away"
        elif measured == 0:
            status, how = "off", "it is zero"
        else:
            status = "off"
            factor = lambda r: f"{r:.1f}x" if r < 10 else _times(r)
            how = (f"{factor(ratio)} too high" if ratio > 1 else f"{factor(1 / ratio)} too low" if ratio > 0
                   else "too low: it is not zero" if ratio == 0 else "wrong sign")
        verdict = {"exact": "[EXACT]", "close": "[CLOSE]", "off": "[OFF]"}[status]
        return self._say(measured, status, f"{verdict} {self.question}: you guessed {self._format(self.guess)}, the meter "
                                           f"read {shown} ({how}).{because}", ratio)

    def _say(self, measured, status, text, ratio=None):
        result = Reveal(self.question, self.guess, measured, status, text, ratio)
        print(text)
        return result

    def __repr__(self):
        return f"<Prediction {self.question!r}: {'no guess yet' if self.empty else self._format(self.guess)}>"


def predict(question, guess, unit="bytes", choices=None, tolerance=CLOSE):
    """Commit ``guess`` for ``question`` before you measure; returns a :class:`Prediction` to ``reveal`` later.

    ``guess``: a number in ``unit`` (``"bytes"``, ``"number"`` or ``"x"`` for a factor), or one of
    ``choices`` (e.g. ``("yes", "no")``); ``...`` or ``None`` means "not written yet". A wrong kind of
    guess (a string where a number is asked, an answer not offered) raises an error that says how to
    write it. ``tolerance``: the relative distance still called close (10 %).
    """
    prediction = Prediction(question, guess, unit, choices, tolerance)
    print(prediction.ask())
    return prediction
