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
from typing import Optional

import torch

from autograd_memory import Table, format_bytes, run_metered

from .devices import device_name, pick_device

__all__ = ["run_selftest", "SelftestResult", "ScenarioResult"]

MiB = 2**20


def _scenarios(device, n):
    from ..problems.laplacian_methods import laplacian_nested, laplacian_vmap_hessian
    from ..problems.models import TanhMLP
    from ..problems.ode import VectorField

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
            history.append(loss)  # noqa: AGM001 (the leak the selftest measures): each kept loss keeps its 4 bytes (and its graph's nodes)
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
    saved: Optional[int] = None  # None: torch.func refuses the graph meter
    device_held: Optional[int] = None  # None: the device has no allocator counters (CPU)
    device_peak: Optional[int] = None
    problems: list = field(default_factory=list)


@dataclass
class SelftestResult:
    device: str
    device_name: str
    torch_version: str
    date: str
    scenarios: list

    @property
    def ok(self) -> bool:
        return all(not s.problems for s in self.scenarios)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    def table(self) -> Table:
        """One row per scenario: the meters' bytes, the device's where it has counters, and any problem."""
        cuda = any(s.device_held is not None for s in self.scenarios)
        header = ("scenario", "peak", "held", "saved", "leftover") + (("cuda held", "cuda peak") if cuda else ()) + ("",)
        rows = []
        for s in self.scenarios:
            row = [s.name, format_bytes(s.peak), format_bytes(s.held),
                   "n/a" if s.saved is None else format_bytes(s.saved), format_bytes(s.leftover)]
            if cuda:
                row += [format_bytes(s.device_held), format_bytes(s.device_peak)]
            rows.append(row + ["FAIL: " + "; ".join(s.problems) if s.problems else ""])
        verdict = "all scenarios agree" if self.ok else "SELFTEST FAILED"
        return Table(header, rows, align="l" + "r" * (len(header) - 2) + "l", caption=verdict)


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


def run_selftest(device=None, n: int = 2048, json_path: Optional[str] = None, verbose: bool = True) -> SelftestResult:
    """Run every scenario on ``device`` and return a :class:`SelftestResult` (``.ok``, ``.to_json()``)."""
    device = pick_device(device)
    scenarios, expect_leftover, history = _scenarios(device, n)
    rows = [_run_one(fn, device, expect_leftover) for fn in scenarios]
    history.clear()
    name = device_name(device)
    result = SelftestResult(str(device), name, torch.__version__, datetime.date.today().isoformat(), rows)
    if verbose:
        print(f"selftest on {device} ({name}), torch {torch.__version__}, N={n}")
        print(result.table())
    if json_path:
        with open(json_path, "w") as out:
            out.write(result.to_json() + "\n")
    return result
