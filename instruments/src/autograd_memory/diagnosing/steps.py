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

__all__ = ["check_step", "call_step", "step_function"]


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


def call_step(step, who):
    """``step()``, refusing a result that is a generator or coroutine (nothing ran)."""
    result = step()
    if inspect.isgenerator(result) or inspect.iscoroutine(result) or inspect.isasyncgen(result):
        if not inspect.isasyncgen(result):
            result.close()  # no "never awaited" warning
        raise TypeError(f"{who}: the step returned a {type(result).__name__} instead of running: nothing ran. "
                        "Call a plain function that runs one step (for a generator: lambda: next(steps); "
                        "for async code: lambda: asyncio.run(train_step()))")
    return result


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
