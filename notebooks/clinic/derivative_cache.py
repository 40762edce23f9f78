"""Mystery 4: a PINN for u'' = -sin(x) that caches derivatives, as DeepXDE-style code does,
so that a Jacobian used by two loss terms is computed once.

Run it with `python derivative_cache.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
points = torch.linspace(0, 3.14, 128).unsqueeze(1).requires_grad_()
jacobians = {}  # (id(y), id(x)) -> (y, dy/dx)


def jacobian(y, x):
    """dy/dx, computed once per (y, x) pair."""
    key = (id(y), id(x))
    if key not in jacobians:
        jacobians[key] = (y, torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0])
    return jacobians[key][1]


def step():
    optimizer.zero_grad()
    u = model(points)
    u_xx = jacobian(jacobian(u, points), points)
    boundary = u[0] ** 2 + u[-1] ** 2
    loss = ((u_xx + points.sin()) ** 2).mean() + jacobian(u, points).mean() ** 2 + boundary.sum()
    loss.backward()
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    for iteration in range(1, 2001):
        loss = step()
        if iteration % 500 == 0:
            print(f"iteration {iteration}: loss {loss:.3e}")
