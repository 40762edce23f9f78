"""``python -m course_utils selftest``: fixed scenarios, the course's meters next to the device's own counters.

On every device it checks what the course teaches (a leak leaves bytes behind, a fix leaves none); on CUDA it
also fails when ``LiveTensors`` disagrees with ``torch.cuda.memory_allocated`` (bytes held) or
``max_memory_allocated`` (peak) by more than 1% or 1 MiB, whichever is larger.

>>> run_selftest("cpu", n=64, verbose=False).ok
True
"""
import datetime
import gc
import json
from dataclasses import asdict, dataclass, field

import torch

from .devices import device_name, pick_device
from .meters import run_metered
from .units import format_bytes

MiB = 2**20


def _scenarios(device, n):
    from .ode import VectorField
    from .laplacians import laplacian_nested, laplacian_vmap_hessian
    from .models import TanhMLP

    model = TanhMLP(3, width=64, hidden_layers=3).to(device)
    vector_field = VectorField(width=64).to(device)
    points = torch.rand(n, 3, device=device)

    def pinn_residual(method):
        def run():
            _u, _gradient, laplacian = method(model, points, dims=(0, 1, 2))
            residual = (laplacian**2).mean()
            residual.backward()
            return residual.detach()
        run.__name__ = {laplacian_nested: "pinn_nested", laplacian_vmap_hessian: "pinn_torch_func"}[method]
        return run

    history = []

    def training_keeps_loss_tensors():
        for _ in range(5):
            loss = (model(points) ** 2).mean()
            loss.backward()
            history.append(loss)  # the leak: each kept loss keeps its 4 bytes (and its graph's nodes)
        return None

    def euler(detach):
        def run():
            x = torch.ones(n, 2, device=device)
            for _ in range(10):
                x = x + 0.1 * vector_field(x)
                if detach:
                    x = x.detach()
            return x
        run.__name__ = f"euler_{'detach' if detach else 'full_graph'}"
        return run

    def big_no_grad_forward():
        with torch.no_grad():
            return model(torch.rand(8 * n, 3, device=device)).sum()

    scenarios = [pinn_residual(laplacian_nested), pinn_residual(laplacian_vmap_hessian), training_keeps_loss_tensors,
                 euler(False), euler(True), big_no_grad_forward]
    expect_leftover = {"training_keeps_loss_tensors"}
    return scenarios, expect_leftover, history


@dataclass
class ScenarioResult:
    name: str
    peak: int
    held: int
    leftover: int
    saved: int = None
    device_held: int = None
    device_peak: int = None
    problems: list = field(default_factory=list)


@dataclass
class SelftestResult:
    device: str
    device_name: str
    torch_version: str
    date: str
    scenarios: list

    @property
    def ok(self):
        return all(not s.problems for s in self.scenarios)

    def to_json(self):
        return json.dumps(asdict(self), indent=2)


def _agree(meter, counter):
    return abs(meter - counter) <= max(0.01 * max(abs(counter), 1), MiB)


def _run_one(fn, device, expect_leftover):
    cuda = device.type == "cuda"
    fn()  # warm-up: cuBLAS workspaces, lazy modules and caches are allocated once, outside the measurement
    gc.collect()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats(device)
        base = torch.cuda.memory_allocated(device)
    live, graph, result, _seconds = run_metered(fn)
    saved = graph.bytes if graph else None
    gc.collect()
    row = ScenarioResult(fn.__name__, live.peak, live.bytes, 0, saved)
    if cuda:
        torch.cuda.synchronize()
        row.device_held = torch.cuda.memory_allocated(device) - base
        row.device_peak = torch.cuda.max_memory_allocated(device) - base
        on_gpu = str(torch.device(device.type, torch.cuda.current_device() if device.index is None else device.index))
        held, peak = live.by_device.get(on_gpu, 0), live.peak_by_device.get(on_gpu, 0)  # the GPU's share only
        if not _agree(held, row.device_held):
            row.problems.append(f"held: meter {held} B vs cuda {row.device_held} B")
        if not _agree(peak, row.device_peak):
            row.problems.append(f"peak: meter {peak} B vs cuda {row.device_peak} B")
    del result
    gc.collect()
    row.leftover = live.bytes
    leaks = row.name in expect_leftover
    if leaks and row.leftover == 0:
        row.problems.append("expected a leak (bytes left after the result was dropped), found none")
    if not leaks and row.leftover != 0:
        row.problems.append(f"expected nothing left after the result was dropped, found {row.leftover} B")
    return row


def run_selftest(device=None, n=2048, json_path=None, verbose=True):
    """Run every scenario on ``device`` and return a :class:`SelftestResult` (``.ok``, ``.to_json()``)."""
    device = pick_device(device)
    scenarios, expect_leftover, history = _scenarios(device, n)
    rows = [_run_one(fn, device, expect_leftover) for fn in scenarios]
    history.clear()
    name = device_name(device)
    result = SelftestResult(str(device), name, torch.__version__, datetime.date.today().isoformat(), rows)
    if verbose:
        print(f"selftest on {device} ({name}), torch {torch.__version__}, N={n}")
        header = f"{'scenario':<28}{'peak':>11}{'held':>11}{'saved':>11}{'leftover':>11}"
        if device.type == "cuda":
            header += f"{'cuda held':>11}{'cuda peak':>11}"
        print(header)
        for r in rows:
            line = (f"{r.name:<28}{format_bytes(r.peak):>11}{format_bytes(r.held):>11}"
                    f"{format_bytes(r.saved) if r.saved is not None else 'n/a':>11}{format_bytes(r.leftover):>11}")
            if r.device_held is not None:
                line += f"{format_bytes(r.device_held):>11}{format_bytes(r.device_peak):>11}"
            print(line + ("" if not r.problems else "   FAIL: " + "; ".join(r.problems)))
        print("all scenarios agree" if result.ok else "SELFTEST FAILED")
    if json_path:
        with open(json_path, "w") as out:
            out.write(result.to_json() + "\n")
    return result
