"""Hidden activations logged by a forward hook that the step registers every time it runs."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 8), torch.randn(32, 1)
activations = {}


def save(name):
    def hook(module, args, output):
        activations.setdefault(name, []).append(output.detach())
    return hook


def step():
    model[1].register_forward_hook(save("hidden"))
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
