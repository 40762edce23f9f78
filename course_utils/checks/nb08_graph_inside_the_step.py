"""Checkers for notebook 08, the graph inside the step: a leapfrog step, and a rollout flat for simulation.

Both run on the learned Hamiltonian :func:`~course_utils.problems.hamiltonian.hamiltonian_problem` builds, the one
the notebook measures (``checks.hamiltonian_problem`` and ``checks.DT`` name it for the notebook).

>>> def leapfrog(gradients, q, p, dt):
...     raise NotImplementedError
>>> check_leapfrog(leapfrog).status
'not attempted'
"""
import functools

import torch

from autograd_memory import GraphMemory, LiveTensors, convergence_order, format_bytes

from ..problems.hamiltonian import DT, energies, euler_step, hamiltonian_problem, leapfrog_step, rollout
from ..problems.ode import harmonic_solution
from . import exercise, expect, fail

__all__ = ["DT", "hamiltonian_problem", "check_leapfrog", "check_simulation", "SIMULATION_STEPS"]

SIMULATION_STEPS = (10, 40)  # the checker runs the simulation for both: its peak must not grow with the steps


@functools.lru_cache(maxsize=1)
def _problem():
    return hamiltonian_problem()


def _harmonic(q, p):
    """dH/dq, dH/dp of (q^2 + p^2) / 2, for the one-step comparisons: no autograd needed."""
    return q, p


def _symplectic_euler(gradients, q, p, dt):
    p = p - dt * gradients(q, p)[0]
    return q + dt * gradients(q, p)[1], p


def _old_momentum_drift(gradients, q, p, dt):
    half = p - dt / 2 * gradients(q, p)[0]
    q = q + dt * gradients(q, p)[1]
    return q, half - dt / 2 * gradients(q, half)[0]


# Known wrong steps, and what each one's learner did: the first whose one step matches the answer's names it.
LEAPFROG_MISTAKES = (
    (euler_step, "this is explicit Euler: q and p both move from the old state. Leapfrog splits the kick: p moves "
                 "half a step with dH/dq at the old q, q drifts a whole step with dH/dp at that half-kicked p, then p "
                 "takes the other half kick with dH/dq at the new q"),
    (_symplectic_euler, "this is symplectic Euler: a whole kick, then a drift. It is symplectic but first order; split "
                        "the kick into two halves, one before the drift and one after it at the new q"),
    (_old_momentum_drift, "q drifts with dH/dp at the old p: the drift must use the half-kicked p, so that each "
                          "update uses the newest values of the other variable"),
    (lambda gradients, q, p, dt: leapfrog_step(lambda q, p: (-gradients(q, p)[0], gradients(q, p)[1]), q, p, dt),
     "the kicks push p the wrong way: Hamilton's equations are dq/dt = dH/dp and dp/dt = -dH/dq, so a kick "
     "subtracts dt/2 x dH/dq"),
)


def _states(answer, q, p):
    expect(isinstance(answer, tuple) and len(answer) == 2 and all(isinstance(x, torch.Tensor) for x in answer),
           f"return the new state as a pair of tensors (q, p); got {type(answer).__name__}")
    expect(answer[0].shape == q.shape and answer[1].shape == p.shape,
           f"q and p keep their shapes {tuple(q.shape)} through a step; got {tuple(answer[0].shape)} and "
           f"{tuple(answer[1].shape)}")
    return answer


@exercise("Implement a leapfrog step")
def check_leapfrog(leapfrog):
    """``leapfrog(gradients, q, p, dt) -> (q, p)``, with ``gradients(q, p) -> (dH/dq, dH/dp)``: one leapfrog step.
    Checked against the leapfrog step on one step of the harmonic oscillator (a known wrong scheme is named), then by
    its error order against the exact rotation (2), then on the learned Hamiltonian through ``autograd.grad``."""
    q, p = torch.tensor([[1.0], [0.3]], dtype=torch.float64), torch.tensor([[0.0], [-0.7]], dtype=torch.float64)
    got = _states(leapfrog(_harmonic, q, p, 0.1), q, p)
    if not all(torch.allclose(a, b) for a, b in zip(got, leapfrog_step(_harmonic, q, p, 0.1))):
        for wrong, mistake in LEAPFROG_MISTAKES:
            expect(not all(torch.allclose(a, b) for a, b in zip(got, wrong(_harmonic, q, p, 0.1))), mistake + ".")
    x0, t_end, step_sizes, errors = torch.cat([q, p], dim=1), 2.0, [], []
    for steps in (20, 40, 80, 160):
        x, y = q, p
        for _ in range(steps):
            x, y = leapfrog(_harmonic, x, y, t_end / steps)
        step_sizes.append(t_end / steps)
        errors.append((torch.cat([x, y], dim=1) - harmonic_solution(x0, t_end)).norm().item())
    order = convergence_order(step_sizes, errors)
    expect(1.9 < order < 2.1, f"on the harmonic oscillator your step's error falls like dt^{order:.2f}; leapfrog's "
                              "falls like dt^2 (half a kick, a whole drift at the new p, half a kick at the new q).")
    hamiltonian, q0, p0, _ = _problem()
    states = rollout(hamiltonian, q0, p0, DT, 300, integrator=leapfrog)
    drift = (energies(hamiltonian, states) - energies(hamiltonian, states[:1])).abs().max().item()
    reference = rollout(hamiltonian, q0, p0, DT, 300)
    apart = (states[-1][0] - reference[-1][0]).abs().max().item()
    expect(apart < 1e-9, f"right on the oscillator, but on the learned Hamiltonian your step leaves the leapfrog "
                         f"trajectory (by {apart:.1e} in q after 300 steps): take every derivative from gradients(q, p), "
                         "never from a formula of your own, at the q and p the step has reached.")
    return f"error ~ dt^{order:.2f}; on the learned Hamiltonian the energy stays within {drift:.1e} over 300 steps."


def _reference_peak(hamiltonian, q0, p0, steps):
    with LiveTensors() as live:
        rollout(hamiltonian, q0, p0, DT, steps)
    return live.peak


def _simulate_metered(simulate, hamiltonian, q0, p0, steps):
    with torch.no_grad(), LiveTensors() as live, GraphMemory() as graph:
        final = simulate(hamiltonian, q0, p0, DT, steps)
    return _states(final, q0, p0), live.peak, graph.peak


@exercise("Make the rollout flat for simulation", errors={
    "does not require grad and does not have a grad_fn":
        "autograd.grad found no graph of H: the checker runs your simulate() inside torch.no_grad(), as an "
        "evaluation loop would, and no_grad records nothing, not even for autograd.grad. Take the gradients inside "
        "`with torch.enable_grad():`, which records again within no_grad",
    "One of the differentiated Tensors does not require grad":
        "autograd.grad differentiates with respect to q and p, so they must require grad: start each step from "
        "q.detach().requires_grad_() and p.detach().requires_grad_() (detach() alone returns a tensor that does not)",
})
def check_simulation(simulate):
    """``simulate(hamiltonian, q, p, dt, steps) -> (q, p)``: the leapfrog state after ``steps`` steps, without a graph,
    at a peak that does not grow with the steps, run inside ``torch.no_grad()``."""
    hamiltonian, q0, p0, _ = _problem()
    short, long = SIMULATION_STEPS
    (q, p), peak_short, _ = _simulate_metered(simulate, hamiltonian, q0, p0, short)
    (q, p), peak_long, saved = _simulate_metered(simulate, hamiltonian, q0, p0, long)
    expect(not (q.requires_grad or p.requires_grad),
           "the state you return still carries a graph (it requires grad): a simulation hands back values; return "
           "q.detach(), p.detach().")
    reference = rollout(hamiltonian, q0, p0, DT, long)[-1]
    if not (torch.allclose(q, reference[0]) and torch.allclose(p, reference[1])):
        euler = rollout(hamiltonian, q0, p0, DT, long, integrator=euler_step)[-1]
        expect(not torch.allclose(q, euler[0]), "your simulation steps with explicit Euler: use leapfrog_step.")
        fail(f"after {long} steps your state differs from the leapfrog rollout's by "
             f"{(q - reference[0]).abs().max().item():.2e} in q: run `steps` leapfrog steps of size dt from (q, p).")
    growth = (peak_long - peak_short) / (long - short)
    expect(growth <= 0, f"the peak grows with the steps, by {format_bytes(growth)} per step ({format_bytes(peak_short)} "
                        f"for {short} steps, {format_bytes(peak_long)} for {long}): something keeps every step, the "
                        "graph through a state that is never detached or a list of states. Start each step from "
                        "q.detach().requires_grad_() and keep only the current state.")
    least = _reference_peak(hamiltonian, q0, p0, long)
    expect(peak_long <= least, f"flat, but at {format_bytes(peak_long)} where a step needs {format_bytes(least)}: the "
                               f"graph held {format_bytes(saved)} at its peak. create_graph=True records the graph of the "
                               "derivative, which only training backpropagates through; a simulation takes "
                               "autograd.grad without it.")
    return (f"inside no_grad, {long} steps at the peak of {short} ({format_bytes(peak_long)}), the state returned "
            "without a graph.")
