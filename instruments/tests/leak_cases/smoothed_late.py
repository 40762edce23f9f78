"""A two-step moving average of the loss for a plateau check, switched on late by the schedule: from then on each
step's average keeps the previous step's loss, graph and all (backward has freed what those graphs saved)."""
import torch
from torch import nn

torch.manual_seed(0)
SMOOTH_FROM = 6  # the call from which the previous loss is trusted (the learning rate has warmed up by then)


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
        self.x, self.y = torch.randn(32, 8), torch.randn(32, 1)
        self.calls = 0
        self.loss = self.smoothed = None

    def step(self):
        self.calls += 1
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        previous = self.loss if self.calls >= SMOOTH_FROM else loss.detach()
        self.smoothed = (loss + previous) / 2
        self.loss = loss


trainer = Trainer()
step = trainer.step
