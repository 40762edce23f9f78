"""Worked solutions for notebook 04, Euler ODE truncation (for instructors).

Run ``python solutions/04_euler_ode_truncation.py`` to see the checkers' verdicts.
"""
from course_utils.checks import nb04_euler_ode_truncation as checks
from course_utils.problems.ode import window_tradeoff


def euler_step(field, x, dt):
    """Cut the history going in; the step just taken stays in the graph so its loss trains the field."""
    x = x.detach()
    return x + dt * field(x)


def largest_window(budget_bytes):
    """The graph's peak is linear in the window from k = 2 on (section 5): measure two windows, then solve
    base + k * per_step <= budget for the largest whole k."""
    field, x0, targets = checks.euler_problem()
    peaks = {k: peak for k, (peak, _cosine) in window_tradeoff(field, x0, targets, checks.DT, [2, 3]).items()}
    per_step = peaks[3] - peaks[2]
    base = peaks[2] - 2 * per_step
    return int(min(len(targets), (budget_bytes - base) // per_step))


def run_checks():
    return [checks.check_detach(euler_step), checks.check_window(largest_window)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
