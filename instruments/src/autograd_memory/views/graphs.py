"""Graph views: the backward graph autograd recorded, and the memory each node keeps alive.

* :func:`graph_table` lists every node of the graph behind one or more tensors, with the tensors it
  saved for backward (shape, dtype, bytes), and whether backward has freed them. Its ``total_bytes``
  counts each storage once, as :class:`~autograd_memory.measuring.meters.GraphMemory` does.
* :func:`show_graph` draws the same graph with graphviz: nodes coloured by saved bytes, freed nodes
  greyed out, leaves named from ``params``. It shows inline in JupyterLab.
* :func:`lifecycle` takes snapshots of one graph at chosen moments (after forward, after backward ...)
  and shows them side by side, or one at a time with a slider.

>>> x = torch.ones(1000, requires_grad=True)
>>> y = x.exp().sum()                     # exp saves its result: 1000 float32 = 4 kB
>>> table = graph_table(y)
>>> table.node_count, table.total_bytes
(3, 4000)
>>> y.backward()
>>> graph_table(y).total_bytes, graph_table(y).freed_count
(0, 1)

The views read what each node saved from its ``_saved_*`` attributes, the same tensors the
``GraphMemory`` meter sees; they hold no tensor after they return.

Why not draw with ``torchviz.make_dot(show_saved=True)``: it draws a storage once per node that saved
it (Tanh's output is also the next Linear's input), shows no bytes, and raises on a graph after
``backward()``. Notebook 01 measures all three next to these views.
"""
import gc
import html
import shutil
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Union

import torch

from ..formats import display_settings
from ..formats.tables import ShowsAsText, Table
from ..formats.units import format_bytes
from ..measuring.meters import GraphMemory, Kind, Saved, reading_saved_for_display
from ..optional.extras import GRAPHVIZ_INSTALL, require
from ..seams import torch_internals as internals
from .zoom import zoomable_html

__all__ = ["graph_table", "show_graph", "lifecycle", "GraphTable", "GraphNode", "SavedSlot", "GraphView",
           "GraphLifecycle", "NoGraphError", "MAX_NODES", "MAX_WALK"]

Outputs = Union[torch.Tensor, Sequence[torch.Tensor], Mapping[str, torch.Tensor]]  # what the graph views draw from
MAX_NODES = 300  # above this, show_graph summarises instead of drawing
MAX_WALK = 10_000  # graph_table reads at most this many nodes: walking (and later freeing) a huge graph
#                    with a Python object per node can overflow the C stack and kill the kernel
INSTALL_HINT = f"install graphviz: {GRAPHVIZ_INSTALL}"
_PALETTE = ("#fff3b0", "#ffd166", "#f4845f", "#c1121f")  # light to dark: a quarter of the largest node each
_FREED = "freed"
_MODIFIED = "modified in place"  # still held, but backward would raise: exactly what a learner must see
_NOT_READ = "not read"  # saved by other hooks (checkpoint): reading would run them (recompute the forward)
_HIDDEN = "not readable"  # inside CopySlices: PyTorch exposes no accessor
_HELD = ("alive", _MODIFIED)


class NoGraphError(ValueError):
    """The tensor has no ``grad_fn``: there is no backward graph to show. The message says why."""


# ---------------------------------------------------------------------------------------------
# What the graph holds


@dataclass(frozen=True)
class SavedSlot:
    """One tensor a node saved for backward. ``nbytes`` is its storage's size (what it keeps alive);
    ``counted`` is False when an earlier slot already counted the same storage."""

    name: str
    state: str = "alive"  # or "freed", "modified in place", "not read", "not readable"
    shape: tuple = None
    dtype: str = None
    nbytes: int = None
    kind: Kind = None  # parameters / inputs / activations, as GraphMemory splits them
    counted: bool = False


@dataclass
class GraphNode:
    """A node of the backward graph: its op (``ExpBackward0``), or a leaf (``AccumulateGrad``)."""

    index: int
    op: str
    leaf: str = None  # for AccumulateGrad: the leaf's name (from params) and shape
    saved: list = field(default_factory=list)
    inputs: list = field(default_factory=list)  # indices of the nodes it passes gradients on to

    @property
    def nbytes(self):
        """Bytes this node keeps alive: its saved storages, each once."""
        return sum(slot.nbytes for slot in self.saved if slot.state in _HELD and slot.nbytes is not None)

    @property
    def state(self):
        if self.leaf is not None:
            return "leaf"
        if not self.saved:
            return "saves nothing"
        return "freed" if all(slot.state == _FREED for slot in self.saved) else "alive"


class GraphTable(ShowsAsText):
    """The nodes behind some outputs, what each saved, and totals. Built by :func:`graph_table`."""

    def __init__(self, nodes: list[GraphNode], outputs: list[tuple[str, int, tuple]], total_bytes: int,
                 by_kind: dict[str, int], truncated: bool = False):
        self.nodes = nodes
        self.outputs = outputs  # [(label, index of its grad_fn node, shape)]
        self.total_bytes = total_bytes  # alive saved storages, each counted once
        self.by_kind = by_kind
        self.truncated = truncated  # the walk stopped at max_nodes: the graph has more

    @property
    def node_count(self) -> int:
        return len(self.nodes)

    @property
    def leaf_count(self) -> int:
        return sum(node.leaf is not None for node in self.nodes)

    @property
    def freed_count(self) -> int:
        """Saved slots that backward has freed."""
        return sum(slot.state == _FREED for node in self.nodes for slot in node.saved)

    def op_counts(self) -> list[tuple[str, int]]:
        """How many nodes of each op, most frequent first."""
        return Counter(node.op for node in self.nodes).most_common()

    def top_nodes(self, n: int = 10) -> list[GraphNode]:
        """The ``n`` nodes that keep the most bytes alive."""
        return sorted((node for node in self.nodes if node.nbytes), key=lambda node: -node.nbytes)[:n]

    def caption(self) -> str:
        leaves = f"{self.leaf_count} leaf" if self.leaf_count == 1 else f"{self.leaf_count} leaves"
        more = "the first " if self.truncated else ""
        text = (f"{more}{self.node_count} nodes ({leaves}), {format_bytes(self.total_bytes)} saved "
                f"for backward (each storage once)")
        if self.truncated:
            text += "; the graph is larger (the walk stops at max_nodes)"
        if self.freed_count:
            text += f", {self.freed_count} saved tensors freed"
        for state in (_MODIFIED, _NOT_READ, _HIDDEN):
            n = sum(slot.state == state for node in self.nodes for slot in node.saved)
            if n:
                text += f", {n} saved tensor{'s' if n > 1 else ''} {state}"
        return text

    def rows(self) -> list[tuple]:
        """One row per saved tensor (or per node that saved none): (node, op, saved, shape, dtype, bytes, kind, state)."""
        rows = []
        for node in self.nodes:
            if node.leaf is not None:
                rows.append((node.index, node.op, node.leaf, "", "", "", "", "leaf"))
            elif not node.saved:
                rows.append((node.index, node.op, "", "", "", "", "", "saves nothing"))
            for slot in node.saved:
                shape = "" if slot.shape is None else "x".join(map(str, slot.shape)) or "scalar"
                size = "" if slot.nbytes is None else format_bytes(slot.nbytes) + ("" if slot.counted else " (counted above)")
                rows.append((node.index, node.op, slot.name, shape, slot.dtype or "", size, slot.kind or "", slot.state))
        return rows

    _HEADER = ("#", "op", "saved", "shape", "dtype", "bytes", "kind", "state")

    def summary(self, top: int = 10) -> str:
        """Per-op counts and the top nodes by bytes: the readable view of a big graph."""
        ops = ", ".join(f"{op} x{count}" for op, count in self.op_counts())
        lines = [self.caption(), f"ops: {ops}", f"top {top} nodes by saved bytes:"]
        lines += [f"  #{node.index} {node.op}: {format_bytes(node.nbytes)}" for node in self.top_nodes(top)]
        return "\n".join(lines)

    def _table(self):
        return Table(self._HEADER, self.rows(), caption=self.caption())

    def __str__(self):
        return str(self._table())

    def _repr_html_(self):
        return self._table().html()

    def __repr__(self):
        return f"<GraphTable: {self.caption()}>"


def _as_outputs(outputs):
    """A tensor, a sequence of tensors or a {label: tensor} dict -> [(label, tensor)]."""
    if isinstance(outputs, torch.Tensor):
        return [("output", outputs)]
    if isinstance(outputs, dict):
        pairs = list(outputs.items())
    elif isinstance(outputs, (list, tuple)):
        pairs = [(f"output {i}", t) for i, t in enumerate(outputs)]
    else:
        hint = " (.item() gives a Python number: pass the tensor itself)" if isinstance(outputs, (int, float)) else ""
        raise TypeError(f"expected a tensor, a list of tensors or a {{label: tensor}} dict, got a "
                        f"{type(outputs).__name__}{hint}, e.g. graph_table(loss)")
    if not pairs:
        raise ValueError("no tensors given: pass the output whose graph you want, e.g. graph_table(loss)")
    for label, tensor in pairs:
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{label} is a {type(tensor).__name__}, not a tensor: pass tensors, e.g. graph_table(loss).")
    return pairs


def _no_graph_message(label, tensor):
    """Why ``tensor`` has no grad_fn, and what to do about it."""
    where = f"The tensor you passed ({label}, shape {tuple(tensor.shape)})"
    if tensor.requires_grad:
        return (f"{where} is a leaf: you created it with requires_grad=True and nothing computed it, so no graph "
                "stands behind it yet. Draw a result computed from it instead, e.g. show_graph(loss).")
    if tensor.is_inference():
        return (f"{where} was computed under torch.inference_mode(), which records no graph. "
                "Compute it outside inference_mode to see its graph.")
    if not torch.is_grad_enabled():
        return (f"{where} has no graph because grad mode is off right now: you are inside torch.no_grad() "
                "(or set_grad_enabled(False)). Compute it outside that block to see its graph.")
    original = _tensor_with_graph_sharing_storage(tensor)
    if original is not None:
        return (f"{where} was probably detached (.detach() or .data): it shares its storage with a tensor whose "
                f"grad_fn is {type(original.grad_fn).__name__}, but detaching cut it off that graph. "
                "Draw the tensor before you detach it.")
    return (f"{where} has no grad_fn and does not require grad: it was probably computed under torch.no_grad() "
            "(or detached from a result that is gone, or none of its inputs required grad). Compute it with grad "
            "enabled from a tensor with requires_grad=True, and draw it before any .detach().")


def _tensor_with_graph_sharing_storage(tensor):
    """A live tensor with a grad_fn that shares ``tensor``'s storage (the one it was detached from), or None."""
    storages = internals.storages_of(tensor)
    if not storages:
        return None
    for obj in gc.get_objects():
        if (issubclass(type(obj), torch.Tensor) and obj.grad_fn is not None
                and storages[0] in internals.storages_of(obj)):
            return obj
    return None


_SAVED_NAMES = {}  # node type -> its "_saved_*" attribute names


def _saved_attributes(node):
    kind = type(node)
    if kind not in _SAVED_NAMES:
        if isinstance(node, torch.autograd.function.BackwardCFunction):  # a custom autograd.Function
            _SAVED_NAMES[kind] = ("saved_tensors",)
        else:
            _SAVED_NAMES[kind] = tuple(name for name in dir(node) if name.startswith("_saved_"))
    return _SAVED_NAMES[kind]


def _saved_tensors(node):
    """(name, state, tensor or None, kind or None) for each tensor the node saved; the kind is the one
    GraphMemory chose when the tensor was saved under that meter.

    state: "alive"; "freed" once backward freed it; "modified in place" (autograd would raise on
    backward: the tensor is read without its version check); "not read" when other saved-tensor hooks
    packed it (checkpoint: unpacking would recompute the forward and keep the result alive);
    "not readable" for the op a ``CopySlices`` node wraps. Reading a saved tensor otherwise unpacks
    it (through GraphMemory's hooks when it was saved under that meter).
    """
    if internals.is_copy_slices(node):
        yield "(the wrapped op's)", _HIDDEN, None, None
    for attribute in _saved_attributes(node):
        name = attribute.removeprefix("_saved_")
        try:
            value, packed = internals.read_saved_slot(node, attribute, allowed_unpack=GraphMemory._unpack)
        except internals.SlotNotRead:
            yield name, _NOT_READ, None, None
            continue
        except RuntimeError as error:
            if internals.is_freed_error(error):
                yield name, _FREED, None, None
            elif internals.is_inplace_modified_error(error):
                with reading_saved_for_display():  # GraphMemory's unpack skips its version check here
                    try:
                        data, _ = internals.read_saved_slot(node, attribute, allowed_unpack=GraphMemory._unpack)
                    except RuntimeError:  # saved without hooks: autograd checks; read around it
                        data = internals.saved_slot_data(node, attribute)
                yield name, _MODIFIED, data if isinstance(data, torch.Tensor) else None, None
            else:
                raise
            continue
        if isinstance(value, torch.Tensor):
            yield name, "alive", value, getattr(packed, "kind", None) if isinstance(packed, Saved) else None
        elif isinstance(value, (tuple, list)):  # e.g. IndexBackward0's indices
            for i, item in enumerate(value):
                if isinstance(item, torch.Tensor):
                    yield f"{name}[{i}]", "alive", item, None


def graph_table(outputs: Outputs, params: Optional[Mapping[str, torch.Tensor]] = None,
                max_nodes: int = MAX_WALK) -> GraphTable:
    """The backward graph behind ``outputs`` (a tensor, a list of them or a {label: tensor} dict) as a table.

    Each node lists the tensors it saved for backward: shape, dtype, the bytes of its storage, and
    whether it is still alive or was freed by ``backward()``. ``params`` (``dict(model.named_parameters())``)
    names the leaves. ``total_bytes`` counts each alive storage once and ``by_kind`` splits it as
    ``GraphMemory`` does (a saved ``result`` without ``grad_fn``, such as a dropout mask, is an activation).

    >>> x = torch.ones(1000, requires_grad=True)
    >>> print(graph_table(x.sin().sum()))        # doctest: +NORMALIZE_WHITESPACE
    #  op              saved    shape  dtype          bytes    kind    state
    0  SumBackward0                                                    saves nothing
    1  SinBackward0    self     1000   torch.float32  4.00 kB  inputs  alive
    2  AccumulateGrad  (1000,)                                         leaf
    3 nodes (1 leaf), 4.00 kB saved for backward (each storage once)

    Raises :class:`NoGraphError` for a tensor with no ``grad_fn`` (a leaf, a detached tensor, a
    result computed under ``no_grad``). The walk stops after ``max_nodes`` nodes (``.truncated``).

    Where ``total_bytes`` and ``GraphMemory.bytes`` differ, and why:

    * an in-place op on a view (``y[:5].exp_()``) records a ``CopySlices`` node around the op's own
      node, whose saved tensors PyTorch does not expose: listed as "not readable" and missing here;
      GraphMemory counts them.
    * a Python number autograd saves as a 0-dim tensor (``x * 2.0`` keeps an 8-byte float64) gets no
      saved-tensor hooks: counted here, never seen by GraphMemory.
    * slots packed by other saved-tensor hooks (``torch.utils.checkpoint``) are "not read": reading
      them would recompute the forward. GraphMemory does not see inside those hooks either.
    * kinds, for a graph recorded *without* GraphMemory (under it, the table reads the meter's kinds): both
      follow :meth:`Kind.of <autograd_memory.Kind.of>`, but where a saved tensor without ``grad_fn`` that is
      neither a parameter nor requires grad was made is unknown here: an input, unless autograd saved it as the
      node's ``result`` (max-pool indices, a dropout mask). GraphMemory knows more: such a tensor made inside its
      block is an activation however it is saved (CPU dropout's noise, saved as its multiply's input; data or a
      custom Function's saved output made inside the block).
    """
    pairs = _as_outputs(outputs)
    for label, tensor in pairs:
        if tensor.grad_fn is None:
            raise NoGraphError(_no_graph_message(label, tensor))
    order, truncated = _collect_nodes([tensor.grad_fn for _, tensor in pairs], max_nodes)
    index = {node: i for i, node in enumerate(order)}
    leaf_kinds = _leaf_kinds(order, params)
    names = {id(p): name for name, p in (params or {}).items()}
    storages = {}  # id(storage) -> storage: kept alive while we count, so ids stay unique
    nodes = [_graph_node(node, index, names, _saved_slots(node, leaf_kinds, storages)) for node in order]
    outputs_info = [(label, index[tensor.grad_fn], tuple(tensor.shape)) for label, tensor in pairs]
    return GraphTable(nodes, outputs_info, *_totals(nodes), truncated)


def _collect_nodes(roots, max_nodes):
    """The nodes behind ``roots`` in depth-first order from the first root, at most ``max_nodes`` of them, and
    whether the walk stopped there (the graph has more)."""
    seen, order = set(), []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        if len(order) == max_nodes:
            return order, True
        seen.add(node)
        order.append(node)
        stack.extend(next_node for next_node, _ in reversed(node.next_functions))
    return order, False


def _leaf_kinds(nodes, params):
    """id(storage) -> its :class:`Kind` for the leaves: ``params`` (parameters, frozen ones too), then each
    ``AccumulateGrad`` node's leaf. They decide a saved tensor's kind, as GraphMemory decides it from the tensor."""
    kinds = {id(s): Kind.PARAMETERS for p in (params or {}).values() for s in internals.storages_of(p)}
    for node in nodes:
        if hasattr(node, "variable"):  # AccumulateGrad: the leaf itself
            kind = Kind.of(node.variable, made_inside=False)
            for storage in internals.storages_of(node.variable):
                kinds.setdefault(id(storage), kind)
    return kinds


def _saved_slots(node, leaf_kinds, storages):
    """What ``node`` saved, as :class:`SavedSlot` s: each storage measured once per node (``x * x`` saves one twice)
    and classified, and ``counted`` by the first node to save it (``storages``: those seen so far, by id)."""
    slots, counted_here = [], set()
    for name, state, tensor, meter_kind in _saved_tensors(node):
        if tensor is None:
            slots.append(SavedSlot(name, state=state))
            continue
        for storage in internals.storages_of(tensor):
            key = id(storage)
            if key in counted_here:
                continue
            counted_here.add(key)
            # under GraphMemory the meter's kind; else a saved `result` without grad_fn (a dropout mask) is made inside
            kind = leaf_kinds.get(key) or meter_kind or Kind.of(tensor, made_inside=name.startswith("result"))
            first = key not in storages
            storages.setdefault(key, storage)
            slots.append(SavedSlot(name, state=state, shape=tuple(tensor.shape), dtype=str(tensor.dtype),
                                   nbytes=storage.nbytes(), kind=kind, counted=first))
    return slots


def _graph_node(node, index, names, saved):
    """The :class:`GraphNode` of ``node``: its op, the leaf's name (from ``params``) and shape, its saved slots."""
    graph_node = GraphNode(index=index[node], op=type(node).__name__, saved=saved,
                           inputs=[index[n] for n, _ in node.next_functions if n in index])
    if hasattr(node, "variable"):
        leaf = node.variable
        graph_node.leaf = f"{names.get(id(leaf), '')} {tuple(leaf.shape)}".strip()
    return graph_node


def _totals(nodes):
    """The bytes of the saved storages each counted once, and their split by kind."""
    counted = [slot for node in nodes for slot in node.saved if slot.counted]
    by_kind = dict.fromkeys(map(str, Kind), 0)
    for slot in counted:
        by_kind[slot.kind] += slot.nbytes
    return sum(slot.nbytes for slot in counted), by_kind


# ---------------------------------------------------------------------------------------------
# Pictures


def _colour(nbytes, largest):
    """Fill colour for a node keeping ``nbytes`` alive: one of four steps, each a quarter of the largest."""
    if not nbytes:
        return "white"
    step = min(len(_PALETTE) - 1, (nbytes * len(_PALETTE) - 1) // largest)
    return _PALETTE[step]


def _node_label(node, limit=4):
    lines = [node.op]
    if node.leaf is not None:
        lines.append(node.leaf)
    held = [slot for slot in node.saved if slot.state in _HELD]
    for slot in held[:limit]:
        shape = "x".join(map(str, slot.shape)) if slot.shape is not None else "?"
        size = format_bytes(slot.nbytes) if slot.nbytes is not None else "? bytes"
        mark = " MODIFIED IN PLACE: backward will raise" if slot.state == _MODIFIED else ""
        lines.append(f"{slot.name} [{shape or 'scalar'}] {size}{mark}")
    if len(held) > limit:
        lines.append(f"... {len(held) - limit} more: {format_bytes(node.nbytes)} in all")
    for state in (_FREED, _NOT_READ, _HIDDEN):
        names = [slot.name for slot in node.saved if slot.state == state]
        if names:
            lines.append(f"{state}: " + ", ".join(names))
    return "\n".join(lines)


def _caption(table, largest):
    """The caption and the colour scale under the graph: one row of chips, as wide as the caption."""
    steps = [("white", "nothing saved")]
    if largest:
        steps += [(colour, f"<= {format_bytes(largest * (i + 1) // len(_PALETTE))}") for i, colour in enumerate(_PALETTE)]
    steps += [("#e0e0e0", "freed by backward"), ("lightblue", "leaf")]
    chips = "".join(f'<td border="1" bgcolor="{colour}"><font color="{"white" if colour == _PALETTE[-1] else "black"}">'
                    f"{html.escape(text)}</font></td>" for colour, text in steps)
    return (f'<<table border="0" cellspacing="2" cellpadding="3"><tr><td colspan="{len(steps) + 1}">'
            f'{html.escape(table.caption())}</td></tr><tr><td>saved bytes per node:</td>{chips}</tr></table>>')


# graphviz's sizes, in points: the notebook's, and the large display set's (a projector), whose labels are MIN_PX
# high when the SVG is drawn at its size (96 px an inch), with tighter spacing, so that a slide's height goes to labels
_SIZES = {False: {"fontsize": "10", "ranksep": "0.5", "nodesep": "0.25"},
          True: {"fontsize": str(display_settings.points(display_settings.MIN_PX, dpi=96)), "ranksep": "0.25",
                 "nodesep": "0.15"}}


def _dot_source(table):
    """The DOT text of the graph: edges run the way the forward pass did, leaves on top, outputs below."""
    graphviz = require("graphviz", "show_graph")

    sizes = _SIZES[display_settings.is_large()]
    largest = max((node.nbytes for node in table.nodes), default=0)
    dot = graphviz.Digraph(
        graph_attr={"label": _caption(table, largest), "labelloc": "b", "fontname": "Helvetica", **sizes},
        node_attr={"shape": "box", "style": "filled", "fontname": "Helvetica", "fontsize": sizes["fontsize"]},
    )
    for node in table.nodes:
        attrs = {"fillcolor": _colour(node.nbytes, largest)}
        if node.state == "leaf":
            attrs["fillcolor"] = "lightblue"
        elif node.state == "freed":
            attrs.update(fillcolor="#e0e0e0", style="filled,dashed", fontcolor="#555555")
        if any(slot.state == _MODIFIED for slot in node.saved):
            attrs.update(color="#c1121f", penwidth="3")
        if attrs["fillcolor"] == _PALETTE[-1]:
            attrs["fontcolor"] = "white"
        dot.node(str(node.index), _node_label(node), **attrs)
        for source in node.inputs:
            dot.edge(str(source), str(node.index))
    for i, (label, node_index, shape) in enumerate(table.outputs):
        dot.node(f"out{i}", f"{label}\n{tuple(shape)}", fillcolor="darkolivegreen1")
        dot.edge(str(node_index), f"out{i}")
    return dot.source


class GraphView(ShowsAsText):
    """What :func:`show_graph` returns: the picture (``.svg``), its DOT ``.source`` and the ``.table``.

    In a notebook it displays the SVG; without graphviz's ``dot`` program, or for a graph over
    ``max_nodes``, it displays ``.hint`` and the table (or its summary) instead.
    """

    def __init__(self, table, source=None, svg=None, hint=""):
        self.table, self.source, self.svg, self.hint = table, source, svg, hint

    def _repr_svg_(self):
        return self.svg

    def _repr_html_(self):
        if self.svg is not None:
            return zoomable_html(self.svg)  # a click enlarges it where a slide draws it small
        if self.source is None:  # too big to draw
            body = f"<pre>{html.escape(self.table.summary())}</pre>"
        else:
            body = self.table._repr_html_()
        return f"<div><p><b>{html.escape(self.hint)}</b></p>{body}</div>"

    def __str__(self):
        body = self.table.summary() if self.source is None else str(self.table)
        return f"{self.hint}\n{body}" if self.hint else body


def show_graph(outputs: Outputs, params: Optional[Mapping[str, torch.Tensor]] = None,
               max_nodes: int = MAX_NODES) -> "GraphView":
    """Draw the backward graph behind ``outputs``: each node with its op and the bytes it saved.

    Nodes are coloured by the bytes they keep alive (the legend gives the scale), nodes whose saved
    tensors ``backward()`` freed are grey and dashed, leaves are named from ``params``
    (``dict(model.named_parameters())``), and the caption gives the node count and the total saved
    bytes, each storage counted once. ``outputs``: a tensor, a list, or a ``{label: tensor}`` dict,
    e.g. ``{"y": y, "dy/dx": dydx}`` to see a derivative's graph next to the forward graph. In the large
    display set (the course's lecture style) labels are ``MIN_PX`` high at the picture's size; where a slide
    draws it smaller, a click shows it at that size or larger (:mod:`~autograd_memory.views.zoom`).

    >>> view = show_graph(torch.ones(3, requires_grad=True).exp().sum())
    >>> view.svg[:4], view.table.total_bytes
    ('<svg', 12)

    Without graphviz's ``dot`` program the view holds the table, the DOT ``.source`` and a ``.hint``
    on installing graphviz. Graphs over ``max_nodes`` nodes are summarised instead of drawn.
    """
    table = graph_table(outputs, params, max_nodes=max(MAX_WALK, max_nodes + 1))
    if table.node_count > max_nodes:
        return GraphView(table, hint=f"{table.node_count} nodes is more than max_nodes={max_nodes}: a summary "
                                     "instead of a picture (pass a larger max_nodes to draw it anyway).")
    try:
        source = _dot_source(table)
    except ImportError as error:  # the `graphs` extra is not installed: the table, and how to get the picture
        return GraphView(table, hint=f"No picture: {error}.")
    if shutil.which("dot") is None:
        return GraphView(table, source, hint=f"No picture: graphviz's `dot` program is not on PATH ({INSTALL_HINT}).")
    import graphviz

    try:
        svg = graphviz.Source(source).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        return GraphView(table, source, hint=f"No picture: graphviz's `dot` program could not run ({INSTALL_HINT}).")
    return GraphView(table, source, svg[svg.index("<svg"):])  # drop the XML prolog: the SVG goes inline in HTML


# ---------------------------------------------------------------------------------------------
# One graph over time


class GraphLifecycle(ShowsAsText):
    """Snapshots of one graph at moments you choose. Made by :func:`lifecycle`.

    It holds the outputs by weak reference, so it never keeps a graph alive: after ``del loss`` a
    snapshot records that the output is gone.
    """

    def __init__(self, outputs, params=None, max_nodes=MAX_NODES):
        self._refs = [(label, weakref.ref(tensor)) for label, tensor in _as_outputs(outputs)]
        self._params, self._max_nodes = params, max_nodes
        self.snapshots = []  # [(label, GraphView or None)]

    def take(self, label):
        """Draw the graph as it is now, under ``label``; returns the :class:`GraphView` (None once the output is gone)."""
        outputs = {name: ref() for name, ref in self._refs}
        if any(tensor is None for tensor in outputs.values()):
            view = None
        else:
            view = show_graph(outputs, self._params, self._max_nodes)
        self.snapshots.append((label, view))
        return view

    def __getitem__(self, key):
        """A snapshot's view, by position or by label."""
        if isinstance(key, int):
            return self.snapshots[key][1]
        for label, view in self.snapshots:
            if label == key:
                return view
        raise KeyError(f"no snapshot labelled {key!r}; taken so far: {[label for label, _ in self.snapshots]}")

    @staticmethod
    def _panel(label, view):
        body = view._repr_html_() if view is not None else "<p>output deleted: nothing to draw from it</p>"
        return (f"<div style='flex:0 1 auto;border:1px solid #ccc;padding:4px'><h4>{html.escape(label)}</h4>"
                f"{body}</div>")  # the picture, the table or the summary carries the caption

    def _repr_html_(self):
        panels = "".join(self._panel(label, view) for label, view in self.snapshots)
        return (f"<div class='amlab-lifecycle' style='display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start'>"
                f"{panels}</div>")  # the class: a slideshow's stylesheet keeps the moments side by side

    def __str__(self):
        return "\n\n".join(f"== {label} ==\n{view if view is not None else 'output deleted'}" for label, view in self.snapshots)

    def slider(self):
        """Step through the snapshots with an ipywidgets slider (shows the last one first)."""
        import ipywidgets as widgets

        if not self.snapshots:
            raise ValueError("No snapshots yet: call .take('after forward') first.")
        labels = [label for label, _ in self.snapshots]
        step = widgets.IntSlider(value=len(labels) - 1, min=0, max=len(labels) - 1, description="moment")
        panel = widgets.HTML(self._panel(*self.snapshots[-1]))

        def show(change):
            panel.value = self._panel(*self.snapshots[change["new"]])

        step.observe(show, names="value")
        return widgets.VBox([step, panel])


def lifecycle(outputs: Outputs, params: Optional[Mapping[str, torch.Tensor]] = None,
              max_nodes: int = MAX_NODES) -> GraphLifecycle:
    """Follow the graph behind ``outputs`` through time: call ``.take(label)`` at each moment.

    >>> x = torch.ones(1000, requires_grad=True)
    >>> loss = x.exp().sum()
    >>> snaps = lifecycle(loss)
    >>> _ = snaps.take("after forward")
    >>> loss.backward(retain_graph=True)
    >>> _ = snaps.take("after backward(retain_graph=True)")
    >>> loss.backward()
    >>> _ = snaps.take("after a second backward()")
    >>> [view.table.total_bytes for _, view in snaps.snapshots]
    [4000, 4000, 0]

    Display ``snaps`` for the snapshots side by side, or ``snaps.slider()`` to step through them.
    """
    return GraphLifecycle(outputs, params, max_nodes)
