"""How much does find_leaks cost on a PINN step, next to the same steps under a plain LiveTensors?

    python benchmarks/leak_overhead.py [--n 4096] [--rounds 5]

One thread, CPU seconds of this process, fastest of interleaved rounds; ratios within one run.
"find_leaks" is the whole call (warm-up + steps, two gc passes, the graph-node count, RSS);
"recording only" runs the same steps under find_leaks' meter without the report, to show what
remembering each storage's line costs by itself. Target: find_leaks <= 1.5x plain LiveTensors.
"""
import argparse
import time

from meter_overhead import pinn_step

from course_utils import LiveTensors, find_leaks
from autograd_memory.leaks import _SiteMeter

STEPS, WARMUP = 5, 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4096, help="collocation points")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the fastest is reported)")
    args = parser.parse_args()
    step = pinn_step(args.n)  # the step benchmarks/meter_overhead.py measures

    def steps_under(meter):
        with meter:
            for _ in range(WARMUP + STEPS):
                step()

    configs = {
        "plain LiveTensors": lambda: steps_under(LiveTensors()),
        "recording only": lambda: steps_under(_SiteMeter()),
        "find_leaks": lambda: find_leaks(step, steps=STEPS, warmup=WARMUP),
    }
    times = {name: [] for name in configs}
    step()  # warm-up
    names = list(configs)
    for round_ in range(args.rounds):
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            start = time.process_time()
            configs[name]()
            times[name].append(time.process_time() - start)

    base = min(times["plain LiveTensors"])
    print(f"PINN residual + backward, N={args.n}, 3->64x4->1 tanh, {WARMUP}+{STEPS} steps, 1 CPU thread, "
          f"{args.rounds} interleaved rounds (fastest, CPU time)")
    for name, samples in times.items():
        print(f"  {name:<18} {min(samples) * 1e3:8.1f} ms   {min(samples) / base:5.2f}x")
    print(f"find_leaks: {min(times['find_leaks']) / base:.2f}x plain LiveTensors (target <= 1.5x)")


if __name__ == "__main__":
    main()
