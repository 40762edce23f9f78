"""The checkers of notebook 04 (course_utils.checks.nb04_euler_ode_truncation) explain a misplaced detach()
and a window that does not fit, every failure with the "[FAIL] title:" prefix."""
import pytest

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb04_euler_ode_truncation as checks
from course_utils.problems.ode import DT, euler_problem, step_bytes, window_tradeoff


@pytest.mark.parametrize("step,complaint", [
    (lambda field, x, dt: x + dt * field(x), "second time"),                        # no detach
    (lambda field, x, dt: x + dt * field(x.detach()), "second time"),               # the skip term still chains
    (lambda field, x, dt: (x + dt * field(x)).detach(), "does not depend"),         # detached output: nothing trains
])
def test_detach_checker_explains_misplaced_detach(step, complaint):
    with pytest.raises(ExerciseFailed, match=complaint):
        checks.check_detach(step)


def test_window_checker_wants_the_largest_window_that_fits():
    with pytest.raises(ExerciseFailed, match="over the budget"):
        checks.check_window(lambda budget: 60)
    with pytest.raises(ExerciseFailed, match="fits the budget"):
        checks.check_window(lambda budget: 2)
    with pytest.raises(ExerciseFailed, match="whole number"):
        checks.check_window(lambda budget: 7.5)


def test_a_graph_that_grows_across_steps_fails_with_the_checkers_prefix():
    """The path that once raised a bare AssertionError (no "[FAIL] title:"): now it goes through fail()."""
    kept = []

    def step_keeping_a_graph_per_step(field, x, dt):
        x = x.detach()
        kept.append(field(x))  # "for plotting later": a graph no backward() will ever free
        return x + dt * field(x)

    with pytest.raises(ExerciseFailed) as caught:
        checks.check_detach(step_keeping_a_graph_per_step)
    assert str(caught.value).startswith("[FAIL] Place the detach(): graph memory grew across steps")


def _window_without_the_base(budget_bytes):
    """W4: ``budget // per_step`` forgets the base term of ``base + k * per_step``."""
    field, x0, targets = euler_problem()
    peaks = {k: peak for k, (peak, _cosine) in window_tradeoff(field, x0, targets, DT, [2, 3]).items()}
    return int(min(len(targets), budget_bytes // (peaks[3] - peaks[2])))


def _window_with_a_base_from_the_formula(budget_bytes):
    """per_step measured, but the base taken as peak(2) - 2 x step_bytes(batch, width), section 2's formula (which
    leaves out the state a step saves): 1 kB too much, and right at the budgets that fall mid-step."""
    field, x0, targets = euler_problem()
    peaks = {k: peak for k, (peak, _cosine) in window_tradeoff(field, x0, targets, DT, [2, 3]).items()}
    base = peaks[2] - 2 * step_bytes(len(x0), field.width)
    return int(min(len(targets), (budget_bytes - base) // (peaks[3] - peaks[2])))


def _requires_grad_off(field, x, dt):
    """requires_grad_(False) in place of detach(): refused by torch for a state with a history."""
    x.requires_grad_(False)
    return x + dt * field(x)



def _window_unrounded(budget_bytes):
    """the measured law solved for k, not rounded down to a whole number of steps."""
    field, x0, targets = euler_problem()
    peaks = {k: peak for k, (peak, _cosine) in window_tradeoff(field, x0, targets, DT, [2, 3]).items()}
    per_step = peaks[3] - peaks[2]
    return min(len(targets), (budget_bytes - (peaks[2] - 2 * per_step)) / per_step)


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_detach", "Detach the state going *in*",
     lambda m: m.check_detach(lambda field, x, dt: (x + dt * field(x)).detach())),
    ("check_window", "the base counts too", lambda m: m.check_window(_window_without_the_base)),
    ("check_window", "too large", lambda m: m.check_window(_window_with_a_base_from_the_formula)),
    ("check_detach", "x.detach() returns", lambda m: m.check_detach(_requires_grad_off)),
    ("check_window", "Round down", lambda m: m.check_window(_window_unrounded)),
]
