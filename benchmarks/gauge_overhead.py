"""How much does a live MemoryGauge slow a loop? 2,000 steps of about 1 ms, with and without it, in one run.

    python benchmarks/gauge_overhead.py [--steps 2000] [--rounds 3]

Times are CPU seconds of this process (one torch thread), so that other programs on a shared
machine slow the wall clock but not the comparison. Variants run in turns (round-robin); each
variant's time is its fastest round:

* ``bare``          the loop alone
* ``meters only``   inside LiveTensors + GraphMemory (what any exact measurement costs: a hook per op)
* ``gauge, text``   ``for _ in gauge.track(...)`` with no frontend (a script)
* ``gauge, widget`` the same with the ipywidgets panel updated (no frontend attached, as under nbval)

The step is one matrix product sized to take about 1 ms here. Target: gauge / bare <= 1.05.
"""
import argparse
import contextlib
import io
import time

import torch

from course_utils import GraphMemory, LiveTensors, MemoryGauge


def make_step(target_seconds=1e-3):
    """A one-op step (a square matrix product) sized to take about ``target_seconds`` of CPU here."""
    n = 64
    while True:
        a, b = torch.randn(n, n), torch.randn(n, n)
        start = time.process_time()
        for _ in range(50):
            torch.mm(a, b)
        seconds = (time.process_time() - start) / 50
        if seconds >= target_seconds or n >= 4096:
            return (lambda: torch.mm(a, b)), n, seconds
        n = int(n * min(1.25, max(1.02, (target_seconds / seconds) ** (1 / 3))))


def bare(step, steps):
    for _ in range(steps):
        step()


def meters_only(step, steps):
    with LiveTensors(), GraphMemory():
        for _ in range(steps):
            step()


def gauge_loop(mode):
    def run(step, steps):
        for _ in MemoryGauge(meters=("saved", "live", "rss", "cuda_allocated", "cuda_reserved"),
                             title=f"benchmark ({mode})", mode=mode).track(range(steps)):
            step()
    return run


def own_cost(samples=20_000, redraws=200):
    """CPU cost of ``gauge.sample()`` (between redraws) and of one widget redraw, with the meters on."""
    gauge = MemoryGauge(title="own cost", mode="widget")
    with contextlib.redirect_stdout(io.StringIO()), gauge:
        gauge.sample()  # the first sample redraws; the next ones fall inside the throttle's 0.1 s
        start = time.process_time()
        for _ in range(samples):
            gauge.sample()
        per_sample = (time.process_time() - start) / samples
        start = time.process_time()
        for _ in range(redraws):
            gauge._redraw()
        per_redraw = (time.process_time() - start) / redraws
    return per_sample * 1e6, per_redraw * 1e3


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)

    torch.set_num_threads(1)  # steadier timings on a shared machine
    step, n, seconds = make_step()
    variants = {"bare": bare, "meters only": meters_only, "gauge, text": gauge_loop("text"),
                "gauge, widget": gauge_loop("widget")}
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(args.rounds):
        for name, run in variants.items():
            start = time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):  # the gauges' end-of-loop summaries
                run(step, args.steps)
            best[name] = min(best[name], time.process_time() - start)

    print(f"{args.steps} steps of a {n}x{n} matrix product (~{seconds * 1e3:.2f} ms of CPU each), "
          f"best of {args.rounds} rounds, CPU time, torch threads: 1")
    print(f"  {'variant':<14} {'total':>8} {'per step':>10} {'vs bare':>8} {'vs meters':>10}")
    for name, total in best.items():
        print(f"  {name:<14} {total:7.2f}s {total / args.steps * 1e3:8.3f}ms {total / best['bare']:7.3f}x "
              f"{total / best['meters only']:9.3f}x")
    sample_us, redraw_ms = own_cost()
    print(f"the gauge's own cost: {sample_us:.1f} us per sample, {redraw_ms:.2f} ms per redraw "
          f"(at most 10 redraws/s: <= {redraw_ms:.2f}% of the time); the rest is the meters' hook on every op")
    ratio = best["gauge, widget"] / best["bare"]
    print(f"live gauge / bare: {ratio:.3f}x (target <= 1.05x: {'met' if ratio <= 1.05 else 'NOT met'})")
    return ratio


if __name__ == "__main__":
    main()
