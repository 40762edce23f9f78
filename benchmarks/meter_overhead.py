"""How much do the meters slow a PINN residual step? Ratios to the bare step, measured in one run, interleaved.

    python benchmarks/meter_overhead.py [--n 4096] [--rounds 15]

Targets: both meters together at most 1.15x the bare step; their overhead at most a quarter of
torch.profiler's (with memory profiling).
"""
import argparse
import contextlib
import statistics
import time

import torch

from course_utils import GraphMemory, LiveTensors
from course_utils.pinn import TanhMLP, laplacian_nested


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4096, help="collocation points")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (median is reported)")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = TanhMLP(3, width=64, depth=4)
    points = torch.rand(args.n, 3)

    def step():
        model.zero_grad(set_to_none=True)
        (laplacian_nested(model, points, dims=(0, 1, 2))[2] ** 2).mean().backward()

    def profiler():
        return torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True)

    configs = {
        "bare": contextlib.nullcontext,
        "LiveTensors": LiveTensors,
        "GraphMemory": GraphMemory,
        "both meters": lambda: _Both(),
        "torch.profiler": profiler,
    }
    times = {name: [] for name in configs}
    for _ in range(2):  # warm-up
        step()
    for _ in range(args.rounds):
        for name, make in configs.items():
            with make():
                start = time.perf_counter()
                step()
                times[name].append(time.perf_counter() - start)

    bare = statistics.median(times["bare"])
    print(f"PINN residual + backward, N={args.n}, 3->64x4->1 tanh, CPU threads={torch.get_num_threads()}, "
          f"{args.rounds} interleaved rounds (median)")
    ratios = {}
    for name, samples in times.items():
        ratios[name] = statistics.median(samples) / bare
        print(f"  {name:<15} {statistics.median(samples) * 1e3:8.1f} ms   {ratios[name]:5.2f}x")
    meters = ratios["both meters"] - 1
    profiler_overhead = ratios["torch.profiler"] - 1
    print(f"both meters: {ratios['both meters']:.2f}x (target <= 1.15x); "
          f"their overhead / profiler's = {meters / profiler_overhead:.2f} (target <= 0.25)")


class _Both(contextlib.ExitStack):
    def __enter__(self):
        super().__enter__()
        self.enter_context(LiveTensors())
        self.enter_context(GraphMemory())
        return self


if __name__ == "__main__":
    main()
