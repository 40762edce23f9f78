"""What an instrument that runs a training step needs from it: a plain function that runs one step
when called. Generator and async functions run nothing when called, so they are refused up front,
and a call that hands back a generator or coroutine (``lambda: my_generator()``) is refused too.

>>> def stepwise():
...     yield
>>> check_step(stepwise, "find_leaks", "find_leaks(train_step)")  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
Traceback (most recent call last):
    ...
TypeError: find_leaks runs the step by calling it, but stepwise is a generator function: ... Pass a plain function
that runs one step, e.g. find_leaks(train_step); to measure a generator's work, wrap it: lambda: next(steps)
"""
import functools
import inspect
import types

__all__ = ["check_step", "call_step", "stopped_note", "step_function"]


def _kind(step):
    if inspect.isasyncgenfunction(step):
        return "an async generator function", "an async generator"
    if inspect.iscoroutinefunction(step):
        return "an async function", "a coroutine"
    if inspect.isgeneratorfunction(step):
        return "a generator function", "a generator"
    return None


def check_step(step, who, example):
    """Raise TypeError unless ``step`` is a callable that runs a step when called."""
    if not callable(step):
        raise TypeError(f"{who} needs the training step as a function to call, got {type(step).__name__}; "
                        f"e.g. {example}")
    if any(f"{kind.__module__}.{kind.__qualname__}" == "torch.nn.modules.module.Module" for kind in type(step).__mro__):
        raise TypeError(f"{who} got a model ({type(step).__name__}), not a training step: calling a model runs its forward "
                        "on an input, with no loss, backward or optimizer step. Pass a function that runs one step, "
                        f"e.g. {example}")
    try:
        inspect.signature(step).bind()
    except TypeError:
        name = getattr(step, "__name__", "")
        name = name if name.isidentifier() else "train_step"
        raise TypeError(f"{who} calls the step with no arguments, but it takes {inspect.signature(step)}. "
                        f"Wrap the call with its arguments, e.g. {who}(lambda: {name}(model, batch))") from None
    except ValueError:  # no signature to read (a builtin): calling it will tell
        pass
    kind = _kind(step)
    if kind is not None:
        name = getattr(step, "__name__", "the step")
        raise TypeError(f"{who} runs the step by calling it, but {name} is {kind[0]}: calling it returns {kind[1]} "
                        f"and runs none of its code. Pass a plain function that runs one step, e.g. {example}; "
                        "to measure a generator's work, wrap it: lambda: next(steps)")


def call_step(step, who, call=None):
    """``step()``, refusing a result that is a generator or coroutine (nothing ran). ``call``: ``(this call's
    number, how many calls)``; whatever the step raises, ``SystemExit`` and ``KeyboardInterrupt`` too, leaves with a
    note naming that call (:func:`stopped_note`), so that a caller can say which step stopped the run.

    >>> def step():
    ...     raise SystemExit(0)
    >>> try:
    ...     call_step(step, "find_leaks", (3, 6))
    ... except SystemExit as stop:
    ...     print(stop.__notes__)
    ['find_leaks: the step exited (SystemExit: 0) on call 3 of 6']
    """
    try:
        result = step()
    except BaseException as error:
        if call is not None:
            error.add_note(f"{who}: {_what_stopped(error)} on call {call[0]} of {call[1]}")
        raise
    if inspect.isgenerator(result) or inspect.iscoroutine(result) or inspect.isasyncgen(result):
        if not inspect.isasyncgen(result):
            result.close()  # no "never awaited" warning
        raise TypeError(f"{who}: the step returned a {type(result).__name__} instead of running: nothing ran. "
                        "Call a plain function that runs one step (for a generator: lambda: next(steps); "
                        "for async code: lambda: asyncio.run(train_step()))")
    return result


def _what_stopped(error):
    code = getattr(error, "code", None)
    name = type(error).__name__ + (f": {code}" if code is not None else "")
    if isinstance(error, SystemExit):
        return f"the step exited ({name})"
    if isinstance(error, KeyboardInterrupt):
        return f"the step was interrupted ({name})"
    return f"the step raised {name}"


def stopped_note(error, who):
    """The note :func:`call_step` left on ``error`` for ``who`` (without ``who:``), or "" when the step did not raise
    it (an interrupt that came between steps)."""
    prefix = f"{who}: "
    return next((note[len(prefix):] for note in getattr(error, "__notes__", ()) if note.startswith(prefix)), "")


def step_function(step):
    """The plain function whose code a call of ``step`` runs first: through bound methods, ``functools.partial``
    and callable objects (their ``__call__``); None for anything else (a builtin, a C extension's callable).

    >>> class Trainer:
    ...     def __call__(self):
    ...         pass
    >>> step_function(functools.partial(Trainer())).__qualname__
    'Trainer.__call__'
    """
    for _ in range(8):  # a partial of a bound method of a callable object ... (a cycle would loop)
        if isinstance(step, types.FunctionType):
            return step
        if isinstance(step, functools.partial):
            step = step.func
        elif isinstance(step, types.MethodType):
            step = step.__func__
        else:
            step = getattr(type(step), "__call__", None)
    return None
