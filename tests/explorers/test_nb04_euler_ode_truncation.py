"""Notebook 04's explorer (course_utils.explorers.nb04_euler_ode_truncation): each window's reading is what
window_tradeoff and full backpropagation give on the notebook's problem."""
import pytest

from course_utils.explorers import nb04_euler_ode_truncation as explorers
from course_utils.problems.ode import DT, euler_problem, full_backprop_gradient, truncated_gradient, window_tradeoff

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tiny tensors: a second thread only contends for the cores


def test_euler_window_readings_match_window_tradeoff_and_full_backprop():
    explorer = explorers.euler_window()
    field, x0, targets = euler_problem()
    windows = [1, 5, 20, 60]
    table = window_tradeoff(field, x0, targets, DT, windows)
    full = full_backprop_gradient(field, x0, targets, DT)
    errors = []
    for window in windows:
        reading = explorer.update(window=window)
        peak, cosine = table[window]
        assert reading.peak_saved == peak and reading.cosine == pytest.approx(cosine, abs=1e-6)
        truncated = truncated_gradient(field, x0, targets, DT, window)
        assert reading.relative_error == pytest.approx(((truncated - full).norm() / full.norm()).item(), rel=1e-5)
        errors.append(reading.relative_error)
    assert errors[0] > 0.5 and errors[-1] < 1e-6, f"the bias must be plain at k = 1 and gone at k = 60: {errors}"
    assert errors == sorted(errors, reverse=True)
