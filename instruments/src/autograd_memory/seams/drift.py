"""The drift guard: is this torch one the instruments were tested on, and do the PyTorch privates they rely on
still behave? The first import of any instrument runs :func:`warn_if_untested` once (``seams/__init__.py`` calls
it): outside :data:`TESTED`, or with a probe failing, it gives one :class:`UntestedTorchWarning` naming the version
and what will not work, instead of a traceback from deep inside ``graph_table`` later. ``python -m autograd_memory
check`` prints every probe.

>>> report = check()
>>> report.ok, len(report.probes) == len(PROBES)
(True, True)
>>> print(report.probes[0])                          # doctest: +ELLIPSIS
[OK]   dispatch mode stack: ...
"""
import re
import warnings
from dataclasses import dataclass

import torch
from torch.utils.checkpoint import checkpoint

from . import torch_internals as internals

__all__ = ["TESTED", "PROBES", "ON_IMPORT", "Probe", "DriftReport", "UntestedTorchWarning", "check", "warn_if_untested"]

TESTED = ((2, 8), (2, 14))  # the torch releases (major, minor), first and last, that the instruments' tests pass on


class UntestedTorchWarning(UserWarning):
    """This torch is outside the tested range, or a private the instruments rely on behaves differently."""


def _dispatch_mode_stack():
    class Probe(internals.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Probe() as mode:
        inside = internals.current_dispatch_mode() is mode
    return inside and internals.current_dispatch_mode() is None


def _dispatch_disabled():
    with internals.dispatch_disabled():
        return torch.ones(2).sum().item() == 2


def _op_schemas():
    aten = torch.ops.aten
    return internals.op_kind(aten.exp.default) == internals.NEW and internals.op_kind(aten.view.default) == internals.VIEW


def _saved_tensor_hooks():
    outside = internals.top_saved_tensor_hooks()
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # noqa: AGM008 (no op runs under it)
        inside = internals.top_saved_tensor_hooks()
    return outside is None and inside is not None


def _saved_slots():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    value, packed = internals.read_saved_slot(y.grad_fn, "_saved_result")
    return torch.equal(value, y.detach()) and packed is None


def _checkpointed_slots():
    x = torch.ones(3, requires_grad=True)
    recomputed = []
    z = checkpoint(lambda t: recomputed.append(1) or t.exp(), x, use_reentrant=False)
    try:
        internals.read_saved_slot(z.grad_fn, "_saved_result")
    except internals.SlotNotRead:  # a checkpointed slot is refused, never unpacked (that would recompute)
        return recomputed == [1]
    return False


def _copy_slices():
    x = torch.ones(3, requires_grad=True).clone()
    x[:1].mul_(2)
    return internals.is_copy_slices(x.grad_fn)


def _functorch_level():
    return internals.in_functorch_transform() is False


def _compile_hook():
    # torch >= 2.11 asks each mode ignore_compile_internals(); older ones are noticed through Dynamo's frame callback
    if internals.DYNAMO_ASKS_MODES:
        return callable(getattr(internals.TorchDispatchMode, "ignore_compile_internals", None))
    return internals.CompileAwareMode.notices_compile_per_op and callable(internals.eval_frame_callback)


@dataclass(frozen=True)
class ProbeSpec:
    name: str
    relies_on: str
    breaks: str  # what will not work when the probe fails
    run: object  # run() -> True when the private behaves as the instruments expect
    on_import: bool = True  # False: only `check` runs it (it would import torch._dynamo, seconds, on import)


PROBES = (
    ProbeSpec("dispatch mode stack", "torch.utils._python_dispatch._get_current_dispatch_mode",
              "LiveTensors, find_leaks, timeline, memory_budget", _dispatch_mode_stack),
    ProbeSpec("dispatch disabled", "torch._C._DisableTorchDispatch", "the storages of sparse tensors", _dispatch_disabled),
    ProbeSpec("op schemas", "OpOverload._schema.returns[i].alias_info",
              "LiveTensors (views and in-place ops counted as new memory)", _op_schemas),
    ProbeSpec("saved-tensor hooks stack", "torch._C._autograd._top_saved_tensors_default_hooks",
              "GraphMemory's check that meters exit in order", _saved_tensor_hooks),
    ProbeSpec("functorch level", "torch._C._functorch.maybe_current_level", "GraphMemory's error inside torch.func",
              _functorch_level),
    ProbeSpec("saved slots", "node._raw_saved_<name> -> SavedTensor.unpack_hook (torch >= 2.10), else sys.settrace",
              "graph_table, show_graph, lifecycle (which tensor each node saved)", _saved_slots),
    ProbeSpec("checkpointed slots", "the same slot of a node torch.utils.checkpoint made refuses to unpack",
              "graph_table on checkpointed code (it would recompute the segment to show a slot)", _checkpointed_slots,
              on_import=False),
    ProbeSpec("CopySlices node", "the node class name CopySlices", "graph_table's rows for in-place ops on views",
              _copy_slices),
    ProbeSpec("compile hook", "TorchDispatchMode.ignore_compile_internals (torch >= 2.11), else Dynamo's frame callback",
              "the warning that torch.compile ran eagerly under a meter",
              _compile_hook),
)


@dataclass(frozen=True)
class Probe:
    """One probe's result: ``ok``, or ``error`` (what went wrong)."""
    name: str
    relies_on: str
    breaks: str
    ok: bool
    error: str = ""

    def __str__(self):
        line = f"{'[OK]  ' if self.ok else '[FAIL]'} {self.name}: {self.relies_on}"
        return line if self.ok else f"{line} -- {self.error}; will not work: {self.breaks}"


@dataclass(frozen=True)
class DriftReport:
    """This torch's version, whether it is in :data:`TESTED`, and every probe's result."""
    version: str
    in_range: bool
    probes: tuple

    @property
    def ok(self) -> bool:
        return self.in_range and all(probe.ok for probe in self.probes)

    def __str__(self):
        (low, high) = (".".join(map(str, end)) for end in TESTED)
        where = "inside" if self.in_range else "OUTSIDE"
        return "\n".join([f"torch {self.version}: {where} the tested range {low} to {high}",
                          *map(str, self.probes)])


def _major_minor(version):
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else (0, 0)


def _run(spec):
    try:
        with torch.inference_mode(False), torch.enable_grad():  # imported under no_grad, the probes still build graphs
            ok, error = bool(spec.run()), "it ran, but gave a different answer"
    except Exception as exc:  # a probe reports any failure; it never raises
        ok, error = False, f"{type(exc).__name__}: {exc}"
    return Probe(spec.name, spec.relies_on, spec.breaks, ok, "" if ok else error)


def check(version: str = None, probes=PROBES) -> DriftReport:
    """Run every probe on this torch (``version`` defaults to ``torch.__version__``)."""
    version = version or torch.__version__
    in_range = TESTED[0] <= _major_minor(version) <= TESTED[1]
    return DriftReport(version, in_range, tuple(_run(spec) for spec in probes))


ON_IMPORT = tuple(spec for spec in PROBES if spec.on_import)  # what the first import runs: no torch._dynamo import


def warn_if_untested(version: str = None, probes=ON_IMPORT) -> DriftReport:
    """Give one :class:`UntestedTorchWarning` when this torch is outside :data:`TESTED` or a probe fails.
    The first import runs the probes that stay cheap (:data:`ON_IMPORT`); ``check`` runs them all."""
    report = check(version, probes)
    if not report.ok:
        (low, high) = (".".join(map(str, end)) for end in TESTED)
        failed = [probe for probe in report.probes if not probe.ok]
        message = (f"autograd_memory is tested on torch {low} to {high}; this is torch {report.version}"
                   + ("" if report.in_range else ", outside that range") + ". "
                   + ("".join(f"{probe.name} failed ({probe.error}): {probe.breaks} will not work. " for probe in failed)
                      or "Every probe passed, so it may well work. ")
                   + "`python -m autograd_memory check` lists the probes.")
        warnings.warn(message, UntestedTorchWarning, stacklevel=2)
    return report
