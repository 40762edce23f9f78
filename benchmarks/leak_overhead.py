"""What do find_leaks and timeline cost on real models: a fixed part per call, and a part per step?

    python benchmarks/leak_overhead.py [--device cpu|cuda] [--rounds 7] [--models conv,transformer,lstm] [--json FILE]

Three training steps (zero_grad, forward, backward, Adam): a conv net, a ``nn.TransformerEncoder`` and a 2-layer
``nn.LSTM`` (larger on CUDA, where a small step is all kernel launches). Each tool's time is split by running it over
two numbers of steps and fitting a line, ``time = fixed + steps x per step``:

* ``find_leaks(step, steps=s, warmup=1)`` with s = 2 and 8 (so 3 and 9 steps run);
* ``timeline(k steps, model, optimizer)`` with k = 1 and 4 (one call over k steps in a row).

The **fixed part** is what a call costs whatever its steps (entering the meters, the search for holders, the report,
the collections). Most of it is the search for holders (run after the warm-up and at the end), which walks what the
caller's names reach, up to its cap (``max_objects``): it is measured four times, from this script's few names; from
names that reach 100,000 small dicts of lists of numbers (a notebook full of data), and 100,000 objects of a class of
the caller's own holding numbers (both read in bulk and skipped); and from names that reach 100,000 objects of the
caller's class that each hold a small tensor, each one visited, past the cap (the worst case). The **per-step part**
is set against the same step under an *empty* ``TorchDispatchMode`` (it only forwards each op: the floor of any
Python-level meter) and against the plain step. Interleaved rounds; for each quantity the median over rounds. On the
CPU, one thread and CPU seconds of this process; on CUDA, wall seconds with the device synchronised before each
reading (``torch.cuda.synchronize``).

Targets: the per-step part within 1.5x the empty mode's step, the fixed part under 0.2 s.
"""
import argparse
import datetime
import json
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import torch
from torch import nn

from autograd_memory import find_leaks, timeline
from autograd_memory.testing import ForwardingMode

LEAK_STEPS, TIMELINE_STEPS, WARMUP = (2, 8), (1, 4), 1
RICH = 100_000  # small containers a rich namespace reaches: more than the holder search's cap
ROOT = pathlib.Path(__file__).resolve().parents[1]


def conv_net(device, large):
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).to(device)
    batch, side = (128, 64) if large else (16, 32)
    x, y = torch.randn(batch, 3, side, side, device=device), torch.randint(0, 10, (batch,), device=device)
    return model, lambda: nn.functional.cross_entropy(model(x), y)


def transformer(device, large):
    width, layers = (512, 4) if large else (64, 2)
    layer = nn.TransformerEncoderLayer(d_model=width, nhead=8 if large else 4, dim_feedforward=2 * width,
                                       batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False).to(device)
    x = torch.randn(32 if large else 8, 128 if large else 32, width, device=device)
    return model, lambda: model(x).square().mean()


def lstm(device, large):
    features, hidden = (256, 512) if large else (32, 64)
    model = nn.LSTM(features, hidden, num_layers=2, batch_first=True).to(device)
    x = torch.randn(64 if large else 8, 50 if large else 20, features, device=device)
    return model, lambda: model(x)[0].square().mean()


MODELS = {"conv": conv_net, "transformer": transformer, "lstm": lstm}


def training_step(make, device):
    torch.manual_seed(0)
    model, loss_of = make(device, large=device.type == "cuda")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        optimizer.zero_grad()
        loss_of().backward()
        optimizer.step()
    return model, optimizer, step


class Record:
    """A learner's own object holding numbers: the search reads many of them at once (none holds a tensor)."""

    def __init__(self, i):
        self.value = [i]


class Sample:
    """A learner's own object holding a tensor: the search visits each, and the tensor."""

    def __init__(self, i):
        self.x = torch.full((1,), float(i))


def from_a_rich_namespace(objects):
    """``find_leaks`` called where the caller's names reach ``objects`` (the search walks them, up to its cap)."""
    def call(step, steps):
        reached = objects  # noqa: F841  a local of the calling frame: the search starts from it
        return find_leaks(step, steps=steps, warmup=WARMUP)
    return call


def clock_for(device):
    """CPU seconds of this process on the CPU; on CUDA, wall seconds read after the device finished its work."""
    if device.type == "cuda":
        def clock():
            torch.cuda.synchronize(device)
            return time.perf_counter()
        return clock
    return time.process_time


def line(xs, ys):
    """(intercept, slope) of the straight line through two points."""
    slope = (ys[1] - ys[0]) / (xs[1] - xs[0])
    return ys[0] - slope * xs[0], slope


def measure(make, device, rounds):
    model, optimizer, step = training_step(make, device)
    clock = clock_for(device)

    def steps(n):
        for _ in range(n):
            step()

    def under_empty_mode(n):
        with ForwardingMode():
            steps(n)

    runs = {("plain", n): (lambda n=n: steps(n)) for n in (1, 4)}
    runs.update({("empty", n): (lambda n=n: under_empty_mode(n)) for n in (1, 4)})
    runs.update({("find_leaks", s): (lambda s=s: find_leaks(step, steps=s, warmup=WARMUP)) for s in LEAK_STEPS})
    runs.update({("timeline", k): (lambda k=k: timeline(lambda: steps(k), model, optimizer)) for k in TIMELINE_STEPS})
    data = from_a_rich_namespace([{"value": [i]} for i in range(RICH)])
    runs.update({("find_leaks, plain data", s): (lambda s=s: data(step, s)) for s in LEAK_STEPS})
    records = from_a_rich_namespace([Record(i) for i in range(RICH)])
    runs.update({("find_leaks, records", s): (lambda s=s: records(step, s)) for s in LEAK_STEPS})
    rich = from_a_rich_namespace([Sample(i) for i in range(RICH)])
    runs.update({("find_leaks, rich namespace", s): (lambda s=s: rich(step, s)) for s in LEAK_STEPS})
    steps(3)  # Adam's state exists, and the first calls' lazy imports and caches are behind us
    for run in runs.values():
        run()
    samples = {key: [] for key in runs}
    order = list(runs)
    for round_ in range(rounds):
        for key in order[round_ % len(order):] + order[:round_ % len(order)]:
            start = clock()
            runs[key]()
            samples[key].append(clock() - start)
    # per round: each line fitted to runs made moments apart, so that a shared machine's drift in speed cancels
    per_round = []
    for r in range(rounds):
        t = {key: values[r] for key, values in samples.items()}
        plain = (t["plain", 4] - t["plain", 1]) / 3
        empty = (t["empty", 4] - t["empty", 1]) / 3
        leaks = line([WARMUP + s for s in LEAK_STEPS], [t["find_leaks", s] for s in LEAK_STEPS])
        memory = line(list(TIMELINE_STEPS), [t["timeline", k] for k in TIMELINE_STEPS])
        capped = line([WARMUP + s for s in LEAK_STEPS], [t["find_leaks, rich namespace", s] for s in LEAK_STEPS])
        plain_data = line([WARMUP + s for s in LEAK_STEPS], [t["find_leaks, plain data", s] for s in LEAK_STEPS])
        own = line([WARMUP + s for s in LEAK_STEPS], [t["find_leaks, records", s] for s in LEAK_STEPS])
        per_round.append({
            "plain_step_ms": plain * 1e3, "empty_mode_step_ms": empty * 1e3, "empty_mode_x_plain": empty / plain,
            "find_leaks_fixed_s": leaks[0], "find_leaks_per_step_ms": leaks[1] * 1e3,
            "find_leaks_per_step_x_empty": leaks[1] / empty, "find_leaks_per_step_x_plain": leaks[1] / plain,
            "find_leaks_steps5_x_6_plain": (leaks[0] + 6 * leaks[1]) / (6 * plain),
            "find_leaks_fixed_s_plain_data": plain_data[0], "find_leaks_fixed_s_records": own[0],
            "find_leaks_fixed_s_search_capped": capped[0],
            "timeline_fixed_s": memory[0], "timeline_per_step_ms": memory[1] * 1e3,
            "timeline_per_step_x_empty": memory[1] / empty, "timeline_per_step_x_plain": memory[1] / plain,
            "timeline_x_plain": (memory[0] + memory[1]) / plain,
        })
    return {name: round(statistics.median(result[name] for result in per_round), 4) for name in per_round[0]}


def provenance(device, command):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or platform.machine()
    return {"device": str(device), "device_name": name, "torch": torch.__version__, "python": platform.python_version(),
            "threads": torch.get_num_threads(), "commit": commit.stdout.strip() or "unknown (no git)",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "command": command,
            "clock": "wall seconds, device synchronised" if device.type == "cuda" else "CPU seconds of this process"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default: cpu)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (the median of each quantity)")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--json", type=pathlib.Path, help="also write the results here, with their provenance")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch.cuda.is_available() is False here; run it on a machine with a GPU")
    if device.type == "cpu":
        torch.set_num_threads(1)
    command = " ".join(["python", "benchmarks/leak_overhead.py", *(sys.argv[1:] if argv is None else argv)])
    results = {}
    print(f"on {device}; fixed part per call, per-step part against the empty mode's step and the plain step "
          f"(median of {args.rounds} rounds)")
    print(f"  {'model':<12} {'plain step':>11} {'empty mode':>11} {'find_leaks fixed':>17} {'(data)':>9} {'(records)':>9} "
          f"{'(capped)':>9} {'per step':>17} {'timeline fixed':>15} {'per step':>17}")
    for name in args.models.split(","):
        r = results[name] = measure(MODELS[name], device, args.rounds)
        print(f"  {name:<12} {r['plain_step_ms']:8.2f} ms {r['empty_mode_x_plain']:10.2f}x "
              f"{r['find_leaks_fixed_s']:15.3f} s {r['find_leaks_fixed_s_plain_data']:7.3f} s "
              f"{r['find_leaks_fixed_s_records']:7.3f} s {r['find_leaks_fixed_s_search_capped']:7.3f} s "
              f"{r['find_leaks_per_step_x_empty']:6.2f}x empty "
              f"{r['timeline_fixed_s']:13.3f} s {r['timeline_per_step_x_empty']:6.2f}x empty")
    print("targets: per step <= 1.50x the empty mode, fixed part < 0.2 s; the fixed part where the caller's names reach "
          f"{RICH:,} dicts of plain data (data), {RICH:,} objects of the caller's class holding numbers (records), and "
          f"{RICH:,} objects of the caller's class each holding a tensor, past the holder search's cap (capped)")
    if args.json:
        args.json.write_text(json.dumps({"provenance": provenance(device, command), "models": results}, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
