"""Mystery 5: a sensor model that carries a running memory of past readings from step to step.

Run it with `python recurrent_state.py`, or in notebook 07 with find_leaks(step).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.ModuleDict({"encoder": nn.Linear(4, 32), "readout": nn.Linear(32, 1)})
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
generator = torch.Generator().manual_seed(1)
memory = torch.zeros(16, 32)


def step():
    global memory
    optimizer.zero_grad()
    readings = torch.randn(16, 4, generator=generator)
    target = readings.sum(dim=1, keepdim=True)
    memory = torch.tanh(0.9 * memory + model["encoder"](readings))
    loss = nn.functional.mse_loss(model["readout"](memory), target)
    loss.backward(retain_graph=True)  # without it: "Trying to backward through the graph a second time"
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    losses = [step() for _ in range(200)]
    print(f"mean loss, first 20 steps {sum(losses[:20]) / 20:.3f}, last 20 {sum(losses[-20:]) / 20:.3f}")
