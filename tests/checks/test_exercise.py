"""course_utils.checks' machinery that every notebook's checkers share: three outcomes, one way to fail."""
import pytest
import torch

from course_utils.checks import ExerciseFailed, ExerciseResult, exercise, expect, fail


@exercise("Double it")
def check_double(double):
    expect(callable(double), "pass the function itself, not its result")
    if double(2) != 4:
        fail(f"double(2) should be 4, got {double(2)}")
    return "double(2) == 4"


def test_every_failure_carries_the_title_and_the_explanation():
    with pytest.raises(ExerciseFailed) as caught:
        check_double(lambda x: x + 1)
    assert str(caught.value) == "[FAIL] Double it: double(2) should be 4, got 3"
    with pytest.raises(ExerciseFailed, match=r"^\[FAIL\] Double it: pass the function itself"):
        check_double(4)


def test_a_right_answer_passes_and_an_unsolved_one_is_not_attempted(unsolved):
    assert str(check_double(lambda x: 2 * x)) == "[PASS] Double it: double(2) == 4"
    assert check_double(unsolved).status == "not attempted"


def test_a_not_implemented_error_from_torch_is_not_mistaken_for_an_unsolved_exercise():
    @exercise("sparse view")
    def check(fn):
        fn()

    def learner_answer():
        torch.sparse_coo_tensor(torch.tensor([[0]]), torch.tensor([1.0]), (2,), check_invariants=True).view(2)

    def unsolved():
        raise NotImplementedError

    assert check(unsolved).status == "not attempted"
    with pytest.raises(ExerciseFailed, match=r"raised NotImplementedError: Could not run 'aten::view'(?s:.*)"
                                             r"line \d+: torch.sparse_coo_tensor"):
        check(learner_answer)


def test_an_error_in_the_answer_is_explained_with_its_line_never_a_raw_traceback():
    @exercise("second derivative")
    def check(fn):
        x = torch.ones(3, requires_grad=True)
        return fn(x)

    def retain_instead_of_create(x):
        first, = torch.autograd.grad(x.pow(3).sum(), x, retain_graph=True)
        return torch.autograd.grad(first.sum(), x)

    with pytest.raises(ExerciseFailed) as caught:
        check(retain_instead_of_create)
    message = str(caught.value)
    assert message.startswith("[FAIL] second derivative: running your answer raised RuntimeError: element 0 of tensors")
    assert "return torch.autograd.grad(first.sum(), x)" in message and "create_graph=True" in message, message

    @exercise("second derivative", errors={"does not require grad": "the first derivative needs create_graph=True"})
    def check_with_its_own_idea(fn):
        return fn(torch.ones(3, requires_grad=True))

    with pytest.raises(ExerciseFailed, match="element 0 of tensors(?s:.*)the first derivative needs create_graph=True$"):
        check_with_its_own_idea(retain_instead_of_create)
    with pytest.raises(ExerciseFailed, match="ZeroDivisionError(?s:.*)what did it receive"):
        check(lambda x: 1 / 0)


def test_ipython_shows_a_result_as_its_text():
    result = ExerciseResult("title", "passed", "ok")
    printed = []
    result._repr_pretty_(type("Printer", (), {"text": lambda self, text: printed.append(text)})(), cycle=False)
    assert printed == [str(result)]


def _freed_twice():
    x = torch.ones(2, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    y.backward()


def test_a_torch_error_gives_training_loop_advice_only_to_an_exercise_with_a_loop():
    from course_utils.checks import LOOP_ERRORS, explain_error
    try:
        _freed_twice()
    except RuntimeError as error:
        freed = error
    assert "one step to the next" not in explain_error(freed), "no loop here: the idea is the freed graph itself"
    assert "one step to the next" in explain_error(freed, LOOP_ERRORS)


def test_a_derivative_with_respect_to_a_tensor_without_grad_says_so():
    from course_utils.checks import explain_error
    try:
        torch.autograd.grad(torch.ones(2, requires_grad=True).sum(), torch.ones(2))
    except RuntimeError as error:
        message = explain_error(error)
    assert "does not require grad" in message and "requires_grad=True" in message and "Look at that line" not in message
