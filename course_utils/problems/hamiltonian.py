"""A learned Hamiltonian system: the vector field is a gradient, taken inside every integration step.

Notebook 08's second problem. ``H_theta(q, p) = K_theta(p) + V_theta(q)`` is two small tanh networks
(:class:`SeparableHamiltonian`); its vector field is ``dq/dt = dH/dp, dp/dt = -dH/dq``, which
:func:`hamiltonian_gradients` takes with ``torch.autograd.grad`` at every step. Separable, so the leapfrog step
(:func:`leapfrog_step`: half a kick, a drift, half a kick) is explicit and symplectic; :func:`euler_step` is
explicit Euler on the same field. :func:`rollout` runs either one, for training (``create_graph=True``: the
whole rollout stays in the graph) or for simulation (each step starts from a detached state, under
``torch.enable_grad()``: memory flat, and it runs inside ``torch.no_grad()`` too).

>>> hamiltonian = harmonic_hamiltonian
>>> q, p = torch.tensor([[1.0]], dtype=torch.float64), torch.tensor([[0.0]], dtype=torch.float64)
>>> states = rollout(hamiltonian, q, p, dt=0.1, steps=3)
>>> len(states), states[-1][0].requires_grad
(4, False)
"""
import torch

from .models import TanhMLP

__all__ = ["SeparableHamiltonian", "harmonic_hamiltonian", "hamiltonian_gradients", "leapfrog_step", "euler_step",
           "rollout", "energies", "fit_to_pendulum", "hamiltonian_problem", "DT"]

DT = 0.1  # notebook 08's step for the learned Hamiltonian


class SeparableHamiltonian(torch.nn.Module):
    """``H(q, p) = K(p) + V(q)``: a kinetic and a potential energy, each a ``1 -> width -> 1`` tanh network.

    ``q`` and ``p`` are ``(batch, 1)``; ``H`` is ``(batch,)``.

    >>> SeparableHamiltonian(width=4)(torch.zeros(3, 1), torch.zeros(3, 1)).shape
    torch.Size([3])
    """

    def __init__(self, width: int = 16, seed: int = 0):
        super().__init__()
        self.kinetic = TanhMLP(1, 1, width=width, seed=seed)
        self.potential = TanhMLP(1, 1, width=width, seed=seed + 1)
        self.width = width

    def forward(self, q: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        return (self.kinetic(p) + self.potential(q)).squeeze(-1)


def harmonic_hamiltonian(q: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """``(q**2 + p**2) / 2``: the unit harmonic oscillator, whose exact flow is a rotation (notebook 04's)."""
    return ((q ** 2 + p ** 2) / 2).squeeze(-1)


def hamiltonian_gradients(hamiltonian, q: torch.Tensor, p: torch.Tensor, create_graph: bool = False) -> tuple:
    """The partial derivatives ``(dH/dq, dH/dp)`` by ``torch.autograd.grad``; ``q`` and ``p`` must require grad (the
    graph of ``H`` is recorded here, so under ``torch.no_grad()`` it raises). ``create_graph=True`` records the
    derivatives' own graph, which training needs to backpropagate through the step.

    ``autograd.grad`` gives total derivatives: inside a training rollout ``p`` was computed from ``q`` (the last
    kick), and ``dH/dq`` would take the path through ``p`` too. A fresh view of each (a node of its own) keeps the
    paths apart: the derivative with respect to the view is the partial one.

    >>> q = torch.tensor([[2.0]], requires_grad=True)
    >>> hamiltonian_gradients(harmonic_hamiltonian, q, torch.ones(1, 1, requires_grad=True))
    (tensor([[2.]]), tensor([[1.]]))
    >>> p = 3 * q                    # p computed from q: the total dH/dq would be q + 3 p = 20
    >>> hamiltonian_gradients(harmonic_hamiltonian, q, p, create_graph=True)[0]
    tensor([[2.]], grad_fn=<MulBackward0>)
    """
    q, p = (x.view_as(x) for x in (q, p))
    return torch.autograd.grad(hamiltonian(q, p).sum(), (q, p), create_graph=create_graph)


def leapfrog_step(gradients, q: torch.Tensor, p: torch.Tensor, dt: float) -> tuple:
    """One leapfrog (Stormer-Verlet) step of a separable Hamiltonian: ``p`` half a kick, ``q`` a full drift at the
    new ``p``, ``p`` the other half kick at the new ``q``. ``gradients(q, p) -> (dH/dq, dH/dp)``. Symplectic and
    second order.

    >>> grads = lambda q, p: (q, p)                      # H = (q^2 + p^2) / 2
    >>> leapfrog_step(grads, torch.tensor(1.0), torch.tensor(0.0), dt=0.5)
    (tensor(0.8750), tensor(-0.4688))
    """
    p = p - dt / 2 * gradients(q, p)[0]
    q = q + dt * gradients(q, p)[1]
    p = p - dt / 2 * gradients(q, p)[0]
    return q, p


def euler_step(gradients, q: torch.Tensor, p: torch.Tensor, dt: float) -> tuple:
    """One explicit Euler step of Hamilton's equations: both from the old state. First order, not symplectic.

    >>> euler_step(lambda q, p: (q, p), torch.tensor(1.0), torch.tensor(0.0), dt=0.5)
    (tensor(1.), tensor(-0.5000))
    """
    dq, dp = gradients(q, p)
    return q + dt * dp, p - dt * dq


def rollout(hamiltonian, q: torch.Tensor, p: torch.Tensor, dt: float, steps: int, integrator=leapfrog_step,
            create_graph: bool = False) -> list:
    """The states ``[(q0, p0), ..., (q_steps, p_steps)]`` of ``integrator`` on ``hamiltonian``.

    ``create_graph=True`` (training): every step stays in the graph, to the parameters and to ``q0, p0``;
    ``q0`` and ``p0`` are made to require grad. ``create_graph=False`` (simulation): each step starts from a
    detached state that requires grad, under ``torch.enable_grad()``, and the states come back detached: the
    memory of one step, and it runs inside ``torch.no_grad()`` too.
    """
    with torch.enable_grad():
        if create_graph:
            q, p = (x if x.requires_grad else x.detach().requires_grad_() for x in (q, p))
        states = [(q, p)]
        for _ in range(steps):
            if not create_graph:
                q, p = q.detach().requires_grad_(), p.detach().requires_grad_()
            q, p = integrator(lambda q, p: hamiltonian_gradients(hamiltonian, q, p, create_graph), q, p, dt)
            states.append((q, p) if create_graph else (q.detach(), p.detach()))
    return states


def energies(hamiltonian, states: list) -> torch.Tensor:
    """``H`` along a rollout, without a graph: ``(steps + 1, batch)``."""
    with torch.no_grad():
        return torch.stack([hamiltonian(q, p) for q, p in states])


def fit_to_pendulum(hamiltonian: SeparableHamiltonian, steps: int = 150, points: int = 128, seed: int = 0) -> float:
    """Fit ``hamiltonian``'s vector field to a pendulum's (``dq/dt = p``, ``dp/dt = -sin q``) at random states in
    ``[-2, 2]^2``, as a Hamiltonian neural network learns: the loss compares ``autograd.grad`` of ``H`` (taken with
    ``create_graph=True``) with the true field. Returns the last loss."""
    generator = torch.Generator().manual_seed(seed)
    dtype = next(hamiltonian.parameters()).dtype
    q, p = (4 * torch.rand(points, 1, generator=generator, dtype=dtype) - 2 for _ in range(2))
    q.requires_grad_(), p.requires_grad_()
    optimizer = torch.optim.Adam(hamiltonian.parameters(), lr=3e-2)
    for _ in range(steps):
        dq, dp = hamiltonian_gradients(hamiltonian, q, p, create_graph=True)
        loss = ((dp - p) ** 2 + (dq - torch.sin(q)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def hamiltonian_problem(batch: int = 8, width: int = 16) -> tuple:
    """Notebook 08's set-up, which its checkers share: ``(hamiltonian, q0, p0, fit_loss)``, float64, fixed seeds:
    a :class:`SeparableHamiltonian` fitted to a pendulum, and ``batch`` pendulums released at rest from angles
    between 0.5 and 1.5 rad (below the swing-over: bounded orbits).

    >>> hamiltonian, q0, p0, fit_loss = hamiltonian_problem(batch=2, width=4)
    >>> tuple(q0.shape), q0.dtype, fit_loss < 1
    ((2, 1), torch.float64, True)
    """
    hamiltonian = SeparableHamiltonian(width).double()
    fit_loss = fit_to_pendulum(hamiltonian)
    q0 = torch.linspace(0.5, 1.5, batch, dtype=torch.float64).unsqueeze(-1)
    return hamiltonian, q0, torch.zeros_like(q0), fit_loss

