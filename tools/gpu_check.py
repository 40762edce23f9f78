"""`make gpu-check`: everything the course says about CUDA, run on one GPU (at most about 10 minutes).

    make gpu-check                      # the course's environment (.venv) if there is one, else python3
    make gpu-check PYTHON=python3       # a machine's own Python with a CUDA torch (the course from this tree)
    python tools/gpu_check.py --only meters   # one part: selftest, laplacian, meters, notebooks

It runs, on ``cuda``:

1. ``python -m course_utils selftest --device cuda`` -> data/selftest_cuda.json
2. ``benchmarks/laplacian.py --device cuda`` -> data/laplacian_cuda.json
3. the meters, ``find_leaks`` and ``timeline`` against ``torch.cuda.memory_allocated`` -> data/meters_cuda.json
4. every notebook under nbval on this Python's kernel (``--nbval-current-env``; they pick CUDA themselves)
   -> data/notebooks_cuda.json (passed, failed, seconds per notebook)

Each data file carries its provenance (GPU, torch, CUDA, commit, date, the command). Without a usable CUDA device
it refuses at once, with exit code 3 and a message that says what to do; it never falls back to the CPU.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PARTS = ("selftest", "laplacian", "meters", "notebooks")
NO_GPU = 3
BLOCK = 512  # the CUDA caching allocator rounds every block up to 512 bytes: the checks use multiples of it


def refusal(torch):
    """The message for a machine without a usable CUDA device, or None when there is one."""
    if torch.cuda.is_available():
        return None
    build = f"built for CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU-only build"
    return (f"gpu-check: no usable CUDA device here (torch {torch.__version__}, {build}; "
            f"torch.cuda.is_available() is False). It checks the course on a GPU and never falls back to the CPU.\n"
            "Run it on a machine with an NVIDIA GPU and a CUDA build of torch: `make gpu-check` in the course's "
            "environment, or `make gpu-check PYTHON=python3` with that machine's own Python "
            "(docs/setup.md, 'Using a GPU', says how to install a CUDA torch). On the CPU, `make test` checks everything else.")


def provenance(torch, command):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "python": platform.python_version(), "commit": commit.stdout.strip() or "unknown (no git)",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "command": command}


def run(command, log):
    log(f"[gpu-check] $ {' '.join(command)}")
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT)
    return done.returncode, time.perf_counter() - start


def check_meters(torch):
    """The course's meters against the allocator, on CUDA; ``{check: {"ok", "meter", "allocator"}}``."""
    import course_utils as cu

    cuda = torch.device("cuda")
    n = 1 << 20  # 4 MiB of float32: a multiple of the allocator's block, so logical bytes equal allocated bytes
    results = {}

    def record(name, meter, allocator):
        results[name] = {"ok": meter == allocator, "meter": meter, "allocator": allocator}

    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    with cu.LiveTensors() as live:
        kept = [torch.ones(n, device=cuda).exp() for _ in range(3)]
    torch.cuda.synchronize()
    record("LiveTensors.by_device['cuda:0'] == memory_allocated growth", live.by_device.get("cuda:0", 0),
           torch.cuda.memory_allocated() - before)
    del kept

    x = torch.ones(n, device=cuda, requires_grad=True)
    with cu.GraphMemory() as graph:
        y = x.exp().sin().sum()
    torch.cuda.synchronize()
    held = torch.cuda.memory_allocated()
    (gradient,) = torch.autograd.grad(y, x)
    del gradient
    torch.cuda.synchronize()
    record("GraphMemory.bytes == what backward frees", graph.bytes, held - torch.cuda.memory_allocated())
    del x, y

    history = []
    model = torch.nn.Linear(1024, 1024).to(cuda)

    def leaky_step():
        loss = model(torch.ones(256, 1024, device=cuda)).square().mean()
        loss.backward()
        history.append(loss.detach() + torch.zeros(n, device=cuda))  # 4 MiB a step, kept
    report = cu.find_leaks(leaky_step, steps=4)
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    for _ in range(4):
        leaky_step()
    torch.cuda.synchronize()
    record("find_leaks: top row's bytes/step == memory_allocated growth/step", report.top.bytes_per_step,
           (torch.cuda.memory_allocated() - start) / 4)
    history.clear()

    optimizer = torch.optim.Adam(model.parameters())
    data = torch.ones(256, 1024, device=cuda)

    def step():
        optimizer.zero_grad()
        model(data).square().mean().backward()
        optimizer.step()
    step()  # Adam's state exists from here on: the timeline's step changes nothing lasting
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    memory = cu.timeline(step, model, optimizer)
    torch.cuda.synchronize()
    record("timeline: end - start == memory_allocated growth over the step", memory.total[-1] - memory.total[0],
           torch.cuda.memory_allocated() - start)
    torch.cuda.reset_peak_memory_stats()
    start = torch.cuda.memory_allocated()
    step()
    torch.cuda.synchronize()
    allocator_peak = torch.cuda.max_memory_allocated() - start
    results["timeline: peak of live tensors <= allocator's peak (cuBLAS workspaces are not tensors)"] = {
        "ok": memory.peak - memory.total[0] <= allocator_peak, "meter": memory.peak - memory.total[0],
        "allocator": allocator_peak}
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=PARTS, action="append", help="run these parts only (default: all)")
    parser.add_argument("--data", type=pathlib.Path, default=ROOT / "data", help="where the *_cuda.json files go")
    args = parser.parse_args(argv)
    import torch

    message = refusal(torch)
    if message:
        print(message, file=sys.stderr)
        return NO_GPU
    parts, failed = args.only or PARTS, []
    command = " ".join([pathlib.Path(sys.executable).name, *sys.argv])
    env_python = [sys.executable]
    args.data.mkdir(parents=True, exist_ok=True)
    log = print
    if "selftest" in parts:
        code, _ = run(env_python + ["-m", "course_utils", "selftest", "--device", "cuda",
                                    "--json", str(args.data / "selftest_cuda.json")], log)
        failed += ["selftest"] * bool(code)
    if "laplacian" in parts:
        code, _ = run(env_python + ["benchmarks/laplacian.py", "--device", "cuda",
                                    "--out", str(args.data / "laplacian_cuda.json")], log)
        failed += ["laplacian"] * bool(code)
    if "meters" in parts:
        log("[gpu-check] meters, find_leaks and timeline against torch.cuda.memory_allocated")
        results = check_meters(torch)
        for name, result in results.items():
            log(f"[gpu-check]   {'OK  ' if result['ok'] else 'FAIL'} {name}: {result['meter']} vs {result['allocator']}")
        (args.data / "meters_cuda.json").write_text(json.dumps(
            {"provenance": provenance(torch, command), "checks": results}, indent=2) + "\n")
        failed += ["meters"] * (not all(r["ok"] for r in results.values()))
    if "notebooks" in parts:
        notebooks = {}
        for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
            junit = args.data / f".{notebook.stem}_cuda.xml"
            code, seconds = run(env_python + ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
                                              "--nbval-current-env", "--nbval-cell-timeout=300", "-o", "addopts=",
                                              f"--junitxml={junit}", str(notebook.relative_to(ROOT))], log)
            notebooks[notebook.stem] = {"passed": code == 0, "seconds": round(seconds, 1)}
            junit.unlink(missing_ok=True)
        (args.data / "notebooks_cuda.json").write_text(json.dumps(
            {"provenance": provenance(torch, command), "notebooks": notebooks}, indent=2) + "\n")
        failed += [f"notebook {name}" for name, result in notebooks.items() if not result["passed"]]
    if failed:
        log(f"[gpu-check] FAILED: {', '.join(failed)} (see above); the data files say what each part measured")
        return 1
    log(f"[gpu-check] all passed on {torch.cuda.get_device_name(0)}; data in {args.data}/*_cuda.json")
    return 0


if __name__ == "__main__":
    # the course from this tree, here and in every command it starts (no install needed on a bare GPU machine)
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    sys.exit(main())
