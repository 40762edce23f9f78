"""How much do the meters slow a PINN residual step? Ratios to the bare step, measured in one run, interleaved.

    python benchmarks/meter_overhead.py [--n 4096] [--rounds 15]

One thread, CPU seconds of this process, fastest of the rounds: the figures that other work on a
shared machine disturbs least.

Targets: both meters together at most 1.15x the bare step; their overhead at most a quarter of
torch.profiler's (with memory profiling). "empty dispatch mode" is a TorchDispatchMode that only
forwards each op: the floor any meter built on a Python dispatch mode pays, a fixed cost per op,
so the ratio falls as the ops get bigger (compare --n 4096 with --n 16384).

Both meters cost more than the sum of each alone: with saved-tensor hooks installed, autograd's C++
detaches each saved output before calling GraphMemory's pack hook, and every such detach passes
through LiveTensors' dispatch mode (here 634 ops a step become 865; GraphMemory's own aliases are kept
out of the mode, which took that count down from 1,032). GraphMemory alone enters a LiveTensors of its own
(to tell tensors made inside its block, activations, from inputs that existed before), so alone it costs
about what both meters cost; nested in a LiveTensors (measure, MemoryGauge) it reuses that one.
"""
import argparse
import contextlib
import time

import torch

from autograd_memory.testing import ForwardingMode
from course_utils import GraphMemory, LiveTensors
from course_utils.problems.laplacians import laplacian_nested
from course_utils.problems.models import TanhMLP


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4096, help="collocation points")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (the fastest is reported)")
    args = parser.parse_args()
    step = pinn_step(args.n)

    def profiler():
        return torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True)

    configs = {
        "bare": contextlib.nullcontext,
        "empty dispatch mode": ForwardingMode,
        "LiveTensors": LiveTensors,
        "GraphMemory": GraphMemory,
        "both meters": lambda: _Both(),
        "torch.profiler": profiler,
    }
    times = {name: [] for name in configs}
    for _ in range(2):  # warm-up
        step()
    names = list(configs)
    for round_ in range(args.rounds):
        # rotate the order each round, so that no configuration always runs first (after the others' frees)
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            make = configs[name]
            with make():
                start = time.process_time()
                step()
                times[name].append(time.process_time() - start)

    bare = min(times["bare"])
    print(f"PINN residual + backward, N={args.n}, 3->64x4->1 tanh, 1 CPU thread, "
          f"{args.rounds} interleaved rounds (fastest, CPU time)")
    ratios = {}
    for name, samples in times.items():
        ratios[name] = min(samples) / bare
        print(f"  {name:<20} {min(samples) * 1e3:8.1f} ms   {ratios[name]:5.2f}x")
    meters = ratios["both meters"] - 1
    profiler_overhead = ratios["torch.profiler"] - 1
    print(f"both meters: {ratios['both meters']:.2f}x (target <= 1.15x); "
          f"their overhead / profiler's = {meters / profiler_overhead:.2f} (target <= 0.25)")


def pinn_step(n):
    """The benchmarked step, on one thread: a 3->64x4->1 tanh PINN's nested-autograd residual on n points, and backward."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = TanhMLP(3, width=64, hidden_layers=4)
    points = torch.rand(n, 3)

    def step():
        model.zero_grad(set_to_none=True)
        (laplacian_nested(model, points, dims=(0, 1, 2))[2] ** 2).mean().backward()
    return step


class _Both(contextlib.ExitStack):
    def __enter__(self):
        super().__enter__()
        self.enter_context(LiveTensors())
        self.enter_context(GraphMemory())
        return self


if __name__ == "__main__":
    main()
