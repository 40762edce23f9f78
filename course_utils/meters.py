"""Exact memory meters: what tensors are alive, and what autograd's graph saved for backward.

Two meters and two readings:

* :class:`LiveTensors` counts the logical bytes of every tensor storage created inside it, on any
  device, and subtracts a storage the moment it dies. Views share their storage and add nothing.
* :class:`GraphMemory` counts the bytes autograd saved for backward and still holds, each storage
  once, split into parameters, inputs and activations.
* :func:`device_memory` is what the allocator and the operating system report (CUDA counters, RSS).
* :func:`measure` runs a function under both meters and returns a :class:`Report`.

Both meters hold only weak references: they never keep a tensor alive. Each is a context manager
that installs its hook on entry and removes it on exit, exception or not.

>>> import torch
>>> with LiveTensors() as live:
...     x = torch.zeros(1000)           # float32: 4 bytes each
...     view = x[:10]                    # a view shares x's storage
>>> live.bytes
4000
>>> del x, view
>>> live.bytes
0
"""
import gc
import sys
import threading
import time
import warnings
import weakref
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode

from .units import format_bytes


def _storage_of(tensor):
    """The tensor's untyped storage, or None for tensors that have none (sparse, meta, nested)."""
    try:
        storage = tensor.untyped_storage()
    except (RuntimeError, NotImplementedError):
        return None
    return None if storage.device.type == "meta" else storage


def _tensors_in(value):
    """The tensors in an op's arguments or outputs: a tensor, or lists/tuples/dicts of them."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)


_OUT_OF_ORDER = ("meters must be exited in the reverse order they were entered (nest their `with` blocks); "
                 "another meter or dispatch mode entered later is still active")


class _Meter:
    """Shared life cycle of a meter: enter once, exit on the same thread, then read."""

    _what = "meter"

    def __init__(self):
        self.bytes = 0
        self.peak = 0
        self._lock = threading.RLock()  # re-entrant: a release can fire inside a count (gc)
        self._state = "new"
        self._owner = None

    def __enter__(self):
        if self._state != "new":
            raise RuntimeError(
                f"This {type(self).__name__} was already used ({self._state}). Meters are one-shot: "
                f"create a new one for each measurement, e.g. `with {type(self).__name__}() as {self._what}:`."
            )
        self._state = "active"
        self._owner = threading.get_ident()
        try:
            self._install()
        except BaseException:
            self._state = "finished"
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        if threading.get_ident() != self._owner:
            raise RuntimeError(
                f"{type(self).__name__} was entered on one thread and exited on another. "
                "Use one meter per thread, inside a single `with` block."
            )
        try:
            self._uninstall()
        finally:
            self._state = "finished"
        return False

    @property
    def active(self):
        return self._state == "active"

    def _add(self, nbytes):
        # called with self._lock held
        self.bytes += nbytes
        if self.bytes > self.peak:
            self.peak = self.bytes

    def __repr__(self):
        return f"<{type(self).__name__} {self._state}: {format_bytes(self.bytes)} now, {format_bytes(self.peak)} peak>"


_aten = torch.ops.aten
# Ops whose schema says "fresh output" but that may hand back an input's storage, and the reverse.
_SHARES_INPUT_STORAGE = {_aten._unsafe_view.default}
_ALWAYS_NEW = {_aten.lift_fresh.default}  # torch.tensor([...]) builds its data outside the dispatcher
_returns_new_storage = {}  # op -> bool, filled on first sight


def _op_returns_new_storage(func):
    """True when an op's outputs never alias its inputs (per its schema): then no input check is needed."""
    fresh = _returns_new_storage.get(func)
    if fresh is None:
        schema = getattr(func, "_schema", None)
        fresh = func in _ALWAYS_NEW or (
            schema is not None and func not in _SHARES_INPUT_STORAGE
            and all(ret.alias_info is None for ret in schema.returns)
        )
        _returns_new_storage[func] = fresh
    return fresh


class _CountNewStorages(TorchDispatchMode):
    """Dispatch mode that shows every op's new output storages to a LiveTensors meter."""

    def __init__(self, meter):
        super().__init__()
        self.meter = meter

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        meter = self.meter
        tensor = storage = None
        if _op_returns_new_storage(func):
            for tensor in _tensors_in(out):
                storage = _storage_of(tensor)
                if storage is not None:
                    meter._count(storage)
        else:
            # A view or an in-place op: an output that shares an input's storage is not new memory,
            # unless the op grew it (resize_, an out= argument): then the growth is counted.
            inputs = {id(_storage_of(t)) for t in _tensors_in((args, kwargs or {}))}
            for tensor in _tensors_in(out):
                storage = _storage_of(tensor)
                if storage is None:
                    continue
                if id(storage) not in inputs:
                    meter._count(storage)
                else:
                    meter._recount(storage)
        meter._after_op(func)
        if meter._budget is not None and meter.bytes > meter._budget:
            reached = meter.bytes
            # drop our references first: the exception's traceback must not keep the op's tensors alive
            del out, tensor, storage, args, kwargs
            meter._on_exceed(meter, func, reached)
        return out


class LiveTensors(_Meter):
    """Count the bytes of every tensor storage created while the meter is active.

    ``.bytes`` is what is alive now, ``.peak`` the highest ``.bytes`` while active. A storage is
    counted once however many views share it, and subtracted when it is freed, also after the
    ``with`` block ends. Storages that existed before (a model's parameters, inputs) are added with
    :meth:`track`. Works on CPU, CUDA and MPS; nested meters each count.

    >>> with LiveTensors() as live:
    ...     y = torch.ones(250).exp()   # the ones (1 kB) die at once; y is 1 kB
    >>> live.bytes, live.peak
    (1000, 2000)

    ``by_device`` and ``peak_by_device`` split both by device (``"cpu"``, ``"cuda:0"``): compare the
    CUDA entry with ``torch.cuda.memory_allocated``.

    ``budget``/``on_exceed``: when the live bytes go over ``budget`` after an op,
    ``on_exceed(meter, op, reached_bytes)`` is called (see :func:`course_utils.memory_budget`).

    Caveats: memory that bypasses PyTorch's dispatcher (``torch.from_numpy``) is not seen; pass such
    tensors to :meth:`track`. ``.bytes`` adds up every device's storages (a CPU tensor made inside a
    CUDA computation counts too; ``by_device`` separates them) and counts logical bytes: the CUDA
    allocator rounds each block up to 512 bytes, so it reads slightly more for many tiny tensors.
    """

    _what = "live"

    def __init__(self, budget=None, on_exceed=None):
        super().__init__()
        if (budget is None) != (on_exceed is None):
            raise ValueError("LiveTensors takes a budget together with on_exceed (or neither); "
                             "for a plain budget use course_utils.memory_budget(max_bytes)")
        self._refs = {}  # id(storage) -> (weakref to storage, nbytes, device)
        self.by_device = {}  # "cpu", "cuda:0", ... -> bytes alive now
        self.peak_by_device = {}
        self._budget = budget
        self._on_exceed = on_exceed
        self._mode = None

    def _install(self):
        self._mode = _CountNewStorages(self)
        self._mode.__enter__()

    def _uninstall(self):
        if _get_current_dispatch_mode() is not self._mode:
            raise RuntimeError(_OUT_OF_ORDER)
        mode, self._mode = self._mode, None
        mode.__exit__(None, None, None)

    def track(self, *items):
        """Count storages that already exist: tensors, ``nn.Module`` s (parameters and buffers), or lists of them.

        Returns ``self`` so that ``with LiveTensors().track(model, x) as live:`` reads naturally.
        """
        if self._state == "finished":
            raise RuntimeError("This LiveTensors has finished; create a new one to track more tensors.")
        for item in items:
            if isinstance(item, torch.nn.Module):
                tensors = list(item.parameters()) + list(item.buffers())
            elif isinstance(item, torch.Tensor):
                tensors = [item]
            elif isinstance(item, (list, tuple)) and all(isinstance(t, (torch.Tensor, torch.nn.Module)) for t in item):
                self.track(*item)
                continue
            else:
                raise TypeError(
                    f"track() takes tensors, nn.Modules or lists of them; got {type(item).__name__}. "
                    "Example: live.track(model, x)."
                )
            for tensor in tensors:
                storage = _storage_of(tensor)
                if storage is not None:
                    self._count(storage)
        if self._budget is not None and self.bytes > self._budget:
            self._on_exceed(self, "track()", self.bytes)
        return self

    def _count(self, storage):
        key = id(storage)
        with self._lock:
            if key in self._refs:
                return
            nbytes, device = storage.nbytes(), str(storage.device)
            self._refs[key] = (weakref.ref(storage, self._make_release(key)), nbytes, device)
            self._add_on(device, nbytes)
            self._on_new_storage(key, nbytes, device)

    def _recount(self, storage):
        """A counted storage an op resized in place (``resize_``, ``out=``): count the difference."""
        key = id(storage)
        with self._lock:
            entry = self._refs.get(key)
            if entry is not None and entry[1] != storage.nbytes():
                self._refs[key] = (entry[0], storage.nbytes(), entry[2])
                self._add_on(entry[2], storage.nbytes() - entry[1])

    def _add_on(self, device, nbytes):
        self._add(nbytes)
        now = self.by_device[device] = self.by_device.get(device, 0) + nbytes
        if now > self.peak_by_device.get(device, 0):
            self.peak_by_device[device] = now

    def _make_release(self, key):
        def release(_ref):
            with self._lock:
                entry = self._refs.pop(key, None)
                if entry is not None:
                    self.bytes -= entry[1]
                    self.by_device[entry[2]] -= entry[1]
                    self._on_free_storage(key, entry[1], entry[2])
        return release

    # Hooks for subclasses (find_leaks, timeline, memory_budget): no-ops here.
    def _on_new_storage(self, key, nbytes, device):
        """A storage is counted for the first time (called with the meter's lock held)."""

    def _on_free_storage(self, key, nbytes, device):
        """A counted storage died (called with the meter's lock held, possibly after the block ended)."""

    def _after_op(self, func):
        """After every op the meter's dispatch mode sees, once its outputs are counted."""

    @property
    def count(self):
        """Number of distinct storages alive."""
        return len(self._refs)


class GraphMemoryUnsupported(RuntimeError):
    """Raised where autograd refuses saved-tensor hooks (``torch.func`` transforms)."""


_KINDS = ("parameters", "inputs", "activations")


def _kind(tensor):
    """parameters: an ``nn.Parameter`` (or a view of one); inputs: any other tensor autograd did not
    compute (no ``grad_fn``); activations: results computed inside the graph."""
    base = tensor._base if tensor._base is not None else tensor
    if isinstance(base, torch.nn.Parameter):
        return "parameters"
    if base.grad_fn is None:
        return "inputs"
    return "activations"


def _alias(tensor):
    """``tensor.detach()``, kept out of any dispatch mode for plain tensors: an alias is no new memory,
    so a LiveTensors meter need not see it (one Python dispatch fewer per saved tensor).

    >>> x = torch.ones(2, requires_grad=True).exp()
    >>> alias = _alias(x)
    >>> alias.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), alias.grad_fn
    (True, None)
    """
    if type(tensor) in (torch.Tensor, torch.nn.Parameter):
        with torch._C._DisableTorchDispatch():
            return tensor.detach()
    return tensor.detach()  # a tensor subclass may need its own __torch_dispatch__ to detach


class _Saved:
    """What autograd keeps instead of a saved tensor while GraphMemory is active.

    It holds a *detached* alias (same storage, no ``grad_fn``): holding the original output tensor
    would make a reference cycle through its ``grad_fn`` that even ``gc.collect()`` cannot break.
    When autograd drops it, the meter is told.
    """

    __slots__ = ("tensor", "version", "meters", "key")

    def __init__(self, tensor, meters, key):
        # the detached alias shares the original's version counter, so in-place changes stay visible
        self.tensor, self.version, self.meters, self.key = _alias(tensor), tensor._version, meters, key

    def __del__(self):
        for meter in self.meters:
            meter._release(self.key)


def _top_saved_tensor_hooks():
    return torch._C._autograd._top_saved_tensors_default_hooks(False)


class GraphMemory(_Meter):
    """Count the bytes autograd saves for backward and still holds.

    ``.bytes`` counts each saved storage once; it drops when autograd frees the graph (after
    ``backward()``, when the output is deleted, or after ``gc.collect()`` for cycles made by
    ``create_graph=True``). ``.count`` is the number of saved slots alive; ``.by_kind`` splits the
    bytes into ``parameters`` (weights the graph refers to: they cost nothing extra), ``inputs`` and
    ``activations`` (what the graph really keeps alive).

    >>> x = torch.ones(1000, requires_grad=True)
    >>> with GraphMemory() as graph:
    ...     y = x.exp().sum()          # exp saves its output: 4 kB
    >>> graph.bytes, graph.by_kind["activations"]
    (4000, 4000)
    >>> y.backward()
    >>> graph.bytes
    0

    Nested ``GraphMemory`` meters each count what is saved inside them. ``torch.func`` transforms
    refuse saved-tensor hooks; inside this meter they raise :class:`GraphMemoryUnsupported`:
    measure those with :class:`LiveTensors`. Other saved-tensor hooks entered *inside* the meter
    (``torch.utils.checkpoint``) take over there, so what they keep is not seen; hooks entered
    *outside* it (``save_on_cpu``) are replaced inside the block, with a warning.
    """

    _what = "graph"

    def __init__(self):
        super().__init__()
        self._slots = {}  # id(storage) -> [slots alive, nbytes, kind]
        self.by_kind = dict.fromkeys(_KINDS, 0)
        self._hooks = None
        self._counting = [self]  # this meter and the GraphMemory meters it is nested in

    def _install(self):
        outer = _top_saved_tensor_hooks()
        if outer is not None:
            outer_meter = getattr(outer[0], "__self__", None)
            if isinstance(outer_meter, GraphMemory):
                self._counting = outer_meter._counting + [self]
            else:
                warnings.warn("GraphMemory replaces the saved-tensor hooks already active (e.g. save_on_cpu) "
                              "inside its block, so saved tensors stay where autograd made them.", stacklevel=3)
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._hooks.__enter__()

    def _uninstall(self):
        top = _top_saved_tensor_hooks()
        if top is None or getattr(top[0], "__self__", None) is not self:
            raise RuntimeError(_OUT_OF_ORDER)
        hooks, self._hooks = self._hooks, None
        hooks.__exit__(None, None, None)

    def __exit__(self, exc_type, exc, tb):
        super().__exit__(exc_type, exc, tb)
        if exc_type is RuntimeError and "saved tensor hooks" in str(exc):
            raise GraphMemoryUnsupported(
                "torch.func transforms (vmap, grad, jacrev, hessian, jvp ...) refuse saved-tensor hooks, "
                "so GraphMemory cannot see what they save. Measure this code with LiveTensors instead "
                "(it counts every live tensor, the graph's included), or run measure(fn), which falls "
                "back to LiveTensors by itself."
            ) from exc
        return False

    def _pack(self, tensor):
        storage = _storage_of(tensor)
        if storage is None:
            return tensor
        key = id(storage)
        kind = _kind(tensor)
        for meter in self._counting:
            meter._hold(key, storage.nbytes(), kind)
        return _Saved(tensor, self._counting, key)

    def _hold(self, key, nbytes, kind):
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:  # the holders keep the storage alive, so its id cannot be reused meanwhile
                slot = self._slots[key] = [0, nbytes, kind]
                self.by_kind[kind] += nbytes
                self._add(nbytes)
            slot[0] += 1

    @staticmethod
    def _unpack(saved):
        if not isinstance(saved, _Saved):
            return saved
        # With saved-tensor hooks autograd leaves the in-place check to the hooks: do it as autograd would.
        if saved.tensor._version != saved.version:
            t = saved.tensor
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{t.type()} {list(t.shape)}] is at version {t._version}; expected version "
                f"{saved.version} instead. (Checked by GraphMemory, exactly as autograd does without it.)"
            )
        return saved.tensor

    def _release(self, key):
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                return
            slot[0] -= 1
            if slot[0] == 0:
                del self._slots[key]
                self.bytes -= slot[1]
                self.by_kind[slot[2]] -= slot[1]

    @property
    def count(self):
        """Number of saved slots alive (a storage saved by three nodes counts three times here)."""
        with self._lock:
            return sum(slot[0] for slot in self._slots.values())


def device_memory(device=None):
    """What the allocator and the OS report, in bytes: only the keys that exist on this machine.

    ``rss``: the process's resident set (psutil); noisy, since the C library keeps freed pages.
    ``rss_peak``: the highest RSS this process has reached (not on Windows). Linux updates the
    kernel's high-water mark lazily, so it can trail the current RSS by a few hundred KiB; the
    reading is never lower than ``rss``.
    On CUDA: ``cuda_allocated``, ``cuda_reserved``, ``cuda_peak`` (``torch.cuda`` counters).
    On MPS: ``mps_current``, ``mps_driver``.

    >>> "rss" in device_memory()
    True
    """
    import psutil

    readings = {"rss": psutil.Process().memory_info().rss}
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak = peak if sys.platform == "darwin" else peak * 1024  # macOS: bytes; Linux: KiB
        readings["rss_peak"] = max(peak, readings["rss"])
    except ImportError:
        pass
    if torch.cuda.is_available() and (device is None or torch.device(device).type == "cuda"):
        index = torch.device(device).index if device is not None else None
        readings["cuda_allocated"] = torch.cuda.memory_allocated(index)
        readings["cuda_reserved"] = torch.cuda.memory_reserved(index)
        readings["cuda_peak"] = torch.cuda.max_memory_allocated(index)
    mps = getattr(torch, "mps", None)
    if mps is not None and torch.backends.mps.is_available():
        readings["mps_current"] = mps.current_allocated_memory()
        readings["mps_driver"] = mps.driver_allocated_memory()
    return readings


@dataclass
class Report:
    """What :func:`measure` found. All sizes in bytes; ``None`` where a reading was not possible."""

    name: str
    peak_bytes: int
    held_bytes: int
    saved_bytes: int = None
    saved_by_kind: dict = None
    leftover_bytes: int = None
    seconds: float = 0.0
    device: dict = field(default_factory=dict)
    result: object = None
    note: str = ""

    def rows(self):
        """(label, value as text) pairs, in reading order."""
        rows = [
            ("peak while running", format_bytes(self.peak_bytes)),
            ("held while result lives", format_bytes(self.held_bytes)),
            ("saved for backward", format_bytes(self.saved_bytes) if self.saved_bytes is not None else "n/a (torch.func)"),
        ]
        if self.saved_by_kind:
            rows += [(f"  of which {kind}", format_bytes(n)) for kind, n in self.saved_by_kind.items() if n]
        rows.append(("left after result dropped", format_bytes(self.leftover_bytes) if self.leftover_bytes is not None else "n/a (result kept)"))
        rows.append(("time", f"{self.seconds * 1e3:.1f} ms"))
        rows += [(key, format_bytes(value)) for key, value in self.device.items()]
        return rows

    def __str__(self):
        rows = self.rows()
        width = max(len(label) for label, _ in rows)
        lines = [f"measure({self.name})"] + [f"  {label:<{width}}  {value:>10}" for label, value in rows]
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def _repr_html_(self):
        body = "".join(f"<tr><td style='text-align:left'>{label}</td><td style='text-align:right'>{value}</td></tr>"
                       for label, value in self.rows())
        note = f"<caption style='caption-side:bottom'>{self.note}</caption>" if self.note else ""
        return f"<table><thead><tr><th colspan=2>measure({self.name})</th></tr></thead>{body}{note}</table>"


def run_metered(fn, *args, **kwargs):
    """Run ``fn`` under fresh :class:`LiveTensors` and :class:`GraphMemory` meters: ``(live, graph, result, seconds)``.

    Where ``fn`` uses ``torch.func`` (which refuses the graph meter) it runs a second time under
    ``LiveTensors`` alone and ``graph`` is ``None``; the retry runs outside the failed attempt's
    ``except`` block, so that attempt's tensors are freed first.
    """
    gc.collect()
    try:
        with LiveTensors() as live, GraphMemory() as graph:
            start = time.perf_counter()
            result = fn(*args, **kwargs)
            seconds = time.perf_counter() - start
        return live, graph, result, seconds
    except GraphMemoryUnsupported:
        pass
    gc.collect()
    with LiveTensors() as live:
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        seconds = time.perf_counter() - start
    return live, None, result, seconds


def measure(fn, *args, keep_result=False, **kwargs):
    """Run ``fn(*args, **kwargs)`` under :class:`LiveTensors` and :class:`GraphMemory` and report.

    The report has the peak, the bytes held while the result lives, the saved bytes, and the bytes
    still alive after the result is dropped and garbage collected: a leak (say, a loss kept in a
    list) shows there. To measure that, ``measure`` drops the result; pass ``keep_result=True`` to
    get it back in ``report.result`` instead (``leftover_bytes`` is then ``None``).

    If ``fn`` uses ``torch.func`` (which refuses the graph meter), ``fn`` runs a second time under
    ``LiveTensors`` alone and ``saved_bytes`` is ``None``.

    >>> report = measure(lambda: torch.ones(1000, requires_grad=True).exp().sum())
    >>> report.saved_bytes, report.leftover_bytes
    (4000, 0)
    """
    name = getattr(fn, "__name__", type(fn).__name__)
    live, graph, result, seconds = run_metered(fn, *args, **kwargs)
    note = "" if graph else "fn uses torch.func, which refuses the graph meter: ran it again under LiveTensors alone"
    gc.collect()  # create_graph=True can leave reference cycles
    report = Report(
        name=name,
        peak_bytes=live.peak,
        held_bytes=live.bytes,
        saved_bytes=graph.bytes if graph else None,
        saved_by_kind=dict(graph.by_kind) if graph else None,
        seconds=seconds,
        device=device_memory(),
        note=note,
    )
    if keep_result:
        report.result = result
    else:
        del result
        gc.collect()
        report.leftover_bytes = live.bytes
    return report
