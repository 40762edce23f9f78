"""Mystery 3: a classifier whose forward hooks log each layer's activation spread, to spot dead units.

Run it with `python activation_hook.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(128, 16)
labels = inputs[:, :4].argmax(dim=1)
spread = {}  # layer name -> the std of its output, one per step


def log_spread(name):
    history = spread.setdefault(name, [])

    def hook(module, args, output):
        history.append(output.std())
    return hook


for name, layer in model.named_children():
    if isinstance(layer, nn.ReLU):
        layer.register_forward_hook(log_spread(name))


def step():
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    for _ in range(500):
        step()
    print({name: f"{values[-1].item():.3f}" for name, values in spread.items()})
