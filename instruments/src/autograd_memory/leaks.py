"""Which line leaks, and how much per step: :func:`find_leaks` runs a training step a few times and
names the source lines whose tensors pile up, and the variables whose autograd graph grows.

>>> import torch
>>> history = []
>>> def step():
...     history.append(torch.zeros(250).exp())   # 1 kB a step kept; the zeros die at once
>>> report = find_leaks(step, steps=3)
>>> report.top.bytes_per_step, report.top.tensors_per_step, report.top.during_backward
(1000, 1, False)
>>> report.top.where.endswith("line 2")
True
>>> history.clear()

How it works: a :class:`~course_utils.LiveTensors` meter that notes, for each storage it counts, the
code object and line of the innermost frame outside ``torch`` and ``course_utils``
(:func:`~course_utils.sites.creation_site`), and forgets it when the storage dies. Storages still
alive after the last step, minus those alive after the warm-up, are what each line leaked.
"""
import gc
import html
import sys
from dataclasses import dataclass

from .meters import LiveTensors, _tensors_in, device_memory
from .sites import creation_site, source_location, source_text
from .tables import ShowsAsText
from .trace import NotFlatError
from .units import format_bytes

__all__ = ["find_leaks", "LeakReport", "LeakRow"]


class _SiteMeter(LiveTensors):
    """LiveTensors that remembers where each live storage was created."""

    def __init__(self):
        super().__init__()
        self.sites = {}  # storage key -> (site, nbytes)

    def _on_new_storage(self, key, nbytes, device):
        self.sites[key] = (creation_site(self._owner), nbytes)

    def _on_free_storage(self, key, nbytes, device):
        self.sites.pop(key, None)

    def alive_by_site(self):
        """site -> [bytes, storages] of what is alive now."""
        self._settle()  # deaths are noticed at the next op or reading: take them in first
        with self._lock:
            entries = list(self.sites.values())
        totals = {}
        for site, nbytes in entries:
            total = totals.setdefault(site, [0, 0])
            total[0] += nbytes
            total[1] += 1
        return totals


@dataclass
class LeakRow:
    """One line (or one variable) that grows every step.

    ``site`` is ``(code object, line)`` for a line, or a variable's name; ``where`` and ``code``
    (the source text) are read from it only when asked for.
    """

    site: object
    bytes_per_step: float
    tensors_per_step: float = 0
    nodes_per_step: float = 0
    during_backward: bool = False
    note: str = ""

    @property
    def where(self):
        if isinstance(self.site, str):
            return f"variable {self.site!r}"
        return source_location(*self.site)

    @property
    def code(self):
        return self.note if isinstance(self.site, str) else source_text(*self.site)

    def __str__(self):
        made = " (made during backward)" if self.during_backward else ""
        grows = (f"+{format_bytes(self.bytes_per_step)}/step in {_number(self.tensors_per_step)} tensor(s)"
                 if self.bytes_per_step else f"+{_number(self.nodes_per_step)} graph nodes/step, no tensor bytes")
        return f"{self.where}{made}: {grows}    {self.code}"


def _number(x):
    return f"{x:g}" if isinstance(x, float) else str(x)


def _per_step(growth, steps):
    """Exact when the growth divides evenly (the usual case: the same bytes every step)."""
    return growth // steps if growth % steps == 0 else growth / steps


@dataclass
class LeakReport(ShowsAsText):
    """What :func:`find_leaks` found. ``rows`` grow every step, largest first (tensor bytes, then
    graph nodes); ``top`` is the first row, or None when the step is flat."""

    rows: list
    steps: int
    warmup: int
    rss_per_step: float
    objects_per_step: float
    bytes_per_step: float

    @property
    def top(self):
        return self.rows[0] if self.rows else None

    def __str__(self):
        head = (f"find_leaks: {self.steps} steps after {self.warmup} warm-up; live tensors "
                f"{format_bytes(self.bytes_per_step, signed=True)}/step, process RSS "
                f"{format_bytes(self.rss_per_step, signed=True)}/step, Python objects {self.objects_per_step:+g}/step")
        if not self.rows:
            return head + "\n  flat: nothing grows from step to step"
        return "\n".join([head] + [f"  {row}" for row in self.rows])

    def _repr_html_(self):
        cells = "".join(
            f"<tr><td style='text-align:left'>{html.escape(r.where)}{' (during backward)' if r.during_backward else ''}</td>"
            f"<td style='text-align:left'><code>{html.escape(r.code)}</code></td>"
            f"<td>{format_bytes(r.bytes_per_step)}</td><td>{_number(r.tensors_per_step)}</td>"
            f"<td>{_number(r.nodes_per_step)}</td></tr>" for r in self.rows)
        body = cells or "<tr><td colspan=5>flat: nothing grows from step to step</td></tr>"
        head = html.escape(str(self).splitlines()[0])
        return (f"<table><caption style='text-align:left'>{head}</caption><thead><tr><th>where</th><th>code</th>"
                f"<th>bytes/step</th><th>tensors/step</th><th>graph nodes/step</th></tr></thead>{body}</table>")

    def assert_flat(self):
        """Raise :class:`~course_utils.NotFlatError` naming the top rows unless nothing grows."""
        if self.rows:
            top = "\n".join(f"  {row}" for row in self.rows[:3])
            raise NotFlatError(f"the step leaks; top rows:\n{top}\nFix the first line and run find_leaks again.")


def _graph_nodes(value, cap):
    """Autograd nodes reachable from the tensors in ``value`` (a tensor, or lists/dicts of them) and
    from their ``.grad``, up to ``cap``."""
    stack = []
    for tensor in _tensors_in(value):
        stack.append(tensor.grad_fn)
        if tensor.is_leaf and tensor.grad is not None:  # a .grad made with create_graph=True has a graph too
            stack.append(tensor.grad.grad_fn)
    seen = set()  # the node objects themselves: held until the count is done, so none is seen twice
    while stack and len(seen) < cap:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


_SKIPPED = {"In", "Out"}


def _namespaces(step, caller_namespaces):
    """The dictionaries and closure cells whose variables ``step`` can reach, with their names."""
    function = getattr(step, "__func__", step)
    places = [getattr(function, "__globals__", {})] + caller_namespaces
    unique = list({id(d): d for d in places}.values())
    cells = dict(zip(getattr(getattr(function, "__code__", None), "co_freevars", ()),
                     getattr(function, "__closure__", None) or ()))
    return unique, cells


def _locals_of(frame):
    """A copy of a frame's local variables. Before Python 3.13, ``f_locals`` of a function's frame
    is a snapshot dict the frame keeps: left filled, it would keep the caller's tensors alive after
    the caller deletes them, so it is emptied (the frame refills it whenever it is asked again)."""
    namespace = frame.f_locals
    if namespace is frame.f_globals:
        return namespace
    copy = dict(namespace)
    if type(namespace) is dict:
        namespace.clear()
    return copy


def _nodes_by_variable(dicts, cells, cap):
    counts, scanned = {}, {id(namespace) for namespace in dicts}
    for namespace in dicts:
        for name, value in list(namespace.items()):
            # "_", "_12", In, Out: IPython's history; a namespace dict (runpy's result) is scanned by its own names
            if not name.startswith("_") and name not in _SKIPPED and name not in counts and id(value) not in scanned:
                counts[name] = _graph_nodes(value, cap)
    for name, cell in cells.items():
        try:
            counts.setdefault(name, _graph_nodes(cell.cell_contents, cap))
        except ValueError:  # an empty cell
            pass
    return counts


def find_leaks(step, steps=5, warmup=1, *, max_nodes=100_000):
    """Run ``step()`` ``warmup + steps`` times and report what grows from step to step.

    Each :class:`LeakRow` names a source line (``cell [N], line L`` in a notebook) and what it
    leaks per step, exactly in bytes; storages made inside ``backward()``/``autograd.grad`` are
    attributed to that call's line and marked ``during_backward``. Leaks that hold no tensor bytes
    (``running_loss = running_loss + loss`` keeps every step's autograd nodes) show as rows naming
    the variable whose graph grows, counted (up to ``max_nodes``) from the tensors in ``step``'s
    globals and closure and in the caller's namespace. The report also gives the process's RSS and
    Python objects per step. Nothing stays installed if ``step`` raises; no tensor is kept alive.
    """
    if not callable(step):
        raise TypeError(f"find_leaks needs the training step as a function to call, got {type(step).__name__}; "
                        "e.g. find_leaks(train_step) or find_leaks(lambda: train_step(model, batch))")
    if not (isinstance(steps, int) and steps >= 1 and isinstance(warmup, int) and warmup >= 0):
        raise ValueError(f"find_leaks needs steps >= 1 and warmup >= 0 (whole numbers), got steps={steps!r}, "
                         f"warmup={warmup!r}; the defaults steps=5, warmup=1 suit most training steps")
    caller = sys._getframe(1)
    dicts, cells = _namespaces(step, [caller.f_globals, _locals_of(caller)])
    del caller
    # What existed before is not the steps' garbage: freezing it keeps the gc passes below short.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        with _SiteMeter() as meter:
            for _ in range(warmup):
                step()
            first = _Reading.now(meter, dicts, cells, max_nodes)
            for _ in range(steps):
                step()
            last = _Reading.now(meter, dicts, cells, max_nodes)
    finally:
        if freeze:
            gc.unfreeze()
        del dicts, cells
    rows = []
    for site, (nbytes, count) in last.sites.items():
        grown, made = nbytes - first.sites.get(site, (0, 0))[0], count - first.sites.get(site, (0, 0))[1]
        if grown > 0:
            code, line, phase = site
            rows.append(LeakRow((code, line), _per_step(grown, steps), _per_step(made, steps),
                                during_backward=phase == "backward"))
    for name, nodes in last.nodes.items():
        grown = nodes - first.nodes.get(name, 0)
        if grown > 0:
            rows.append(LeakRow(name, 0, nodes_per_step=_per_step(grown, steps),
                                note=f"{name}: its autograd graph has {nodes} nodes (counted up to {max_nodes})"))
    rows.sort(key=lambda row: (row.bytes_per_step, row.nodes_per_step), reverse=True)
    return LeakReport(rows, steps, warmup, (last.rss - first.rss) / steps, (last.objects - first.objects) / steps,
                      _per_step(last.live - first.live, steps))



@dataclass
class _Reading:
    """Everything find_leaks compares between the end of the warm-up and the end of the steps."""

    sites: dict   # (code, line, phase) -> [bytes, storages] alive
    live: int
    nodes: dict   # variable -> graph nodes reachable
    rss: int
    objects: int

    @classmethod
    def now(cls, meter, dicts, cells, max_nodes):
        gc.collect()
        return cls(meter.alive_by_site(), meter.bytes, _nodes_by_variable(dicts, cells, max_nodes),
                   device_memory()["rss"], len(gc.get_objects()))
