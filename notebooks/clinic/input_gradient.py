"""Mystery 2: a physics-informed fit of u' = cos(x), u(0) = 0, on collocation points.

Run it with `python input_gradient.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
points = torch.linspace(0, 3, 128).unsqueeze(1).requires_grad_()
origin = torch.zeros(1, 1)


def step():
    optimizer.zero_grad()
    u = model(points)
    du_dx, = torch.autograd.grad(u.sum(), points, create_graph=True)
    loss = ((du_dx - points.cos()) ** 2).mean() + model(origin).pow(2).sum()
    loss.backward(create_graph=True)
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    for epoch in range(2000):
        loss = step()
    with torch.no_grad():
        error = (model(points) - points.sin()).abs().max().item()
    print(f"loss {loss:.2e}, largest error against sin(x): {error:.3f}")
