"""The memory of one training step, op by op: live bytes after every op, split into parameters,
gradients, optimizer state, saved for backward and other.

>>> import torch
>>> model = torch.nn.Linear(100, 10)
>>> optimizer = torch.optim.Adam(model.parameters())
>>> x = torch.randn(32, 100)
>>> def step():
...     optimizer.zero_grad()
...     model(x).square().mean().backward()
...     optimizer.step()
>>> memory = timeline(step, model, optimizer)
>>> memory.by_kind_at_end()["optimizer state"] == 2 * memory.by_kind_at_end()["parameters"] + 2 * 4
True
>>> memory.peak == max(memory.total), memory.phases[-1]
(True, 'optimizer')

Kinds are resolved at the end of the step: a storage is *parameters* when it belongs to the model's
(or the optimizer's) parameters, *gradients* when it ended up as a parameter's ``.grad``,
*optimizer state* when it ended up in ``optimizer.state``, *saved for backward* when autograd packed
it (seen through a :class:`~autograd_memory.GraphMemory`), and *other* otherwise (inputs, temporaries,
gradients of activations). Every storage has exactly one kind, so the kinds add up to the live bytes
after every op.

(The module is not called ``timeline``: importing a submodule of that name would hide the function
``autograd_memory.timeline``.)
"""
import html
import itertools
from dataclasses import dataclass, field

import torch

from ..formats.memory_snapshot import memory_snapshot
from ..formats.tables import ShowsAsText
from ..formats.units import format_bytes
from ..measuring.meters import GraphMemory, LiveTensors, Saved, tensors_in
from ..seams import torch_internals as internals
from ..views.memory_viewer import save_snapshot, save_viewer, viewer_frame
from .sites import creation_site, frame_file, python_stack, source_location, source_text
from .steps import call_step, check_step

__all__ = ["timeline", "Timeline", "KINDS"]

KINDS = ("parameters", "gradients", "optimizer state", "saved for backward", "other")
_profiler_markers = {}  # id(op) -> (True for the profiler's marker ops, the op)
_NO_SITE = {phase: (None, 0, phase) for phase in ("", "backward", "optimizer")}  # an op that set no new high
_graph_task_id = internals.graph_task_id
_op_names = {}  # id(op) -> (its name, the op): str() of an op is Python code, and every step runs the same ops


class _OpRecorder(LiveTensors):
    """LiveTensors that logs each storage's birth and death between ops, and each op's name and line."""

    def __init__(self):
        super().__init__()
        self.serial = {}  # storage key -> serial number of the live storage (ids are reused, serials not)
        self.events = []  # (samples taken so far, serial, +/- bytes): sample i shows the events up to i
        self.ops = []  # (op name, site) of each sample
        self.total = []  # live bytes at each sample
        # for the memory snapshot: every allocation and free in order, (sample, "alloc" or "free", device, address,
        # bytes, Python stack), and serial -> (device, address, bytes, stack) of each live storage
        self.blocks, self.placed = [], {}

    def _on_new_storage(self, key, nbytes, device):
        number = self.serial[key] = len(self.events)
        self.events.append((len(self.total), number, nbytes))
        self._place(number, self._refs[key](), device)

    def _place(self, number, storage, device):
        """Note where a storage lives, and the stack that made it (none for one tracked before the step)."""
        if storage is not None and storage.nbytes():  # an empty storage has no memory to draw
            stack = python_stack(self._owner) if self.total else ()
            place = self.placed[number] = (device, storage.data_ptr(), storage.nbytes(), stack)
            self.blocks.append((len(self.total), "alloc", *place))

    def _on_free_storage(self, key, nbytes, device):
        number = self.serial.pop(key, None)
        place = self.placed.pop(number, None)
        if number is not None and self.active:
            self.events.append((len(self.total), number, -nbytes))
            if place is not None:
                self.blocks.append((len(self.total), "free", *place))

    def _recount(self, storage):
        """A storage grown in place (``resize_``, ``out=``): its growth is an event too, so the kinds add up."""
        ref = self._refs.get(id(storage))
        before = ref.nbytes if ref is not None else None
        super()._recount(storage)
        number = self.serial.get(id(storage))
        if before is not None and number is not None and storage.nbytes() != before:
            self.events.append((len(self.total), number, storage.nbytes() - before))
            place = self.placed.pop(number, None)  # grown in place is, for an allocator, freed and allocated anew
            if place is not None:
                self.blocks.append((len(self.total), "free", *place))
            self._place(number, storage, ref.device)

    def _install(self):
        self._in_optimizer, self._highest = 0, -1
        super()._install()
        self._optimizer_hooks = [internals.register_optimizer_step_hooks(self._optimizer_step, self._optimizer_done)]

    def _uninstall(self):
        try:
            for hook in self._optimizer_hooks:
                for handle in hook:
                    handle.remove()
        finally:
            super()._uninstall()

    def _optimizer_step(self, optimizer, args, kwargs):
        self._in_optimizer += 1
        closure = kwargs.get("closure", args[1] if len(args) > 1 else None)  # args[0] is the optimizer
        if not callable(closure):
            return None
        # L-BFGS and friends call the learner's closure inside step(): its forward and backward are not the optimizer's

        def learners_closure():
            self._in_optimizer -= 1
            try:
                return closure()
            finally:
                self._in_optimizer += 1
        if "closure" in kwargs:
            return args, {**kwargs, "closure": learners_closure}
        return (args[0], learners_closure, *args[2:]), kwargs

    def _optimizer_done(self, *args):
        self._in_optimizer -= 1

    def _after_op(self, func):
        """Log the op, its phase and the live bytes; the learner's line is read (a walk over the frames)
        only where the live bytes reach a new high, which is where the peak's line is needed."""
        if func == "track()":
            return  # tensors that existed before the step
        marker = _profiler_markers.get(id(func))
        if marker is None:  # the profiler's markers (optimizer.step has them); the op is kept, so its id is its own
            marker = _profiler_markers[id(func)] = (getattr(func, "namespace", "") == "profiler", func)
        if marker[0]:
            return
        phase = "backward" if _graph_task_id() != -1 else "optimizer" if self._in_optimizer else ""
        with self._lock:
            if self._stale or self._dead:  # self.bytes, inlined: this runs after every op
                self._settle()
            total = self._bytes
            if total > self._highest:
                self._highest = total
                site = creation_site(self._owner)[:2] + (phase,)
            else:
                site = _NO_SITE[phase]
            self.ops.append((func, site))
            self.total.append(total)

    def serials_of(self, tensors):
        """Serial numbers of the live storages of ``tensors``."""
        with self._lock:
            return {self.serial[id(storage)] for tensor in tensors for storage in internals.storages_of(tensor)
                    if id(storage) in self.serial}


class _PackRecorder(GraphMemory):
    """GraphMemory that notes which live storages autograd packed for backward."""

    def __init__(self, ops):
        super().__init__()
        self._ops, self.packed = ops, set()

    def _pack(self, tensor):
        if len(self._counting) > 1:  # nested in the learner's GraphMemory: it counts as usual (_hold notes it)
            return super()._pack(tensor)
        storages = internals.storages_of(tensor)
        if not storages:
            return tensor
        for storage in storages:
            self._note(id(storage))
        return Saved(tensor, "")  # for the in-place check at unpack; the bytes and kinds per slot are not read here

    def _hold(self, saved, key, nbytes, kind):
        super()._hold(saved, key, nbytes, kind)
        self._note(key)

    def _note(self, key):
        number = self._ops.serial.get(key)
        if number is not None:
            self.packed.add(number)


@dataclass
class Timeline(ShowsAsText):
    """Live bytes after every op of one step (index 0: before the first op), split by kind."""

    ops: list            # op names, e.g. "aten.mm.default"; the first is "(start)", the last "(end)" (the step returned)
    # (code, line, phase) of each op: the learner's line where the bytes reached a new high, else (None, 0, phase)
    sites: list = field(repr=False)
    total: list = field(repr=False)   # live bytes after each op
    by_kind: dict = field(repr=False)  # kind -> live bytes after each op
    # every allocation and free: (op index, "alloc" or "free", device, address, bytes, ((code, line), ...) innermost
    # first); op index 0 holds the storages alive at the start (tracked, with no stack)
    blocks: list = field(default_factory=list, repr=False)

    @property
    def phases(self):
        """``forward`` / ``backward`` / ``optimizer`` for each op (what ran the op)."""
        return [phase or "forward" for _, _, phase in self.sites]

    @property
    def peak_index(self):
        return max(range(len(self.total)), key=self.total.__getitem__)

    @property
    def peak(self):
        return self.total[self.peak_index]

    @property
    def peak_op(self):
        """The op after which the live bytes peaked, and the line that ran it."""
        index = self.peak_index
        code, line, _ = self.sites[index]
        return f"{self.ops[index]} at {source_location(code, line)}: {source_text(code, line)}"

    @property
    def by_kind_at_peak(self):
        return {kind: values[self.peak_index] for kind, values in self.by_kind.items()}

    def by_kind_at_end(self):
        return {kind: values[-1] for kind, values in self.by_kind.items()}

    def __str__(self):
        kinds = ", ".join(f"{kind} {format_bytes(n)}" for kind, n in self.by_kind_at_peak.items() if n)
        return (f"timeline of {len(self.ops) - 2} ops: peak {format_bytes(self.peak)} after {self.peak_op}\n"
                f"  at the peak: {kinds or 'nothing'}")

    def _repr_html_(self):
        return "<pre>" + html.escape(str(self)) + "</pre>"

    @property
    def allocations(self):
        """How many storages the step allocated (an empty one allocates nothing; one grown in place, twice)."""
        return sum(1 for index, action, *_ in self.blocks if action == "alloc" and index)

    @property
    def alive_at_start(self):
        """How many storages of the model and the optimizer were alive when the step began."""
        return sum(1 for index, *_ in self.blocks if not index)

    def to_snapshot(self):
        """This step as PyTorch's memory snapshot (``torch.cuda.memory._snapshot()``'s format, which
        pytorch.org/memory_viz reads; :mod:`autograd_memory.formats.memory_snapshot` says what each field holds): an
        allocation per storage at its ``data_ptr()``, with the Python stack that made it; each is its own segment.
        Device indices: ``cuda:N`` is N, as in a CUDA snapshot; other devices (``cpu``) follow the CUDA devices
        (``torch.cuda.device_count()``), as ``torch.cuda._memory_viz.profile_plot`` numbers them.

        >>> kept = []
        >>> snapshot = timeline(lambda: kept.append(torch.ones(256))).to_snapshot()
        >>> [(event["action"], event["size"]) for event in snapshot["device_traces"][-1]]
        [('segment_alloc', 1024), ('alloc', 1024)]
        """
        indices = {}
        cuda = torch.cuda.device_count()
        for _, _, device, *_ in self.blocks:
            if device not in indices:
                indices[device] = (int(device.partition(":")[2] or 0) if device.startswith("cuda")
                                   else cuda + sum(1 for name in indices if not name.startswith("cuda")))
        events = [(action, indices[device], address, nbytes, [(frame_file(code), line, code.co_name) for code, line in stack])
                  for index, action, device, address, nbytes, stack in self.blocks if index]
        alive = [(indices[device], address, nbytes) for index, _, device, address, nbytes, _ in self.blocks if not index]
        count = max([cuda - 1, *indices.values()]) + 1
        return memory_snapshot(events, alive_before=alive, devices=count)

    def save_snapshot(self, path):
        """Pickle :meth:`to_snapshot` to ``path`` as ``torch.cuda.memory._dump_snapshot`` does: drop it on
        pytorch.org/memory_viz, or read it with ``python -m torch.cuda._memory_viz``. Returns the path."""
        return save_snapshot(self.to_snapshot(), path)

    def save_html(self, path):
        """Write this step's Active Memory Timeline to ``path``: one HTML file that opens from disk with no network
        (:mod:`autograd_memory.views.memory_viewer`). Returns the path."""
        return save_viewer(self.to_snapshot(), path, title=self._viewer_title())

    def viewer(self, height=480):
        """This step's Active Memory Timeline, inline in a notebook (the page of :meth:`save_html` in an iframe)."""
        return viewer_frame(self.to_snapshot(), height, title=self._viewer_title())

    def _viewer_title(self):
        return f"Memory of one step: {len(self.ops) - 2} ops"

    def plot(self, ax=None, title="Memory of one training step, op by op"):
        """A stacked area of the kinds over the ops, the phases shaded, the peak annotated. Returns the figure."""
        import matplotlib.pyplot as plt

        from ..views.plots import FONT, bytes_axis

        if ax is None:
            _, ax = plt.subplots(figsize=(11, 4.5))
        xs = range(len(self.total))
        ax.stackplot(xs, *self.by_kind.values(), labels=list(self.by_kind), alpha=0.85)
        phases, spans, start = self.phases, [], 0
        for i in range(1, len(phases) + 1):
            if i == len(phases) or phases[i] != phases[start]:
                spans.append((phases[start], start, i - 1))
                start = i
        widest = {}  # each phase is named once, over its widest span (a short forward is still named)
        for phase, first, last in spans:
            if phase != "forward":
                ax.axvspan(first, last, color="0.85" if phase == "backward" else "0.7", zorder=0)
            if last - first > widest.get(phase, (-1,))[0]:
                widest[phase] = (last - first, first, last)
        for phase, (_, first, last) in widest.items():
            ax.text((first + last) / 2, 1.01, phase, transform=ax.get_xaxis_transform(), ha="center",
                    fontsize=FONT["ticks"])
        ax.annotate(f"peak {format_bytes(self.peak)}\n{self.peak_op[:70]}", (self.peak_index, self.peak),
                    xytext=(0.02, 0.9), textcoords="axes fraction", fontsize=FONT["ticks"], va="top",
                    arrowprops={"arrowstyle": "->"})
        ax.set_title(title, fontsize=FONT["title"], pad=22)
        ax.legend(fontsize=FONT["legend"], loc="center left", bbox_to_anchor=(1.0, 0.5))
        bytes_axis(ax, xlabel="op")
        ax.figure.tight_layout()
        return ax.figure


def _parameters(model, optimizer):
    params = list(model.parameters()) if model is not None else []
    if optimizer is not None:
        params += [p for group in optimizer.param_groups for p in group["params"]]
    return list({id(p): p for p in params}.values())


def timeline(step, model=None, optimizer=None):
    """Run ``step()`` once and record the live bytes after every op, split by kind (see the module).

    ``model`` and ``optimizer`` say what counts as parameters, gradients and optimizer state; their
    tensors that exist before the step are counted from the start, so what the step frees of them
    (the old ``.grad`` s ``zero_grad()`` drops) counts too: ``total[-1] - total[0]``, read when the step
    has returned, is the net change the allocator sees (``torch.cuda.memory_allocated``; on CPU the
    bytes of all live tensors), as long as the step frees nothing else that existed before it.
    Exact in bytes on CPU; on CUDA the allocator rounds each block up to 512 bytes.
    """
    check_step(step, "timeline", "timeline(train_step, model, optimizer)")
    if model is not None and not isinstance(model, torch.nn.Module):
        raise TypeError(f"model should be an nn.Module (or None), got {type(model).__name__}; "
                        "call timeline(train_step, model, optimizer)")
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer should be a torch.optim.Optimizer (or None), got {type(optimizer).__name__}; "
                        "call timeline(train_step, model, optimizer), e.g. with optimizer = torch.optim.Adam("
                        "model.parameters()), or timeline(train_step, model) when the step has no optimizer")
    params = _parameters(model, optimizer)
    with _OpRecorder() as ops:
        ops.track(*_tensors_of_kinds(params, optimizer))
        before = _kinds(ops, params, optimizer)  # those alive before the step (a .grad zero_grad frees, too)
        ops.ops.append(("(start)", (None, 0, "")))
        ops.total.append(ops.bytes)
        with _PackRecorder(ops) as packer:
            call_step(step, "timeline")
        # what the step's last lines held (an optimizer's temporaries) dies as it returns, after its last op
        ops.ops.append(("(end)", (None, 0, ops.ops[-1][1][2])))
        ops.total.append(ops.bytes)
        kinds = dict.fromkeys(packer.packed, "saved for backward")
        kinds.update(before)
        kinds.update(_kinds(ops, params, optimizer))
        events, names, total = list(ops.events), ops.ops, ops.total
        blocks = [block for block in ops.blocks if block[0] < len(total)]  # as events: none after the last sample
    return _resolve(events, names, total, kinds, blocks)


def _tensors_of_kinds(params, optimizer):
    grads = [p.grad for p in params if p.grad is not None]
    state = tensors_in(list(optimizer.state.values())) if optimizer is not None else []
    return params, grads, state


def _kinds(ops, params, optimizer):
    """serial -> kind of the storages alive now; parameters win over gradients, gradients over state."""
    params, grads, state = _tensors_of_kinds(params, optimizer)
    kinds = dict.fromkeys(ops.serials_of(state), "optimizer state")
    kinds.update(dict.fromkeys(ops.serials_of(grads), "gradients"))
    kinds.update(dict.fromkeys(ops.serials_of(params), "parameters"))
    return kinds


def _resolve(events, ops, total, kinds, blocks):
    """Replay the births and deaths op by op, adding each storage's bytes to its kind."""
    changes = {kind: [0] * len(total) for kind in KINDS}  # kind -> its change in bytes at each sample
    for index, serial, nbytes in events:
        if index < len(total):  # an event after the last sample shows in none
            changes[kinds.get(serial, "other")][index] += nbytes
    by_kind = {kind: list(itertools.accumulate(change)) for kind, change in changes.items()}
    labels = [(_op_names.get(id(op)) or _op_names.setdefault(id(op), (str(op), op)))[0] for op, _ in ops]
    return Timeline(labels, [site for _, site in ops], total, by_kind, blocks)
