"""Magnitude pruning that masks a layer's gradient with a hook, and registers the hook again at every mask update
(here every step): each hook stays on the parameter, and every backward runs them all."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(16, 16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(32, 16)
mask = (model.weight.detach().abs() > 0.1).float()


def step():
    optimizer.zero_grad()
    model.weight.register_hook(lambda grad: grad * mask)
    model(x).pow(2).mean().backward()
    optimizer.step()
