"""Notebook 06's checkers: each wrong answer gets its own explanation, the worked answer passes."""
import pytest
import torch

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb06_which_laplacian as checks

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _nested(u, points, dims=(0, 1), create_graph=True):
    first, = torch.autograd.grad(u.sum(), points, create_graph=True)
    return sum(torch.autograd.grad(first[:, k].sum(), points, create_graph=create_graph, retain_graph=True)[0][:, k]
               for k in dims)


def test_laplacian_checker_catches_row_sums_time_and_a_missing_graph():
    def row_sums(u, points):
        first, = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)
        return torch.autograd.grad(first, points, torch.ones_like(first), create_graph=True)[0][:, :2].sum(1)

    with pytest.raises(ExerciseFailed, match="ROW SUMS"):
        checks.check_laplacian(row_sums)
    with pytest.raises(ExerciseFailed, match="u_tt"):
        checks.check_laplacian(lambda u, points: _nested(u, points, dims=(0, 1, 2)))
    with pytest.raises(ExerciseFailed, match="create_graph=True"):
        checks.check_laplacian(lambda u, points: _nested(u, points, create_graph=False))
    assert checks.check_laplacian(_nested).passed


def test_chunk_checker_wants_the_largest_chunk_that_fits_at_each_budget():
    sizes = checks.CHUNK_CANDIDATES
    with pytest.raises(ExerciseFailed, match="over the budget"):
        checks.check_chunk_size(lambda model, points, budget: sizes[-1])
    with pytest.raises(ExerciseFailed, match="chunks of 256 also fit"):
        checks.check_chunk_size(lambda model, points, budget: sizes[1])
    _model, _points, budgets = checks.chunk_problem()
    assert sorted(budgets.values()) == [128, 256], "two budgets, two different right answers: no constant passes"
    assert checks.check_chunk_size(lambda model, points, budget: budgets[budget]).passed


def _row_sums(u, points):
    """grad of the whole (N, 3) gradient with grad_outputs=ones sums the Hessian's rows."""
    first, = torch.autograd.grad(u, points, torch.ones_like(u), create_graph=True)
    second, = torch.autograd.grad(first, points, torch.ones_like(first), create_graph=True)
    return second[:, 0] + second[:, 1]


def _first_without_create_graph(u, points):
    """retain_graph=True where create_graph=True is needed: the first derivative carries no graph."""
    first, = torch.autograd.grad(u.sum(), points, retain_graph=True)
    return sum(torch.autograd.grad(first[:, k].sum(), points, create_graph=True)[0][:, k] for k in (0, 1))


def _by_column_slice(u, points):
    """the derivative with respect to a column slice, a tensor u was not computed from."""
    x = points[:, 0]
    u_x, = torch.autograd.grad(u.sum(), x, create_graph=True)
    return torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]


def _first_detached(u, points):
    """the first derivative detached (and made a leaf again) before differentiating it."""
    first, = torch.autograd.grad(u.sum(), points, create_graph=True)
    first = first.detach().requires_grad_(True)
    return sum(torch.autograd.grad(first[:, k].sum(), points, create_graph=True)[0][:, k] for k in (0, 1))


def _unused_allowed(u, points):
    """allow_unused=True silences the column slice's error: the derivative comes back as None."""
    x = points[:, 0]
    u_x, = torch.autograd.grad(u.sum(), x, create_graph=True, allow_unused=True)
    return torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]


def _largest_by(measure, returns="size"):
    """the largest candidate whose ``measure(model, points, chunk) -> bytes`` fits the budget (``returns="peak"``: its
    measured bytes rather than the size)."""
    from course_utils import laplacians
    measured = {}  # each candidate measured once, for both budgets (the checker hands over the same problem)

    def choose(model, points, budget):
        for size in checks.CHUNK_CANDIDATES:
            if size not in measured:
                measured[size] = measure(laplacians, model, points, size)
        size = max(size for size in checks.CHUNK_CANDIDATES if measured[size] <= budget)
        return size if returns == "size" else measured[size]
    return choose



def _second_without_create_graph(u, points):
    """the posted PINN bug (notebook 05): the second derivatives taken without create_graph, so the first of them frees
    the first derivative's graph, which the second needs."""
    first, = torch.autograd.grad(u.sum(), points, create_graph=True)
    return sum(torch.autograd.grad(first[:, k].sum(), points)[0][:, k] for k in (0, 1))


def _second_retained_without_create_graph(u, points):
    """the posted PINN bug with retain_graph=True: right values, and no graph to train on."""
    first, = torch.autograd.grad(u.sum(), points, create_graph=True)
    return sum(torch.autograd.grad(first[:, k].sum(), points, retain_graph=True)[0][:, k] for k in (0, 1))


def _with_respect_to_detached_points(u, points):
    """points.detach() is a new tensor, which u was not computed from, and which requires no grad."""
    first, = torch.autograd.grad(u.sum(), points.detach(), create_graph=True)
    return sum(torch.autograd.grad(first[:, k].sum(), points, create_graph=True)[0][:, k] for k in (0, 1))


def _points_without_requires_grad(u, points):
    """the points' requires_grad switched off (as in a learner's own set-up that forgot it)."""
    points.requires_grad_(False)
    return _nested(u, points)


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_laplacian", "ROW SUMS", lambda m: m.check_laplacian(_row_sums)),
    ("check_chunk_size", "over the budget", lambda m: m.check_chunk_size(lambda model, points, budget: 256)),
    ("check_laplacian", "create_graph=True", lambda m: m.check_laplacian(_first_without_create_graph)),
    ("check_laplacian", "not computed from", lambda m: m.check_laplacian(_by_column_slice)),
    ("check_laplacian", "detached", lambda m: m.check_laplacian(_first_detached)),
    ("check_laplacian", "allow_unused=True", lambda m: m.check_laplacian(_unused_allowed)),
    ("check_laplacian", "sign", lambda m: m.check_laplacian(lambda u, points: -_nested(u, points))),
    ("check_laplacian", "only u_xx", lambda m: m.check_laplacian(lambda u, points: _nested(u, points, dims=(0,)))),
    ("check_laplacian", "u.mean()", lambda m: m.check_laplacian(lambda u, points: _nested(u.mean(), points))),
    ("check_laplacian", "grad_outputs", lambda m: m.check_laplacian(
        lambda u, points: torch.autograd.grad(u, points, create_graph=True)[0][:, 0])),
    # the answer that is right at one budget, typed in
    ("check_chunk_size", "budget", lambda m: m.check_chunk_size(lambda model, points, budget: 128)),
    ("check_chunk_size", "saved", lambda m: m.check_chunk_size(
        _largest_by(lambda laplacians, model, points, size:
                    laplacians.step_memory(model, points, laplacians.laplacian_nested, size)[1]))),
    ("check_chunk_size", "not another Laplacian's", lambda m: m.check_chunk_size(
        _largest_by(lambda laplacians, model, points, size:
                    laplacians.step_memory(model, points, laplacians.laplacian_forward, size)[0]))),
    # one measurement scaled: the peak is not proportional to the chunk (the parameters, their .grad, the step's own)
    ("check_chunk_size", "proportional", lambda m: m.check_chunk_size(_largest_by(
        lambda laplacians, model, points, size:
        laplacians.step_memory(model, points, laplacians.laplacian_nested, 1024)[0] * size // 1024))),
    # the posted PINN bug (with and without retain_graph), a detached copy, points that require no grad
    ("check_laplacian", "the posted PINN bug", lambda m: m.check_laplacian(_second_without_create_graph)),
    ("check_laplacian", "the posted PINN bug", lambda m: m.check_laplacian(_second_retained_without_create_graph)),
    ("check_laplacian", "points.detach() is a new tensor", lambda m: m.check_laplacian(_with_respect_to_detached_points)),
    ("check_laplacian", "requires_grad=True before the forward pass", lambda m: m.check_laplacian(_points_without_requires_grad)),
    # u_xx and u_yy side by side, not added
    ("check_laplacian", "add the two columns", lambda m: m.check_laplacian(
        lambda u, points: torch.stack([_nested(u, points, dims=(0,)), _nested(u, points, dims=(1,))], dim=1))),
    # the peak returned instead of the chunk size; the size as text
    ("check_chunk_size", "a number of bytes, not a chunk size", lambda m: m.check_chunk_size(_largest_by(
        lambda laplacians, model, points, size: laplacians.step_memory(model, points, laplacians.laplacian_nested, size)[0],
        returns="peak"))),
    ("check_chunk_size", "text, not a number", lambda m: m.check_chunk_size(lambda model, points, budget: "128")),
]


@pytest.mark.parametrize("answer, unwanted", [
    (_second_without_create_graph, ("one step to the next", ".detach() or .item()")),  # no training loop here
    (_with_respect_to_detached_points, ("pass create_graph=True",)),  # the answer already passes it
])
def test_the_laplacian_s_torch_errors_are_explained_in_its_own_setting(answer, unwanted):
    with pytest.raises(ExerciseFailed) as caught:
        checks.check_laplacian(answer)
    assert not any(words in str(caught.value) for words in unwanted), str(caught.value)
