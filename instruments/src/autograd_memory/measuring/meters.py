"""Exact memory meters: what tensors are alive, and what autograd's graph saved for backward.

* :class:`LiveTensors` counts the logical bytes of every tensor storage created inside it, on any
  device, and subtracts a storage the moment it dies. Views share their storage and add nothing.
* :class:`GraphMemory` counts the bytes autograd saved for backward and still holds, each storage
  once, split into parameters, inputs and activations.
* :func:`device_memory` is what the allocator and the operating system report (CUDA counters, RSS).
* :func:`autograd_memory.measuring.measurement.measure` runs a function under both meters and reports.

Both meters hold only weak references: they never keep a tensor alive. Each is a context manager
that installs its hook on entry and removes it on exit, exception or not. A Ctrl-C (Jupyter's
stop button) cannot leave a count wrong: a dying storage is noted by one C call, and bookkeeping that
an interrupt cuts short is redone from the meter's own records at the next reading.

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
import enum
import os
import signal
import sys
import threading
import warnings
import weakref
from collections import Counter

import torch

from ..formats.units import format_bytes
from ..seams import torch_internals as internals
from ..seams.torch_internals import GROWS, LIFTS, NEW, OTHER, VIEW, WRITES

_STRIDED = torch.strided
_device_names = {}  # torch.device -> "cpu", "cuda:0", ...: str(device) is too slow to run at every new storage

__all__ = ["LiveTensors", "GraphMemory", "GraphMemoryUnsupported", "device_memory", "process_rss", "Kind", "Saved", "tensors_in"]


def tensors_in(value, found=None):
    """The tensors in an op's arguments or outputs, as a list: a tensor, or lists/tuples/dicts of them.
    (A list filled in place, not nested generators: an optimizer's state is hundreds of values.)

    >>> len(tensors_in({"step": torch.zeros(()), "history": [torch.ones(2), 1.0]}))
    2
    """
    if found is None:
        found = []
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif isinstance(value, (list, tuple, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            if isinstance(item, torch.Tensor):
                found.append(item)
            elif isinstance(item, (list, tuple, dict)):
                tensors_in(item, found)
    return found


_OUT_OF_ORDER = ("meters must be exited in the reverse order they were entered (nest their `with` blocks); "
                 "another meter or dispatch mode entered later is still active")


class _SigintGuard:
    """Hold a Ctrl-C back while a meter installs or removes its hook: an interrupt in the middle would
    leave a dispatch mode or saved-tensor hooks installed for good. While any meter is active on the
    main thread (the only one Python delivers SIGINT to) this handler stands in front of the previous
    one: an interrupt that lands inside ``_Meter.__enter__``/``__exit__`` is noted, and the meter raises
    it once nothing is half-installed; anywhere else it goes straight to the previous handler.
    """

    def __init__(self):
        self.active, self.previous, self.pending = 0, None, False

    def acquire(self):
        if threading.current_thread() is threading.main_thread():
            if self.active == 0:
                self.previous = signal.signal(signal.SIGINT, self._handle)
            self.active += 1

    def release(self):
        if threading.current_thread() is threading.main_thread() and self.active:
            self.active -= 1
            if self.active == 0:
                signal.signal(signal.SIGINT, self.previous)

    def take_pending(self):
        pending, self.pending = self.pending, False
        return pending

    def _handle(self, signum, frame):
        while frame is not None:
            if frame.f_code in _CRITICAL:
                self.pending = True
                return
            frame = frame.f_back
        if callable(self.previous):
            self.previous(signum, frame)
        else:
            raise KeyboardInterrupt


_sigint_guard = _SigintGuard()


class _Meter:
    """Shared life cycle of a meter: enter once, exit on the same thread, then read.

    Interrupt safety: ``_dead`` collects what died, appended by a C function (no Python code runs in
    a weakref callback, so a KeyboardInterrupt cannot cut it short); ``_stale`` is True while
    bookkeeping runs, so an interrupt in between leaves it True and the next reading rebuilds the
    totals from the meter's records (``_rebuild``).
    """

    _what = "meter"

    def __init__(self):
        self._bytes = 0
        self._peak = 0
        self._dead = []  # weak references whose tensor/slot died, not yet subtracted
        self._stale = False
        self._lock = threading.RLock()  # re-entrant: a count can trigger gc, whose callbacks only append
        self._state = "new"
        self._owner = None

    def __enter__(self):
        if self._state != "new":
            raise RuntimeError(
                f"This {type(self).__name__} was already used ({self._state}). Meters are one-shot: "
                f"create a new one for each measurement, e.g. `with {type(self).__name__}() as {self._what}:`."
            )
        _sigint_guard.acquire()
        self._state = "active"
        self._owner = threading.get_ident()
        try:
            self._install()
        except BaseException:
            self._state = "finished"
            _sigint_guard.release()
            raise
        if _sigint_guard.take_pending():  # Ctrl-C while entering: leave nothing installed, then raise it
            self.__exit__(None, None, None)
            raise KeyboardInterrupt
        return self  # no bytecode from the check to here looks for signals

    def __exit__(self, exc_type, exc, tb):
        if self._state != "active":
            raise RuntimeError(
                f"This {type(self).__name__} is {self._state}, not active: __exit__ was called twice (or before "
                f"__enter__). Use it as `with {type(self).__name__}() as {self._what}:` and let the block exit it once."
            )
        if threading.get_ident() != self._owner:
            raise RuntimeError(
                f"{type(self).__name__} was entered on one thread and exited on another. "
                "Use one meter per thread, inside a single `with` block."
            )
        try:
            self._uninstall()
        finally:
            self._state = "finished"
            _sigint_guard.release()
        if _sigint_guard.take_pending():
            raise KeyboardInterrupt
        return False

    @property
    def active(self):
        return self._state == "active"

    @property
    def bytes(self):
        """Bytes counted and alive now."""
        self._settle()
        return self._bytes

    @property
    def peak(self):
        """The highest ``bytes`` since the meter was entered."""
        self._settle()
        return self._peak

    def _settle(self):
        """Finish what an interrupt cut short, then subtract what died."""
        if self._stale or self._dead:
            with self._lock:
                if self._stale:
                    self._rebuild()
                self._drain()

    def __repr__(self):
        return f"<{type(self).__name__} {self._state}: {format_bytes(self.bytes)} now, {format_bytes(self.peak)} peak>"


_CRITICAL = {_Meter.__enter__.__code__, _Meter.__exit__.__code__}


class _CountNewStorages(internals.CompileAwareMode):
    """Dispatch mode that shows every op's new output storages to a LiveTensors meter."""

    def __init__(self, meter):
        super().__init__()
        self.meter = meter
        # the meter's _after_op, or None where it is LiveTensors' no-op (one call less at every op)
        self.after_op = None if type(meter)._after_op is LiveTensors._after_op else meter._after_op

    def on_compile_skipped(self):
        self.meter._compile_skipped()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        meter = self.meter
        if self.notices_compile_per_op:  # older torches: Dynamo does not tell the mode (torch_internals)
            self.notice_compile()
        kind = internals.op_kind(func)
        if (kind == WRITES or kind == GROWS) and not _writes_in_place(args):
            kind = OTHER  # a sparse, nested or subclass tensor written in place may get new parts: compare them
        if kind == VIEW or kind == WRITES:  # a view of an input, or an input written in place: nothing new
            out = func(*args, **kwargs)
        elif kind == NEW or kind == LIFTS:
            inputs = None
            out = func(*args, **kwargs)
            for tensor in (out,) if type(out) is torch.Tensor else tensors_in(out):
                if type(tensor) is torch.Tensor and tensor.layout is _STRIDED and not tensor.is_nested:
                    storage = tensor.untyped_storage()
                    if kind == LIFTS and internals.is_foreign_memory(storage):
                        continue  # torch.as_tensor / from_numpy: NumPy's memory, nothing new
                    meter._count(storage)
                else:  # sparse, nested, wrapper subclasses: their parts may be their inputs' storages
                    if inputs is None:
                        inputs = {id(s): s for t in tensors_in((args, kwargs)) for s in internals.storages_of(t)}
                    for storage in internals.storages_of(tensor):
                        if id(storage) not in inputs:
                            meter._count(storage)
                    meter._note_uncounted(tensor)
        elif kind == GROWS:  # the output is the input it wrote, perhaps resized: count only its growth
            out = func(*args, **kwargs)
            for tensor in (out,) if type(out) is torch.Tensor else tensors_in(out):
                for storage in internals.storages_of(tensor):
                    meter._recount(storage)
        else:
            # A view or an in-place op: an output that shares an input's storage is not new memory,
            # unless the op grew it (resize_, an out= argument): then the growth is counted. The inputs'
            # storages are taken *before* the op: set_ (and torch.load, which uses it) swaps one in.
            inputs = {id(s): s for t in tensors_in((args, kwargs)) for s in internals.storages_of(t)}
            out = func(*args, **kwargs)
            for tensor in tensors_in(out):
                for storage in internals.storages_of(tensor):
                    if id(storage) in inputs:
                        meter._recount(storage)
                    else:
                        meter._count(storage)
                if type(tensor) not in _DENSE or tensor.layout is not _STRIDED or tensor.is_nested:
                    meter._note_uncounted(tensor)
        if self.after_op is not None:
            try:
                self.after_op(func)
            except BaseException:  # the traceback keeps this frame: it must not keep the op's tensors alive
                out = args = kwargs = inputs = tensor = storage = None
                raise
        return out


_DENSE = (torch.Tensor, torch.nn.Parameter)


def _writes_in_place(args):
    """True when the tensor an in-place op writes (its first argument, or the first of a ``_foreach_`` op's list) is a
    plain dense tensor, whose storage the op writes; False for a sparse, nested or subclass tensor, whose parts an
    in-place op may replace (a sparse ``add_`` concatenates both tensors' entries into new parts)."""
    first = args[0] if args else None
    if type(first) is list:
        first = first[0] if first else None
    return type(first) in _DENSE and first.layout is _STRIDED and not first.is_nested


class _StorageRef(weakref.ref):
    """A weak reference to a counted storage that carries its record: its id (``key``), bytes and device.
    (One object per storage: a tuple around a plain weakref and a ``functools.partial`` callback cost three.)"""

    __slots__ = ("key", "nbytes", "device")


class LiveTensors(_Meter):
    """Count the bytes of every tensor storage created while the meter is active.

    ``.bytes`` is what is alive now, ``.peak`` the highest ``.bytes`` while active: the **peak of live
    tensors**, read between ops. A storage is counted once however many views share it, and
    subtracted when it is freed, also after the ``with`` block ends. Storages that existed before (a
    model's parameters and ``.grad`` s, an optimizer's state, inputs) are added with :meth:`track`.

    It counts **what the block made**, not the allocator's net change: a block that frees a tensor
    made before it (``zero_grad()`` dropping the old ``.grad`` s) lowers ``torch.cuda.memory_allocated``
    but not this meter, unless that tensor was tracked. With everything the block frees tracked, the
    change of ``.bytes`` over the block is the net change (:func:`autograd_memory.timeline` tracks the
    model and the optimizer itself). Works on CPU, CUDA and MPS; nested meters
    each count. Sparse tensors count their component storages (COO indices and values, CSR crow/col/
    values), wrapper subclasses (``torch.nested`` jagged tensors) their inner tensors' storages.

    >>> with LiveTensors() as live:
    ...     y = torch.ones(250).exp()   # the ones (1 kB) die at once; y is 1 kB
    >>> live.bytes, live.peak
    (1000, 2000)

    ``by_device`` and ``peak_by_device`` split both by device (``"cpu"``, ``"cuda:0"``): compare the
    CUDA entry with ``torch.cuda.memory_allocated``.

    What it cannot see (measured in ``tests/test_meter_edge_cases.py``):

    * **scratch memory inside one op**: oneDNN convolution, LSTM and fused attention allocate
      workspaces that live and die within the op, so ``.peak`` can read well under the allocator's
      peak (``torch.cuda.max_memory_allocated``, the profiler): it is the peak of live *tensors*.
    * **storages made outside the dispatcher**: ``torch.get_rng_state()`` (reentrant checkpointing
      keeps one per segment) and memory owned by NumPy (``torch.from_numpy``, ``torch.as_tensor``
      share it: not counted, as no new memory is made). Pass such tensors to :meth:`track`.
    * **other threads**: dispatch modes are thread-local, so tensors made by a thread (a
      ``DataLoader`` worker thread, ``threading.Thread``) are not counted, even one started inside the
      block; they count once a tensor op on this thread returns them (a view or copy of them).
    * **tensors it cannot count exactly**: a tensor subclass with its own ``__torch_dispatch__`` and no
      ``__tensor_flatten__``, a nested tensor of the strided layout (its sizes, strides and offsets), an mkldnn
      tensor, and a quantized tensor's quantizer (per-channel scales). The first three are counted by kind in
      :attr:`uncounted` while they live, never read as 0 bytes; meta tensors hold no memory and count 0.
    * **storages made before the meter that grow in place** (``resize_``, a sparse tensor's parts grown by an
      in-place ``add_``): counted only when tracked.
    * ``torch.compile``: while the meter is active, Dynamo runs compiled functions eagerly (it skips
      frames under a Python dispatch mode), so the reading is eager mode's; the meter warns.

    ``.bytes`` adds up every device's storages (``by_device`` separates them) and counts logical
    bytes: the CUDA allocator rounds each block up to 512 bytes, so it reads slightly more.

    Subclasses extend it through three hooks, all no-ops here: :meth:`_on_new_storage`,
    :meth:`_on_free_storage` and :meth:`_after_op` (:func:`autograd_memory.memory_budget` uses the last).
    """

    _what = "live"

    def __init__(self):
        super().__init__()
        self._refs = {}  # id(storage) -> its _StorageRef (the storage's record: key, bytes, device)
        self._dead = []  # _StorageRefs whose storage died, appended by the callback (list.append: a C call)
        self._tracked = set()  # ids of storages added by track(): they existed before
        self._by_device = {}  # "cpu", "cuda:0", ... -> bytes alive now
        self._peak_by_device = {}
        self._mode = None
        self._warned_compile = False
        self._uncounted = {}  # id(tensor) -> (a weak reference to it, its kind): tensors it cannot count exactly

    # ---------------------------------------------------------------- hooks for subclasses
    def _on_new_storage(self, key, nbytes, device):
        """Called once for each storage the meter counts for the first time (``key`` is its id)."""

    def _on_free_storage(self, key, nbytes, device):
        """Called once for each counted storage that died (noticed at the next op or reading)."""

    def _after_op(self, func):
        """Called after every op the meter's dispatch mode sees, and after :meth:`track` (``func="track()"``)."""

    # ---------------------------------------------------------------- life cycle
    def _install(self):
        self._mode = _CountNewStorages(self)
        self._mode.__enter__()
        self._mode.installed = True

    def _uninstall(self):
        if internals.current_dispatch_mode() is not self._mode:
            raise RuntimeError(_OUT_OF_ORDER)
        mode, self._mode = self._mode, None
        mode.installed = False
        mode.__exit__(None, None, None)

    def _compile_skipped(self):
        if not self._warned_compile:
            self._warned_compile = True
            warnings.warn(
                "torch.compile runs eagerly while a LiveTensors meter is active (Dynamo skips code under a "
                "Python dispatch mode), so this reading is eager mode's, not the compiled code's. To compare "
                "memory with and without compile, read torch.cuda.max_memory_allocated (or the profiler) "
                "outside any meter.", stacklevel=4)

    def track(self, *items):
        """Count storages that already exist, so that their frees count too: tensors, ``nn.Module`` s (parameters,
        their ``.grad`` s and buffers), optimizers (their state, their parameters and ``.grad`` s), or lists of them.

        Returns ``self`` so that ``with LiveTensors().track(model, optimizer, x) as live:`` reads naturally.
        """
        if self._state == "finished":
            raise RuntimeError("This LiveTensors has finished; create a new one to track more tensors.")
        trackable = (torch.Tensor, torch.nn.Module, torch.optim.Optimizer)
        for item in items:
            if isinstance(item, torch.nn.Module):
                parameters = list(item.parameters())
                tensors = parameters + [p.grad for p in parameters if p.grad is not None] + list(item.buffers())
            elif isinstance(item, torch.optim.Optimizer):
                parameters = [p for group in item.param_groups for p in group["params"]]
                tensors = (parameters + [p.grad for p in parameters if p.grad is not None]
                           + tensors_in(list(item.state.values())))
            elif isinstance(item, torch.Tensor):
                tensors = [item]
            elif isinstance(item, (list, tuple)) and all(isinstance(t, trackable) for t in item):
                self.track(*item)
                continue
            else:
                raise TypeError(
                    f"track() takes tensors, nn.Modules, optimizers or lists of them; got {type(item).__name__}. "
                    "Example: live.track(model, optimizer, x)."
                )
            for tensor in tensors:
                for storage in internals.storages_of(tensor):
                    self._count(storage)
                    self._tracked.add(id(storage))
        self._after_op("track()")
        return self

    @property
    def uncounted(self) -> dict:
        """Tensors made inside and alive now that the meter cannot count exactly, by kind (``{"mkldnn": 2}``): a
        tensor subclass with its own ``__torch_dispatch__`` and no ``__tensor_flatten__``, a nested tensor of the
        strided layout, a layout without storages (mkldnn). What of them it can read is in ``.bytes``; the rest is
        not. Empty when every tensor made was counted exactly.

        >>> with LiveTensors() as live:
        ...     kept = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
        >>> live.uncounted
        {'nested': 1}
        """
        with self._lock:
            self._uncounted = {key: entry for key, entry in self._uncounted.items() if entry[0]() is not None}
            return dict(Counter(kind for _ref, kind in self._uncounted.values()))

    # ---------------------------------------------------------------- bookkeeping
    def _note_uncounted(self, tensor):
        kind = internals.uncounted_kind(tensor)
        if kind:
            with self._lock:
                entry = self._uncounted.get(id(tensor))
                if entry is None or entry[0]() is not tensor:
                    self._uncounted[id(tensor)] = (weakref.ref(tensor), kind)

    def _count(self, storage):
        device = _device_names.get(storage.device)
        if device is None:
            device = _device_names[storage.device] = str(storage.device)
        if device == "meta":  # shapes only, no memory
            return
        key = id(storage)
        with self._lock:
            if self._stale:
                self._rebuild()
            if self._dead:  # a dead storage's id may be this one's: subtract it first
                self._drain()
            if key in self._refs:
                return
            self._stale = True
            ref = _StorageRef(storage, self._dead.append)
            ref.key, ref.nbytes, ref.device = key, storage.nbytes(), device
            self._refs[key] = ref
            nbytes = ref.nbytes
            total = self._bytes = self._bytes + nbytes  # _change(device, nbytes), inlined: this runs for every new storage
            if total > self._peak:
                self._peak = total
            by_device = self._by_device
            now = by_device[device] = by_device.get(device, 0) + nbytes
            if now > self._peak_by_device.get(device, 0):
                self._peak_by_device[device] = now
            self._stale = False
        self._on_new_storage(key, nbytes, device)

    def _recount(self, storage):
        """A counted storage an op resized in place (``resize_``, ``out=``): count the difference."""
        key = id(storage)
        with self._lock:
            ref = self._refs.get(key)
            if ref is not None and ref.nbytes != storage.nbytes():
                self._stale = True
                grown, ref.nbytes = storage.nbytes() - ref.nbytes, storage.nbytes()
                self._change(ref.device, grown)
                self._stale = False

    def _change(self, device, nbytes):
        self._bytes += nbytes
        if self._bytes > self._peak:
            self._peak = self._bytes
        now = self._by_device[device] = self._by_device.get(device, 0) + nbytes
        if now > self._peak_by_device.get(device, 0):
            self._peak_by_device[device] = now

    def _drain(self):
        freed = []
        self._stale = True
        dead, refs, by_device = self._dead, self._refs, self._by_device
        while dead:
            ref = dead.pop()
            key = ref.key
            if refs.get(key) is ref:
                del refs[key]
                self._tracked.discard(key)
                self._bytes -= ref.nbytes  # _change(device, -nbytes), inlined: a free never sets a peak
                by_device[ref.device] -= ref.nbytes
                freed.append((key, ref.nbytes, ref.device))
        self._stale = False
        for key, nbytes, device in freed:
            self._on_free_storage(key, nbytes, device)

    def _rebuild(self):
        """Totals from the records, after an interrupt cut bookkeeping short."""
        dead = [ref for ref in self._refs.values() if ref() is None]
        for ref in dead:
            del self._refs[ref.key]
            self._tracked.discard(ref.key)
        self._by_device = {}
        for ref in self._refs.values():
            self._by_device[ref.device] = self._by_device.get(ref.device, 0) + ref.nbytes
        self._bytes = sum(self._by_device.values())
        self._peak = max(self._peak, self._bytes)
        for device, nbytes in self._by_device.items():
            self._peak_by_device[device] = max(self._peak_by_device.get(device, 0), nbytes)
        self._stale = False
        for ref in dead:
            self._on_free_storage(ref.key, ref.nbytes, ref.device)

    def _born_inside(self, key):
        """True when the storage ``key`` was made while this meter was active (counted, not tracked)."""
        self._settle()
        return key in self._refs and key not in self._tracked

    @property
    def by_device(self):
        """Bytes alive now, per device."""
        self._settle()
        return dict(self._by_device)

    @property
    def peak_by_device(self):
        """The highest bytes per device."""
        self._settle()
        return dict(self._peak_by_device)

    @property
    def count(self):
        """Number of distinct storages alive."""
        self._settle()
        return len(self._refs)


class GraphMemoryUnsupported(RuntimeError):
    """Raised where autograd refuses saved-tensor hooks (inside ``torch.func`` transforms)."""


_UNSUPPORTED = (
    "torch.func transforms (vmap, grad, jacrev, hessian, jvp ...) refuse saved-tensor hooks, so GraphMemory "
    "cannot see what they save. Measure this code with LiveTensors instead (it counts every live tensor, the "
    "graph's included), or run measure(fn), which falls back to LiveTensors by itself."
)

class Kind(enum.StrEnum):
    """What a saved storage is to the graph: the split of ``GraphMemory.by_kind`` and of ``graph_table``'s kind
    column. A ``str`` (``Kind.INPUTS == "inputs"``), so ``by_kind["inputs"]`` reads it.

    ``parameters``: weights the graph refers to (they cost nothing extra); ``inputs``: leaves that require grad and
    tensors that existed before; ``activations``: what the forward pass made and the graph keeps alive.
    """

    PARAMETERS = "parameters"
    INPUTS = "inputs"
    ACTIVATIONS = "activations"

    @classmethod
    def of(cls, tensor, made_inside) -> "Kind":
        """The one rule: activations when the tensor (or the tensor it views) was computed in a graph (a
        ``grad_fn``); parameters for an ``nn.Parameter`` (or a view of one); inputs for a leaf that requires grad.
        Otherwise where it was made decides: ``made_inside`` (a bool, or a function of nothing asked only then)
        tells activations (made by the forward pass: a dropout mask, max-pool indices) from inputs (data).

        >>> w = torch.nn.Parameter(torch.ones(2))
        >>> [Kind.of(t, made_inside=False) for t in (w, w.exp(), torch.ones(2, requires_grad=True))]
        [<Kind.PARAMETERS: 'parameters'>, <Kind.ACTIVATIONS: 'activations'>, <Kind.INPUTS: 'inputs'>]
        >>> Kind.of(torch.ones(2), made_inside=True), Kind.of(torch.ones(2), made_inside=lambda: False)
        (<Kind.ACTIVATIONS: 'activations'>, <Kind.INPUTS: 'inputs'>)
        """
        base = tensor._base if tensor._base is not None else tensor
        if base.grad_fn is not None:  # first: the usual case, and a Parameter never has one (isinstance is Python)
            return _ACTIVATIONS
        if isinstance(base, torch.nn.Parameter):
            return _PARAMETERS
        if base.requires_grad:
            return _INPUTS
        return _ACTIVATIONS if (made_inside() if callable(made_inside) else made_inside) else _INPUTS


_PARAMETERS, _INPUTS, _ACTIVATIONS = Kind  # plain names: the saved-tensor hook reads them at every pack


def _alias(tensor):
    """``tensor.detach()``, kept out of any dispatch mode for plain tensors: an alias is no new memory,
    so a LiveTensors meter need not see it (one Python dispatch fewer per saved tensor).

    >>> x = torch.ones(2, requires_grad=True).exp()
    >>> alias = _alias(x)
    >>> alias.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), alias.grad_fn
    (True, None)
    """
    if type(tensor) in (torch.Tensor, torch.nn.Parameter):
        with internals.dispatch_disabled():
            return tensor.detach()
    return tensor.detach()  # a tensor subclass may need its own __torch_dispatch__ to detach


_reading_for_display = threading.local()  # graph_table shows a slot modified in place: no version check


class reading_saved_for_display:
    """Inside this block GraphMemory hands back saved tensors modified in place instead of raising
    (graph_table marks them; backward still raises)."""

    def __enter__(self):
        self._before, _reading_for_display.on = getattr(_reading_for_display, "on", False), True

    def __exit__(self, *exc):
        _reading_for_display.on = self._before


class Saved:
    """What autograd keeps instead of a saved tensor while GraphMemory is active.

    It holds a *detached* alias (same storage, no ``grad_fn``): holding the original output tensor
    would make a reference cycle through its ``grad_fn`` that even ``gc.collect()`` cannot break.
    Each meter holds a weak reference to it and learns from its callback when autograd drops it.
    """

    __slots__ = ("tensor", "version", "kind", "__weakref__")

    def __init__(self, tensor, kind):
        # the detached alias shares the original's version counter, so in-place changes stay visible
        self.tensor, self.version, self.kind = _alias(tensor), tensor._version, kind


class GraphMemory(_Meter):
    """Count the bytes autograd saves for backward and still holds.

    ``.bytes`` counts each saved storage once; it drops when autograd frees the graph (after
    ``backward()``, when the output is deleted, or after ``gc.collect()`` for cycles made by
    ``create_graph=True``). ``.count`` is the number of saved slots alive; ``.by_kind`` splits the
    bytes into ``parameters`` (weights the graph refers to: they cost nothing extra), ``inputs``
    (tensors that existed before the meter started, or that an enclosing LiveTensors ``track()``-ed)
    and ``activations`` (what the forward pass made and the graph keeps alive: results, and tensors
    made without a ``grad_fn`` such as dropout masks, max-pool indices, batch-norm statistics).
    A leaf that requires grad is an input wherever it was made.

    >>> x = torch.ones(1000, requires_grad=True)
    >>> with GraphMemory() as graph:
    ...     y = x.exp().sum()          # exp saves its output: 4 kB
    >>> graph.bytes, graph.by_kind["activations"]
    (4000, 4000)
    >>> y.backward()
    >>> graph.bytes
    0

    To tell inputs from activations it needs to know which tensors were made inside: it asks the
    ``LiveTensors`` meter it is nested in (``measure`` and ``MemoryGauge`` enter both), or else runs
    one of its own.

    Nested ``GraphMemory`` meters each count what is saved inside them. ``torch.func`` transforms
    refuse saved-tensor hooks: inside one (or around one) this meter raises
    :class:`GraphMemoryUnsupported`; measure those with :class:`LiveTensors`. Other saved-tensor
    hooks entered *inside* the meter (``torch.utils.checkpoint``) take over there, so what they keep
    is not seen; hooks entered *outside* it (``save_on_cpu``) are replaced inside the block, with a
    warning. Python numbers autograd saves as 0-dim tensors (``x * 2.0`` keeps an 8-byte float64)
    get no hooks, so this meter never sees them; :func:`autograd_memory.graph_table` counts them.
    """

    _what = "graph"

    def __init__(self):
        super().__init__()
        self._slots = {}  # id(storage) -> [slots alive, nbytes, kind]
        self._held = {}  # id(weakref to a Saved) -> (that weakref, id(storage)): the records _rebuild trusts
        self._by_kind = dict.fromkeys(map(str, Kind), 0)  # plain str keys (a Kind finds its own: same hash)
        self._hooks = None
        self._counting = [self]  # this meter and the GraphMemory meters it is nested in
        self._births = None  # a LiveTensors meter that knows which storages were made inside
        self._own_births = None  # ... entered by this meter when it is not nested in one
        self._born_before = {}  # id(storage) -> its record in the outer LiveTensors when this meter began

    def _install(self):
        if internals.in_functorch_transform():
            raise GraphMemoryUnsupported(_UNSUPPORTED)
        outer = internals.top_saved_tensor_hooks()
        if outer is not None:
            outer_meter = getattr(outer[0], "__self__", None)
            if isinstance(outer_meter, GraphMemory):
                self._counting = outer_meter._counting + [self]
            else:
                warnings.warn("GraphMemory replaces the saved-tensor hooks already active (e.g. save_on_cpu) "
                              "inside its block, so saved tensors stay where autograd made them.", stacklevel=3)
        mode = internals.current_dispatch_mode()
        if isinstance(mode, _CountNewStorages):
            self._births = mode.meter
            self._born_before = dict(mode.meter._refs)
        else:
            self._births = self._own_births = LiveTensors().__enter__()
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        try:
            self._hooks.__enter__()
        except BaseException:
            if self._own_births is not None:
                self._own_births.__exit__(None, None, None)
            raise

    def _uninstall(self):
        top = internals.top_saved_tensor_hooks()
        if top is None or getattr(top[0], "__self__", None) is not self:
            raise RuntimeError(_OUT_OF_ORDER)
        if self._own_births is not None and internals.current_dispatch_mode() is not self._own_births._mode:
            raise RuntimeError(_OUT_OF_ORDER)
        hooks, self._hooks = self._hooks, None
        hooks.__exit__(None, None, None)
        if self._own_births is not None:
            self._own_births.__exit__(None, None, None)
        self._births = self._own_births = None  # what was made inside no longer matters

    def __exit__(self, exc_type, exc, tb):
        super().__exit__(exc_type, exc, tb)
        if exc_type is RuntimeError and internals.is_saved_hooks_refused_error(exc):
            raise GraphMemoryUnsupported(_UNSUPPORTED) from exc
        return False

    def _kind(self, tensor, key):
        """The :meth:`Kind.of` a saved tensor whose first storage is ``key``: made inside means made after this meter
        began, as the LiveTensors meter it is nested in (or runs itself) saw it."""
        return Kind.of(tensor, made_inside=lambda: self._made_inside(key))

    def _made_inside(self, key):
        births = self._births
        # an id alone is not a storage (ids are reused): born before means the same record as at the start
        return births is not None and births._born_inside(key) and self._born_before.get(key) is not births._refs[key]

    def _pack(self, tensor):
        storages = internals.storages_of(tensor)
        if not storages:
            return tensor
        first = id(storages[0])
        kind = self._kind(tensor, first)
        saved = Saved(tensor, kind)  # graph_table reads the kind from it
        for storage in storages:
            key, nbytes = id(storage), storage.nbytes()
            for meter in self._counting:  # the meters it is nested in tell made-inside from their own start
                meter._hold(saved, key, nbytes, kind if meter is self and key == first else meter._kind(tensor, key))
        return saved

    def _hold(self, saved, key, nbytes, kind):
        with self._lock:
            if self._stale or self._dead:
                self._settle()
            self._stale = True
            slot = self._slots.get(key)
            if slot is None:  # the holders keep the storage alive, so its id cannot be reused meanwhile
                slot = self._slots[key] = [0, nbytes, kind]
                self._by_kind[kind] += nbytes
                self._bytes += nbytes
                if self._bytes > self._peak:
                    self._peak = self._bytes
            slot[0] += 1
            ref = weakref.ref(saved, self._dead.append)
            self._held[id(ref)] = (ref, key)
            self._stale = False

    @staticmethod
    def _unpack(saved):
        if not isinstance(saved, Saved):
            return saved
        # With saved-tensor hooks autograd leaves the in-place check to the hooks: do it as autograd would.
        if saved.tensor._version != saved.version and not getattr(_reading_for_display, "on", False):
            t = saved.tensor
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{t.type()} {list(t.shape)}] is at version {t._version}; expected version "
                f"{saved.version} instead. (Checked by GraphMemory, exactly as autograd does without it.)"
            )
        return saved.tensor

    def _drain(self):
        self._stale = True
        while self._dead:
            record = self._held.pop(id(self._dead.pop()), None)
            if record is not None:
                slot = self._slots[record[1]]
                slot[0] -= 1
                if slot[0] == 0:
                    del self._slots[record[1]]
                    self._bytes -= slot[1]
                    self._by_kind[slot[2]] -= slot[1]
        self._stale = False

    def _rebuild(self):
        """Totals from the records, after an interrupt cut bookkeeping short."""
        self._held = {ref_id: (ref, key) for ref_id, (ref, key) in self._held.items() if ref() is not None}
        alive = Counter(key for _ref, key in self._held.values())
        self._slots = {key: [alive[key], slot[1], slot[2]] for key, slot in self._slots.items() if alive[key]}
        self._by_kind = dict.fromkeys(map(str, Kind), 0)
        for _count, nbytes, kind in self._slots.values():
            self._by_kind[kind] += nbytes
        self._bytes = sum(self._by_kind.values())
        self._peak = max(self._peak, self._bytes)
        self._stale = False

    @property
    def by_kind(self) -> dict[str, int]:
        """Bytes saved and alive, split into parameters, inputs and activations."""
        self._settle()
        return dict(self._by_kind)

    @property
    def count(self) -> int:
        """Number of saved slots alive (a storage saved by three nodes counts three times here)."""
        self._settle()
        return sum(slot[0] for slot in self._slots.values())


_process = None  # psutil's handle on this process (a new one per call costs twice the reading)
_statm = (None, None)  # Linux: (pid, an open /proc/self/statm), re-read in place: no open and close per reading


def process_rss():
    """This process's resident set in bytes, as the OS reports it: what ``device_memory()["rss"]`` reads
    (psutil's ``memory_info().rss``; on Linux read straight from ``/proc/self/statm``, a few times faster
    right after a training step).

    >>> process_rss() > 0
    True
    """
    global _process, _statm
    pid = os.getpid()  # a forked child reads its own
    if sys.platform == "linux":
        if _statm[0] != pid:
            _statm = (pid, os.open("/proc/self/statm", os.O_RDONLY))
        return int(os.pread(_statm[1], 128, 0).split()[1]) * _PAGE
    import psutil

    if _process is None or _process.pid != pid:
        _process = psutil.Process()
    return _process.memory_info().rss


_PAGE = os.sysconf("SC_PAGE_SIZE") if sys.platform == "linux" else 0


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
    readings = {"rss": process_rss()}
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


