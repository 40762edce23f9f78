"""A loop that keeps each step's metrics as a dict of tensors, to average them at the end of the epoch."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(64, 8), torch.randn(64, 1)
outputs = []


def step():
    optimizer.zero_grad()
    prediction = model(x)
    loss = nn.functional.mse_loss(prediction, y)
    loss.backward()
    optimizer.step()
    outputs.append({"loss": loss, "mae": (prediction - y).abs().mean()})
