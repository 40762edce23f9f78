"""Mystery 1: a regression trainer that keeps a history of its losses for a plot at the end.

Run it with `python loss_history.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
inputs = torch.randn(256, 8)
targets = inputs.sum(dim=1, keepdim=True).sin()
losses = []  # one entry per step, plotted after training


def step():
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    losses.append(loss)


if __name__ == "__main__":
    for _ in range(2000):
        step()
    print(f"final loss {losses[-1]:.4f}")
