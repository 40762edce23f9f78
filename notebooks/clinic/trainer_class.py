"""Mystery 7: a Trainer class that reports the mean loss of each epoch.

Run it with `python trainer_class.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)


class Trainer:
    """Trains a model on a list of batches and keeps the loss summed over the epoch."""

    def __init__(self, model, optimizer, batches):
        self.model, self.optimizer, self.batches = model, optimizer, batches
        self.total_loss, self.seen = 0.0, 0

    def train_step(self):
        x, y = self.batches[self.seen % len(self.batches)]
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.total_loss += loss
        self.seen += 1

    def mean_loss(self):
        return self.total_loss / max(self.seen, 1)


model = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(x, x.sum(dim=1, keepdim=True).sin()) for x in torch.randn(10, 32, 8)]
trainer = Trainer(model, optimizer, batches)
step = trainer.train_step


if __name__ == "__main__":
    for epoch in range(20):
        for _ in range(len(batches)):
            step()
        print(f"epoch {epoch}: mean loss {trainer.mean_loss():.4f}")
