"""The checkers of notebook 08 (course_utils.checks.nb08_graph_inside_the_step) name the mistake made in a leapfrog
step and in a simulation rollout, every failure with the "[FAIL] title:" prefix."""
import pytest
import torch

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb08_graph_inside_the_step as checks
from course_utils.problems.hamiltonian import euler_step, hamiltonian_gradients, leapfrog_step


def _symplectic_euler(gradients, q, p, dt):
    """A whole kick, then a drift: symplectic, first order."""
    p = p - dt * gradients(q, p)[0]
    return q + dt * gradients(q, p)[1], p


def _kick_up(gradients, q, p, dt):
    """dp/dt = +dH/dq: the sign of Hamilton's second equation lost."""
    p = p + dt / 2 * gradients(q, p)[0]
    q = q + dt * gradients(q, p)[1]
    return q, p + dt / 2 * gradients(q, p)[0]


def _old_momentum(gradients, q, p, dt):
    """The drift takes dH/dp at the old p."""
    half = p - dt / 2 * gradients(q, p)[0]
    q = q + dt * gradients(q, p)[1]
    return q, half - dt / 2 * gradients(q, half)[0]


def _leapfrog_of_the_oscillator(gradients, q, p, dt):
    """Right on the oscillator, where dH/dq = q and dH/dp = p, but the derivatives come from that formula, not from
    `gradients`."""
    p = p - dt / 2 * q
    q = q + dt * p
    return q, p - dt / 2 * q


def _step(hamiltonian, q, p, dt, create_graph=False):
    return leapfrog_step(lambda q, p: hamiltonian_gradients(hamiltonian, q, p, create_graph), q, p, dt)


def _no_enable_grad(hamiltonian, q, p, dt, steps):
    """Detached each step, but inside the caller's no_grad: H records no graph."""
    for _ in range(steps):
        q, p = _step(hamiltonian, q.detach().requires_grad_(), p.detach().requires_grad_(), dt)
    return q.detach(), p.detach()


def _detach_only(hamiltonian, q, p, dt, steps):
    """detach() without requires_grad_(): autograd.grad has nothing to differentiate with respect to."""
    with torch.enable_grad():
        for _ in range(steps):
            q, p = _step(hamiltonian, q.detach(), p.detach(), dt)
    return q.detach(), p.detach()


def _training_rollout(hamiltonian, q, p, dt, steps):
    """The training step copied into the simulator: create_graph=True and no detach, the whole rollout in the graph."""
    with torch.enable_grad():
        q, p = q.detach().requires_grad_(), p.detach().requires_grad_()
        for _ in range(steps):
            q, p = _step(hamiltonian, q, p, dt, create_graph=True)
    return q.detach(), p.detach()


def _create_graph_detached(hamiltonian, q, p, dt, steps):
    """Flat, but each step records the graph of the derivative that nobody backpropagates through."""
    with torch.enable_grad():
        for _ in range(steps):
            q, p = _step(hamiltonian, q.detach().requires_grad_(), p.detach().requires_grad_(), dt, create_graph=True)
    return q.detach(), p.detach()


def _keeps_the_trajectory(hamiltonian, q, p, dt, steps):
    """Flat graph, but every state kept in a list for a plot that never comes."""
    trajectory = []
    with torch.enable_grad():
        for _ in range(steps):
            q, p = _step(hamiltonian, q.detach().requires_grad_(), p.detach().requires_grad_(), dt)
            trajectory.append((q.detach(), p.detach()))
    return trajectory[-1]


def _returns_the_graph(hamiltonian, q, p, dt, steps):
    with torch.enable_grad():
        for _ in range(steps):
            q, p = _step(hamiltonian, q.detach().requires_grad_(), p.detach().requires_grad_(), dt)
    return q, p


def _euler_simulation(hamiltonian, q, p, dt, steps):
    with torch.enable_grad():
        for _ in range(steps):
            q, p = q.detach().requires_grad_(), p.detach().requires_grad_()
            q, p = euler_step(lambda q, p: hamiltonian_gradients(hamiltonian, q, p), q, p, dt)
    return q.detach(), p.detach()


def test_a_step_that_ignores_the_gradients_it_is_given_is_caught_on_the_learned_hamiltonian():
    with pytest.raises(ExerciseFailed, match="from gradients"):
        checks.check_leapfrog(_leapfrog_of_the_oscillator)


def test_a_leapfrog_that_returns_one_tensor_is_told_the_shape_of_the_answer():
    with pytest.raises(ExerciseFailed, match=r"pair of tensors \(q, p\)"):
        checks.check_leapfrog(lambda gradients, q, p, dt: q)


# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_leapfrog", "this is explicit Euler", lambda m: m.check_leapfrog(euler_step)),
    ("check_leapfrog", "this is symplectic Euler", lambda m: m.check_leapfrog(_symplectic_euler)),
    ("check_leapfrog", "the kicks push p the wrong way", lambda m: m.check_leapfrog(_kick_up)),
    ("check_leapfrog", "the half-kicked p", lambda m: m.check_leapfrog(_old_momentum)),
    ("check_simulation", "torch.enable_grad()", lambda m: m.check_simulation(_no_enable_grad)),
    ("check_simulation", "requires_grad_()", lambda m: m.check_simulation(_detach_only)),
    ("check_simulation", "the peak grows with the steps", lambda m: m.check_simulation(_training_rollout)),
    ("check_simulation", "create_graph=True records the graph of the derivative",
     lambda m: m.check_simulation(_create_graph_detached)),
    ("check_simulation", "a list of states", lambda m: m.check_simulation(_keeps_the_trajectory)),
    ("check_simulation", "still carries a graph", lambda m: m.check_simulation(_returns_the_graph)),
    ("check_simulation", "explicit Euler", lambda m: m.check_simulation(_euler_simulation)),
]


@pytest.mark.parametrize("name, hint, answer", WRONG, ids=[f"{row[0]}-{row[1][:24]}" for row in WRONG])
def test_each_wrong_answer_is_named(name, hint, answer):
    with pytest.raises(ExerciseFailed) as caught:
        answer(checks)
    assert str(caught.value).startswith("[FAIL] ") and hint in str(caught.value), str(caught.value)
