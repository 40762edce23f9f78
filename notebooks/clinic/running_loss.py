"""Mystery 6: a trainer that reports the mean loss of every epoch.

Run it with `python running_loss.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(x, x.sum(dim=1, keepdim=True).sin()) for x in torch.randn(10, 32, 8)]
running_loss, seen = 0.0, 0


def step():
    global running_loss, seen
    x, y = batches[seen % len(batches)]
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    running_loss = running_loss + loss
    seen += 1


if __name__ == "__main__":
    for epoch in range(20):
        for _ in range(len(batches)):
            step()
        print(f"epoch {epoch}: mean loss {running_loss / seen:.4f}")
