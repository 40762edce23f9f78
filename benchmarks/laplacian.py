"""Laplacian methods at scale: peak bytes, saved bytes, time per residual + backward step, error.

The notebook 06 table at sizes a notebook cannot afford. For each number of spatial dimensions
``d`` a tanh MLP ``(d + 1) -> width x depth -> 1`` (the last input is time) computes the heat residual
``u_t - alpha * laplacian(u)`` at ``N`` random points with every method in ``course_utils.problems.laplacians.METHODS``
plus nested autograd in chunks, then back-propagates to the parameters. Times are the fastest of
``--repeats`` runs (on CPU with one thread: CPU seconds of this process); compare them only within
one file (one machine, one run).

    python benchmarks/laplacian.py                         # CPU, writes data/laplacian_cpu.json
    python benchmarks/laplacian.py --device cuda --n 16384 --width 128 --depth 4 --dims 2 8 32 128

Writes ``data/laplacian_<device type>.json`` unless ``--out`` says otherwise.
"""
import argparse
import datetime
import json
import pathlib
import time

import torch

from course_utils import format_bytes, laplacians, pick_device
from course_utils.problems.models import TanhMLP
from course_utils.setup.devices import device_name

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(n, width, depth, dims, device, repeats, chunks, clock):
    results = []
    for d in dims:
        model = TanhMLP(d + 1, width=width, hidden_layers=depth).to(device)
        points = torch.rand(n, d + 1, generator=torch.Generator().manual_seed(d)).to(device)
        methods = dict(laplacians.METHODS)
        methods[f"nested autograd.grad in {chunks} chunks"] = (laplacians.laplacian_nested, -(-n // chunks))
        start = time.perf_counter()
        rows = laplacians.compare_laplacians(model, points, methods, repeats=repeats, clock=clock)
        print(f"d = {d}  ({time.perf_counter() - start:.1f} s)")
        for row in rows:
            print(f"  {row['method']:<48} peak {format_bytes(row['peak_bytes']):>9}  saved "
                  f"{format_bytes(row['saved_bytes']):>9}  {row['ms']:8.2f} ms  error {row['max_error']:.1e}")
        results.append({"d": d, "rows": rows})
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2048, help="collocation points")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--depth", type=int, default=4, help="hidden layers")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 8, 32], help="spatial dimensions d")
    parser.add_argument("--device", default=None, help="cpu, cuda, mps (default: the best available)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per method (the fastest counts)")
    parser.add_argument("--chunks", type=int, default=4, help="chunks for the gradient-accumulation row")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads on CPU (default 1: times are then this process's CPU seconds, "
                             "which other programs on a shared machine do not inflate; 0 keeps torch's default "
                             "and times wall seconds)")
    parser.add_argument("--out", type=pathlib.Path, default=None)
    args = parser.parse_args(argv)

    device = pick_device(args.device)
    clock, clock_name = time.perf_counter, "wall seconds"
    if device.type == "cpu" and args.threads:
        torch.set_num_threads(args.threads)
        if args.threads == 1:
            clock, clock_name = time.process_time, "CPU seconds of this process"
    out = args.out or ROOT / "data" / f"laplacian_{device.type}.json"
    started = time.perf_counter()
    results = run(args.n, args.width, args.depth, args.dims, device, args.repeats, args.chunks, clock)
    record = {
        "device": device.type,
        "device_name": device_name(device),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "clock": clock_name,
        "date": datetime.date.today().isoformat(),
        "options": {"n": args.n, "width": args.width, "depth": args.depth, "dims": args.dims,
                    "repeats": args.repeats, "chunks": args.chunks, "dtype": "float32"},
        "seconds": round(time.perf_counter() - started, 1),
        "results": results,
    }
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out} ({record['seconds']} s)")


if __name__ == "__main__":
    main()
