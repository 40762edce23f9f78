"""The learned Hamiltonian of notebook 08 (course_utils.problems.hamiltonian): leapfrog is second order and keeps the
energy; a training rollout and a simulation integrate the same trajectory; simulation runs inside no_grad, flat."""
import torch

from autograd_memory import GraphMemory, LiveTensors, convergence_order
from course_utils.problems.hamiltonian import (
    energies,
    euler_step,
    hamiltonian_gradients,
    hamiltonian_problem,
    harmonic_hamiltonian,
    rollout,
)
from course_utils.problems.ode import harmonic_solution


def test_leapfrog_is_second_order_and_euler_first_on_the_oscillator():
    x0 = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    for integrator, order in ((None, 2), (euler_step, 1)):
        step_sizes, errors = [], []
        for steps in (20, 40, 80, 160):
            kwargs = {"integrator": integrator} if integrator else {}
            q, p = rollout(harmonic_hamiltonian, x0[:, :1], x0[:, 1:], 2.0 / steps, steps, **kwargs)[-1]
            step_sizes.append(2.0 / steps)
            errors.append((torch.cat([q, p], dim=1) - harmonic_solution(x0, 2.0)).norm().item())
        assert abs(convergence_order(step_sizes, errors) - order) < 0.1


def test_leapfrog_keeps_the_learned_energy_and_euler_does_not():
    hamiltonian, q0, p0, fit_loss = hamiltonian_problem(batch=4)
    assert fit_loss < 1e-2, "the fit reaches the pendulum's field"
    drift = {}
    for name, kwargs in (("leapfrog", {}), ("euler", {"integrator": euler_step})):
        energy = energies(hamiltonian, rollout(hamiltonian, q0, p0, 0.1, 300, **kwargs))
        drift[name] = (energy - energy[0]).abs().max(dim=1).values
    assert drift["leapfrog"][150:].max() < 1.5 * drift["leapfrog"][:150].max() < 1e-2
    assert drift["euler"][-1] > 100 * drift["leapfrog"].max()


def test_training_rollout_takes_partial_derivatives_and_simulation_is_flat_inside_no_grad():
    hamiltonian, q0, p0, _ = hamiltonian_problem(batch=2, width=4)
    trained = rollout(hamiltonian, q0, p0, 0.1, 20, create_graph=True)[-1]
    simulated = rollout(hamiltonian, q0, p0, 0.1, 20)[-1]
    assert all(torch.allclose(a, b) for a, b in zip(trained, simulated)), "p computed from q must not change dH/dq"
    peaks = []
    for steps in (5, 20):
        with torch.no_grad(), LiveTensors() as live, GraphMemory() as graph:
            states = rollout(hamiltonian, q0, p0, 0.1, steps)
            del states
        peaks.append((live.peak, graph.bytes))
    assert peaks[1][0] - peaks[0][0] == 15 * 2 * q0.numel() * 8, "per step, only the kept states (q and p) add"
    assert peaks[0][1] == peaks[1][1] == 0, "and no graph outlives the rollout"


def test_gradients_under_no_grad_raise_the_error_the_notebook_shows():
    q = torch.ones(1, 1, requires_grad=True)
    with torch.no_grad():
        try:
            hamiltonian_gradients(harmonic_hamiltonian, q, q.detach().requires_grad_())
        except RuntimeError as error:
            assert "does not require grad and does not have a grad_fn" in str(error)
        else:
            raise AssertionError("autograd.grad under no_grad should raise")
