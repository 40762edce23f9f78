"""How much do find_leaks and timeline cost on real models, next to an empty dispatch mode around the same steps?

    python benchmarks/leak_overhead.py [--rounds 9] [--models conv,transformer,lstm]

Three training steps (forward, backward, Adam): a small conv net, a 2-layer ``nn.TransformerEncoder``
and a 2-layer ``nn.LSTM``. For each, in one run and interleaved: the steps under an *empty*
``TorchDispatchMode`` (it only forwards each op: the floor of any Python-level meter), the whole
``find_leaks(step, steps=5, warmup=1)`` call (all its readings included) against 6 such steps, and
``timeline(step, model, optimizer)`` against one. One thread, CPU seconds of this process; ratios only: each
round's tool time over its empty-mode time of the same round (moments apart, so a shared machine's drift in speed
cancels), the median of the rounds reported with their lowest and highest. "first call" is the first
find_leaks/timeline call on that model against the fastest later one; the process's very first calls (cold
caches, lazy imports) are measured on a sub-millisecond step (a Linear layer) before anything else runs.

Targets: find_leaks <= 1.3x, timeline <= 1.6x the empty mode; a first call <= 2x a later one.
"""
import argparse
import statistics
import time

import torch
from torch import nn

from autograd_memory import find_leaks, timeline
from autograd_memory.seams.torch_internals import TorchDispatchMode

STEPS, WARMUP = 5, 1


class EmptyMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def conv_net():
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    x, y = torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))
    return model, lambda: nn.functional.cross_entropy(model(x), y)


def transformer():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    x = torch.randn(8, 32, 64)
    return model, lambda: model(x).square().mean()


def tiny():
    model = nn.Linear(4, 2)
    x = torch.randn(8, 4)
    return model, lambda: model(x).square().mean()


def lstm():
    model = nn.LSTM(32, 64, num_layers=2, batch_first=True)
    x = torch.randn(8, 20, 32)
    return model, lambda: model(x)[0].square().mean()


MODELS = {"small conv net": conv_net, "2-layer TransformerEncoder": transformer, "2-layer LSTM": lstm}


def training_step(make):
    torch.manual_seed(0)
    model, loss_of = make()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        optimizer.zero_grad()
        loss_of().backward()
        optimizer.step()
    return model, optimizer, step


def seconds(run):
    start = time.process_time()
    run()
    return time.process_time() - start


def measure(name, make, rounds):
    model, optimizer, step = training_step(make)

    def under_empty_mode(n):
        with EmptyMode():
            for _ in range(n):
                step()

    configs = {
        "empty mode x6": lambda: under_empty_mode(WARMUP + STEPS),
        "find_leaks": lambda: find_leaks(step, steps=STEPS, warmup=WARMUP),
        "empty mode x1": lambda: under_empty_mode(1),
        "timeline": lambda: timeline(step, model, optimizer),
    }
    step()
    step()  # Adam's state exists: every later step is alike
    first = {"find_leaks": seconds(configs["find_leaks"]), "timeline": seconds(configs["timeline"])}
    times = {config: [] for config in configs}
    names = list(configs)
    for round_ in range(rounds):
        for config in names[round_ % len(names):] + names[:round_ % len(names)]:
            times[config].append(seconds(configs[config]))
    best = {config: min(samples) for config, samples in times.items()}
    # each round's ratio pairs runs made moments apart: a shared machine's drift in speed cancels out
    paired = {tool: [t / e for t, e in zip(times[tool], times[empty])]
              for tool, empty in (("find_leaks", "empty mode x6"), ("timeline", "empty mode x1"))}
    return {
        "find_leaks": statistics.median(paired["find_leaks"]),
        "timeline": statistics.median(paired["timeline"]),
        "spread": {tool: (min(ratios), max(ratios)) for tool, ratios in paired.items()},
        "first find_leaks": first["find_leaks"] / best["find_leaks"],
        "first timeline": first["timeline"] / best["timeline"],
        "step ms": best["empty mode x1"] * 1e3,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (the median of their ratios is reported)")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of: " + ", ".join(MODELS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, optimizer, step = training_step(tiny)
    step()
    step()
    cold = {"find_leaks": [], "timeline": []}
    for _ in range(6):
        cold["find_leaks"].append(seconds(lambda: find_leaks(step, steps=STEPS, warmup=WARMUP)))
        cold["timeline"].append(seconds(lambda: timeline(step, model, optimizer)))
    print("the process's first call on a sub-millisecond step, against the fastest of 5 later ones: "
          + ", ".join(f"{name} {times[0] / min(times[1:]):.2f}x" for name, times in cold.items()))
    print(f"{WARMUP}+{STEPS} steps for find_leaks, 1 for timeline; 1 CPU thread, {args.rounds} interleaved rounds "
          "(CPU time; the median of each round's ratio, lowest-highest in brackets); ratios to an empty TorchDispatchMode "
          "around the same steps")
    print(f"  {'model':<28} {'step (empty mode)':>18} {'find_leaks':>23} {'timeline':>23} {'1st find_leaks':>15} "
          f"{'1st timeline':>13}")
    for name in args.models.split(","):
        result = measure(name, MODELS[name], args.rounds)
        ratios = [f"{result[tool]:.2f}x [{low:.2f}-{high:.2f}]" for tool, (low, high) in result["spread"].items()]
        print(f"  {name:<28} {result['step ms']:15.1f} ms {ratios[0]:>23} {ratios[1]:>23} "
              f"{result['first find_leaks']:14.2f}x {result['first timeline']:12.2f}x")
    print("targets: find_leaks <= 1.30x, timeline <= 1.60x, first call <= 2x a later one")


if __name__ == "__main__":
    main()
