"""A training loop written as a class that keeps each step's loss for a plot at the end."""
import torch
from torch import nn

torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 1))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.x = torch.randn(256, 8)
        self.y = self.x.sum(dim=1, keepdim=True).sin()
        self.losses = []

    def step(self):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        self.losses.append(loss)


trainer = Trainer()
step = trainer.step
