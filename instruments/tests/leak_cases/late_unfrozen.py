"""Fine-tuning: the second head stays frozen for the first steps, then is unfrozen."""
import torch
from torch import nn

torch.manual_seed(0)


class FineTuner:
    def __init__(self):
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.head1 = nn.Linear(32, 4)
        self.head2 = nn.Linear(32, 25)
        self.head2.requires_grad_(False)
        params = [*self.body.parameters(), *self.head1.parameters(), *self.head2.parameters()]
        self.optimizer = torch.optim.SGD(params, lr=0.01)
        self.x, self.y = torch.randn(8, 16), torch.randn(8, 4)
        self.calls = 0

    def step(self):
        self.calls += 1
        if self.calls == 5:
            self.head2.requires_grad_(True)
        self.optimizer.zero_grad()
        h = self.body(self.x)
        loss = nn.functional.mse_loss(self.head1(h), self.y) + self.head2(h).pow(2).mean()
        loss.backward()
        self.optimizer.step()


tuner = FineTuner()
step = tuner.step
