"""Mystery 8: an L-BFGS curve fit that keeps its progress in a dataclass.

Run it with `python fit_state.py`, or in notebook 07 with find_leaks(step).
"""
from dataclasses import dataclass, field

import torch
from torch import nn

torch.manual_seed(0)


@dataclass
class FitState:
    """What the fit reports at the end: how many times the loss was evaluated, and the worst residual each time."""

    evaluations: int = 0
    worst_residuals: list = field(default_factory=list)


model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=4, history_size=5)
points = torch.linspace(-2, 2, 200).unsqueeze(1)
curve = torch.sin(3 * points)
state = FitState()


def closure():
    optimizer.zero_grad()
    residual = model(points) - curve
    loss = residual.square().mean()
    loss.backward()
    state.evaluations += 1
    state.worst_residuals.append(residual.abs().max())
    return loss


def step():
    optimizer.step(closure)


if __name__ == "__main__":
    for _ in range(50):
        step()
    print(f"{state.evaluations} evaluations, worst residual now {state.worst_residuals[-1].item():.4f}")
