"""The course's one network: a small tanh MLP, reproducible from a seed, that counts what it evaluates.

Notebooks 03 (the integrand), 04 (the vector field), 05 (the PINN) and the selftest all build on it, so a
byte count derived for one is derived for all: each hidden layer saves one ``points x width`` tanh output.

>>> import torch
>>> net = TanhMLP(inputs=2, outputs=2, width=8)
>>> net(torch.zeros(5, 2)).shape, net.calls, net.points_seen
(torch.Size([5, 2]), 1, 5)
>>> [tuple(layer.weight.shape) for layer in TanhMLP(3, width=4, hidden_layers=2).linears]
[(4, 3), (4, 4), (1, 4)]
"""
import torch


class TanhMLP(torch.nn.Module):
    """``inputs -> width (x hidden_layers, tanh) -> outputs``; the same weights for the same ``seed``.

    ``calls`` and ``points_seen`` count forward passes and the rows they evaluated, so a checkpoint's
    recomputation can be counted instead of timed. ``linears`` lists the ``nn.Linear`` layers in order.
    """

    def __init__(self, inputs, outputs=1, *, width=64, hidden_layers=1, seed=0):
        super().__init__()
        if hidden_layers < 1:
            raise ValueError(f"a TanhMLP needs at least one hidden layer, got hidden_layers={hidden_layers}")
        with torch.random.fork_rng(devices=[]):  # the same weights for a seed, the global RNG untouched
            torch.manual_seed(seed)
            layers = [torch.nn.Linear(inputs, width), torch.nn.Tanh()]
            for _ in range(hidden_layers - 1):
                layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
            layers.append(torch.nn.Linear(width, outputs))
            self.layers = torch.nn.Sequential(*layers)
        self.width, self.hidden_layers = width, hidden_layers
        self.calls = self.points_seen = 0

    @property
    def linears(self):
        return [layer for layer in self.layers if isinstance(layer, torch.nn.Linear)]

    def forward(self, x):
        self.calls += 1
        self.points_seen += x.shape[:-1].numel()
        return self.layers(x)
