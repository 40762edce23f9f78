"""Momentum SGD written by hand for an embedding with sparse gradients, as torch's SGD once did it: the momentum
buffer is a sparse tensor updated in place (``mul_(...).add_(grad)``), and an in-place add of sparse tensors
concatenates their entries, so the buffer grows by a batch's rows every step."""
import torch
from torch import nn

torch.manual_seed(0)
embedding = nn.Embedding(100_000, 16, sparse=True)
batches = torch.Generator().manual_seed(0)
state = {}


def step():
    rows = torch.randint(0, 100_000, (12,), generator=batches)
    embedding.zero_grad()
    embedding(rows).sum().backward()
    grad = embedding.weight.grad
    with torch.no_grad():
        if "momentum" not in state:
            state["momentum"] = grad.clone()
        else:
            state["momentum"].mul_(0.9).add_(grad)
        embedding.weight.add_(state["momentum"], alpha=-0.1)
