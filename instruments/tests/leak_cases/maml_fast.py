"""MAML-style fast weights kept on the parameters themselves, chained from step to step."""
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Linear(8, 8)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
x, y = torch.randn(16, 8), torch.randn(16, 8)


def reset_fast_weights():
    for p in net.parameters():
        p.fast = p


reset_fast_weights()


def step():
    inner = nn.functional.mse_loss(nn.functional.linear(x, net.weight.fast, net.bias.fast), y)
    grads = torch.autograd.grad(inner, [net.weight.fast, net.bias.fast], create_graph=True)
    for p, g in zip(net.parameters(), grads):
        p.fast = p.fast - 0.1 * g
    outer = nn.functional.mse_loss(nn.functional.linear(x, net.weight.fast, net.bias.fast), y)
    optimizer.zero_grad()
    outer.backward(retain_graph=True)  # the fast weights' graph is used again next step
    optimizer.step()
