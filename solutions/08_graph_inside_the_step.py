"""Worked solutions for notebook 08, the graph inside the step (for instructors).

Run ``python solutions/08_graph_inside_the_step.py`` to see the checkers' verdicts.
"""
import torch

from course_utils.checks import nb08_graph_inside_the_step as checks
from course_utils.problems.hamiltonian import hamiltonian_gradients, leapfrog_step


def leapfrog(gradients, q, p, dt):
    """Half a kick with dH/dq at the old q, a whole drift with dH/dp at the half-kicked p, the other half kick at the
    new q."""
    p_half = p - dt / 2 * gradients(q, p)[0]
    q_next = q + dt * gradients(q, p_half)[1]
    return q_next, p_half - dt / 2 * gradients(q_next, p_half)[0]


def simulate(hamiltonian, q, p, dt, steps):
    """Record the gradient's graph even inside no_grad, start every step from a detached state that requires grad,
    and take the gradients without create_graph: the memory of one step, whatever the number of steps."""
    with torch.enable_grad():
        for _ in range(steps):
            q, p = q.detach().requires_grad_(), p.detach().requires_grad_()
            q, p = leapfrog_step(lambda q, p: hamiltonian_gradients(hamiltonian, q, p), q, p, dt)
    return q.detach(), p.detach()


def run_checks():
    return [checks.check_leapfrog(leapfrog), checks.check_simulation(simulate)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
