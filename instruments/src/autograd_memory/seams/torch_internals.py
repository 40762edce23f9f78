"""Every use of PyTorch internals in ``autograd_memory``, in one place: where a PyTorch upgrade will break.

Each function says what it relies on and which test guards it. When the ``torch`` pin moves, run those
tests first (``pytest tests/test_torch_internals.py tests/test_meters.py tests/test_meter_edge_cases.py
tests/test_graph_views.py tests/test_graphs.py``).

>>> import torch
>>> [s.nbytes() for s in storages_of(torch.zeros(10))]
[40]
"""
import gc
import os
import sys

import torch
import torch.utils._python_dispatch as _python_dispatch
from torch._C._dynamo.eval_frame import get_eval_frame_callback as eval_frame_callback
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes, _get_current_dispatch_mode

__all__ = [
    "TorchDispatchMode", "CompileAwareMode", "is_copy_slices", "current_dispatch_mode", "dispatch_disabled", "storages_of",
    "is_foreign_memory", "uncounted_kind", "op_kind", "VIEW", "NEW", "LIFTS", "WRITES", "GROWS", "OTHER",
    "top_saved_tensor_hooks", "in_functorch_transform", "is_freed_error", "backward_hooks_of",
    "is_inplace_modified_error", "is_saved_hooks_refused_error",
    "SAVED_TENSOR_EXPOSES_HOOKS", "SlotNotRead", "read_saved_slot", "saved_slot_data", "DYNAMO_ASKS_MODES",
    "saved_tensors_of", "accumulated_leaf", "sequence_number", "made_at", "hook_number", "in_backward", "graph_task_id",
    "register_optimizer_step_hooks",
    "eval_frame_callback", "DISPATCH_WRAPPER_FILES",
]

# Relies on: torch.utils._python_dispatch (private) -- the mode stack's top, used to check that meters
# exit in the reverse order they were entered. Guarded by
# test_meters.py::test_meters_exited_out_of_order_raise_instead_of_counting_wrong.
current_dispatch_mode = _get_current_dispatch_mode

# Relies on: torch._C._DisableTorchDispatch, a context manager that hides Python dispatch modes and
# subclasses' __torch_dispatch__ for plain tensors. Guarded by graphs.py's _alias doctest and by
# test_meter_edge_cases.py::test_sparse_tensors_count_their_component_storages.
dispatch_disabled = torch._C._DisableTorchDispatch

# Relies on: torch wrapping a dispatch mode's __torch_dispatch__ in torch._disable_dynamo (torch/_compile.py), which
# calls dynamo's disable wrapper (torch/_dynamo/): between the code that ran an op and the mode's own frames, a Python
# stack shows these files' frames. Guarded by test_memory_snapshot.py::test_an_allocations_first_frame_is_the_line_that_made_it.
_TORCH_DIR = os.path.dirname(torch.__file__)
DISPATCH_WRAPPER_FILES = (os.path.join(_TORCH_DIR, "_compile.py"), os.path.join(_TORCH_DIR, "_dynamo") + os.sep)

_aten = torch.ops.aten
# Relies on: aten op names. lift_fresh wraps data built outside the dispatcher (torch.tensor, as_tensor,
# from_numpy); _unsafe_view's schema says "fresh" but it hands back its input's storage.
_LIFT_FRESH_OPS = frozenset({_aten.lift_fresh.default})
_SHARES_INPUT_STORAGE = frozenset({_aten._unsafe_view.default})
VIEW, NEW, LIFTS, WRITES, GROWS, OTHER = range(6)  # what an op does to memory: op_kind()
_op_kinds = {}  # id(op) -> (its kind, the op, kept alive so that its id stays its own), filled on first sight


def op_kind(func):
    """What an op does to memory, read once per op from its schema (``alias_info`` of its returns):

    * ``VIEW``: every output is a view of an input and nothing is written (``view``, ``t``, ``expand``): nothing new;
    * ``NEW``: no output aliases an input (``exp``, ``mm``): every output storage is new;
    * ``LIFTS``: ``lift_fresh``, which wraps data built outside the dispatcher (``torch.tensor``, ``as_tensor``,
      ``from_numpy``): new, unless the memory is NumPy's (:func:`is_foreign_memory`);
    * ``WRITES``: every output is an input it wrote in place (``add_``, ``copy_``): nothing new, and no growth;
    * ``GROWS``: the same, but the op may resize what it writes (``out=`` variants, ``resize_``): count the growth;
    * ``OTHER``: anything else (``set_``, which swaps in the storage it is given; ``_unsafe_view``, whose schema
      says "fresh" but which hands back its input's storage): compare the outputs' storages with the inputs'.

    Relies on: ``OpOverload._schema.returns[i].alias_info`` (``is_write`` True for in-place ops and ``out=``
    variants) and ``_schema.arguments[i].kwarg_only`` (an ``out=`` argument is keyword-only). The cache is keyed
    by ``id(op)``: an ``OpOverload``'s ``__hash__`` is Python code, too slow to run at every op. Guarded by:
    test_meters.py (views and in-place ops add nothing; out= and resize_ growth is counted) and this doctest.

    >>> aten = torch.ops.aten
    >>> [op_kind(op) == kind for op, kind in [(aten.view.default, VIEW), (aten.exp.default, NEW),
    ...  (aten.lift_fresh.default, LIFTS), (aten.add_.Tensor, WRITES), (aten.exp.out, GROWS),
    ...  (aten.resize_.default, GROWS), (aten.set_.source_Storage, OTHER)]]
    [True, True, True, True, True, True, True]
    """
    known = _op_kinds.get(id(func))
    if known is None:
        known = _op_kinds[id(func)] = (_classify_op(func), func)
    return known[0]


def _classify_op(func):
    schema = getattr(func, "_schema", None)
    returns = schema.returns if schema is not None else ()
    if func in _LIFT_FRESH_OPS:  # never compared with the inputs: its input was never counted
        return LIFTS
    if not returns or func in _SHARES_INPUT_STORAGE or schema.name == "aten::set_":
        return OTHER
    aliases = [ret.alias_info for ret in returns]
    if all(alias is None for alias in aliases):
        return NEW
    if all(alias is not None and not alias.is_write for alias in aliases):
        return VIEW
    if all(alias is not None and alias.is_write for alias in aliases):
        grows = "resize" in schema.name or any(
            arg.kwarg_only and arg.alias_info is not None and arg.alias_info.is_write for arg in schema.arguments)
        return GROWS if grows else WRITES
    return OTHER


def in_backward():
    """True while the autograd engine runs a backward pass on this thread (``backward()``, ``autograd.grad``).

    Relies on: ``torch._C._current_graph_task_id()`` returning -1 outside a graph task (``graph_task_id``, for
    callers that ask at every op). Guarded by:
    test_timeline.py::test_the_phases_come_in_order_and_saved_bytes_peak_before_backward.

    >>> in_backward()
    False
    """
    return graph_task_id() != -1


graph_task_id = torch._C._current_graph_task_id


def register_optimizer_step_hooks(before, after):
    """Call ``before()``/``after()`` around every ``optimizer.step()`` of any optimizer; returns the two
    handles (``.remove()`` them).

    Relies on: ``torch.optim.optimizer.register_optimizer_step_pre_hook`` and ``..._post_hook`` (global
    hooks, called with ``(optimizer, args, kwargs)``; a pre-hook may return new ``(args, kwargs)``). Guarded by:
    test_timeline.py::test_the_phases_come_in_order_and_saved_bytes_peak_before_backward and
    ::test_an_lbfgs_closure_runs_forward_and_backward_not_optimizer.
    """
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    first = register_optimizer_step_pre_hook(before)
    try:
        return first, register_optimizer_step_post_hook(after)
    except BaseException:
        first.remove()
        raise


_SPARSE_PARTS = {
    torch.sparse_coo: ("_indices", "_values"),
    torch.sparse_csr: ("crow_indices", "col_indices", "values"),
    torch.sparse_bsr: ("crow_indices", "col_indices", "values"),
    torch.sparse_csc: ("ccol_indices", "row_indices", "values"),
    torch.sparse_bsc: ("ccol_indices", "row_indices", "values"),
}


_DENSE_TYPES = (torch.Tensor, torch.nn.Parameter)  # no __torch_dispatch__ of their own


def storages_of(tensor):
    """The untyped storages that hold ``tensor``'s data: one for a dense tensor, the component
    storages of a sparse tensor (COO indices + values; CSR crow/col/values ...), the inner tensors'
    storages of a wrapper subclass (``torch.nested`` jagged tensors, DTensor-like wrappers), none for
    a meta tensor, nor for a wrapper subclass that does not flatten (its storage is a stand-in; see
    :func:`uncounted_kind`).

    Relies on: ``untyped_storage()`` raising for sparse tensors, the sparse component accessors, and
    the ``__tensor_flatten__`` protocol of traceable wrapper subclasses (``torch.utils._python_dispatch``).
    Guarded by: test_meter_edge_cases.py::test_sparse_tensors_count_their_component_storages and
    ::test_nested_jagged_tensors_count_their_inner_tensors.

    >>> i, v = torch.tensor([[0, 1], [1, 0]]), torch.tensor([3.0, 4.0])
    >>> [s.nbytes() for s in storages_of(torch.sparse_coo_tensor(i, v, (2, 2)))]
    [32, 8]
    """
    if type(tensor) in _DENSE_TYPES and tensor.layout is torch.strided and not tensor.is_meta:
        return [tensor.untyped_storage()]  # the usual cases (activations, a model's parameters), first
    parts = _SPARSE_PARTS.get(tensor.layout)
    if parts is not None:
        with dispatch_disabled():  # reading the parts is no new memory: no meter needs to see it
            return [s for name in parts for s in storages_of(getattr(tensor, name)())]
    flatten = getattr(type(tensor), "__tensor_flatten__", None)
    if flatten is not None:
        names, _context = tensor.__tensor_flatten__()
        return [s for name in names for s in storages_of(getattr(tensor, name))]
    try:
        storage = tensor.untyped_storage()
        if type(tensor) not in _DENSE_TYPES and storage.nbytes():
            storage.data_ptr()  # a wrapper subclass's storage is a stand-in with no memory: it raises
    except (RuntimeError, NotImplementedError):
        return []
    return [] if storage.device.type == "meta" else [storage]


def uncounted_kind(tensor):
    """What kind of tensor ``tensor`` is when :func:`storages_of` cannot give every byte it holds, else "" (a dense,
    sparse or meta tensor, a wrapper subclass that flattens into such tensors): a tensor subclass with a
    ``__torch_dispatch__`` of its own and no ``__tensor_flatten__`` (what it holds is its own: its name), a nested
    tensor of the strided layout (``"nested"``: its sizes, strides and offsets are C++ tensors no accessor gives),
    and a layout with no storage to read (``"mkldnn"``).

    Relies on: ``torch._C._disabled_torch_dispatch_impl`` being ``torch.Tensor``'s own ``__torch_dispatch__``, the
    ``__tensor_flatten__`` protocol, ``Tensor.is_nested``, and ``untyped_storage()`` raising for a layout without
    one. Guarded by: test_meter_edge_cases.py::test_a_tensor_the_meter_cannot_count_exactly_is_counted_as_uncounted_while_alive.

    >>> uncounted_kind(torch.ones(2)), uncounted_kind(torch.ones(2).to_sparse()), uncounted_kind(torch.ones(2, device="meta"))
    ('', '', '')
    """
    kind = type(tensor)
    if kind not in _DENSE_TYPES:
        flatten = getattr(kind, "__tensor_flatten__", None)
        dispatch = getattr(kind.__torch_dispatch__, "__func__", kind.__torch_dispatch__)
        if flatten is not None:
            names, _context = tensor.__tensor_flatten__()
            return next((found for found in (uncounted_kind(getattr(tensor, name)) for name in names) if found), "")
        if dispatch is not torch._C._disabled_torch_dispatch_impl:
            return kind.__name__
    if tensor.is_nested:
        return "nested"
    if tensor.layout is torch.strided or tensor.layout in _SPARSE_PARTS or tensor.is_meta:
        return ""
    try:
        tensor.untyped_storage()
    except (RuntimeError, NotImplementedError):
        return str(tensor.layout).removeprefix("torch.").strip("_")
    return ""


def backward_hooks_of(tensor):
    """The hooks ``tensor.register_hook`` put on ``tensor``: a dict, handle id -> hook, or None before the first.

    Relies on: ``Tensor._backward_hooks``, the dict the tensor keeps them in (its keys the ids of their
    ``RemovableHandle`` s). Guarded by:
    test_leak_cases.py::test_hooks_registered_on_a_parameter_every_step_are_counted_and_registering_once_ends_it.

    >>> w = torch.ones(2, requires_grad=True)
    >>> backward_hooks_of(w) is None, len(backward_hooks_of(w) or {}) + (w.register_hook(print) is not None)
    (True, 1)
    """
    return getattr(tensor, "_backward_hooks", None)


def is_foreign_memory(storage):
    """True when PyTorch did not allocate the storage's memory (NumPy's, a buffer's, DLPack's).

    Relies on: such storages being created non-resizable (``torch.from_numpy``/``as_tensor``/
    ``frombuffer`` wrap memory PyTorch cannot grow), while PyTorch's own allocations are resizable.
    Guarded by: test_meter_edge_cases.py::test_memory_shared_with_numpy_is_not_new.

    >>> import numpy
    >>> is_foreign_memory(torch.from_numpy(numpy.zeros(3)).untyped_storage()), is_foreign_memory(torch.zeros(3).untyped_storage())
    (True, False)
    """
    return not storage.resizable()


def top_saved_tensor_hooks():
    """The innermost ``(pack, unpack)`` saved-tensor hooks installed, or None.

    Relies on: ``torch._C._autograd._top_saved_tensors_default_hooks``. Guarded by:
    test_meters.py::test_meters_exited_out_of_order_raise_instead_of_counting_wrong and the nesting tests.
    """
    return torch._C._autograd._top_saved_tensors_default_hooks(False)


def in_functorch_transform():
    """True inside a ``torch.func`` transform (vmap, grad, jacrev ...), which refuses saved-tensor hooks.

    Relies on: ``torch._C._functorch.maybe_current_level()`` (None outside any transform).
    Guarded by: test_meter_edge_cases.py::test_graph_memory_inside_a_transform_raises_unsupported.

    >>> in_functorch_transform()
    False
    """
    return torch._C._functorch.maybe_current_level() is not None


# Error-text matching: autograd reports these conditions only as RuntimeError messages.

def is_freed_error(error):
    """Reading ``node._saved_x`` after backward freed it. Guarded by: test_graphs.py (freed slots)."""
    return "freed" in str(error)


def is_inplace_modified_error(error):
    """Unpacking a saved tensor that was modified in place since it was saved.
    Guarded by: test_graph_views.py::test_graph_table_marks_a_saved_tensor_modified_in_place."""
    return "modified by an inplace operation" in str(error)


def is_saved_hooks_refused_error(error):
    """A ``torch.func`` transform refusing saved-tensor hooks.
    Guarded by: test_meters.py::test_torch_func_is_refused_with_a_pointer_to_live_tensors."""
    return "saved tensor hooks" in str(error)


def _raw_name(attribute):
    """``_saved_self`` -> ``_raw_saved_self``; a custom Function's ``saved_tensors`` -> ``_raw_saved_tensors``."""
    return "_raw" + attribute if attribute.startswith("_saved_") else "_raw_" + attribute


# Relies on: ``SavedTensor.data`` and ``SavedTensor.unpack_hook`` (pytorch#164358: torch >= 2.10). Older torches
# expose only ``register_hooks``: a slot's hooks cannot be read there, so read_saved_slot takes the route below.
# Guarded by: test_torch_internals.py::test_the_route_for_saved_slots_matches_what_this_torch_exposes.
SAVED_TENSOR_EXPOSES_HOOKS = hasattr(torch._C._autograd.SavedTensor, "unpack_hook")


class SlotNotRead(Exception):
    """Reading this saved slot would run an unpack hook that is not ours (``torch.utils.checkpoint``'s
    recomputes the forward): it was not read."""


def read_saved_slot(node, attribute, allowed_unpack=None):
    """``(value, packed)``: ``node.<attribute>`` read without running any unpack hook but ``allowed_unpack``,
    and the object that slot's pack hook returned (or None).

    Raises :class:`SlotNotRead` where another hook packed the slot, and autograd's RuntimeError where it
    raises one (freed by backward, modified in place).

    Relies on, torch >= 2.10: ``_raw_saved_<name>`` (``_raw_saved_tensors`` on custom Functions) being
    ``SavedTensor`` objects with ``unpack_hook`` and ``data``, read before anything is unpacked.
    Older torches: the slot's hooks cannot be read, so the read runs under a ``sys.settrace`` function that
    raises SlotNotRead at the first line of any Python function autograd calls during it (an unpack hook)
    other than ``allowed_unpack``, whose argument (the packed object) it keeps. CPython propagates an
    exception raised by the trace function from the traced frame, so the hook's body never runs; the
    previous trace function is restored afterwards, and the garbage collector and the Python dispatch
    modes (``_disable_current_modes``: a meter's ``__torch_dispatch__`` would see unpack's detach) are
    paused so that no other Python code runs under the trace. Guarded by:
    test_graph_views.py::test_graph_table_does_not_unpack_checkpointed_slots and
    test_torch_internals.py::test_reading_a_slot_never_runs_a_foreign_unpack_hook.

    >>> x = torch.ones(3, requires_grad=True)
    >>> value, packed = read_saved_slot(x.sin().grad_fn, "_saved_self")
    >>> value.shape, packed is None
    (torch.Size([3]), True)
    """
    if SAVED_TENSOR_EXPOSES_HOOKS:
        try:
            raw = getattr(node, _raw_name(attribute), None)
        except RuntimeError:  # freed by backward: let the read below raise autograd's error
            raw = None
        items = raw if isinstance(raw, (tuple, list)) else [] if raw is None else [raw]
        packed = []
        for item in items:
            try:
                hook = item.unpack_hook
            except RuntimeError:  # a freed slot
                continue
            if hook is not None and hook is not allowed_unpack:
                raise SlotNotRead(attribute)
            if hook is not None:
                packed.append(item.data)
        return getattr(node, attribute), packed[0] if len(packed) == 1 else None
    allowed = getattr(allowed_unpack, "__code__", None)
    packed = []

    def refuse_other_hooks(frame, event, arg):
        if event == "call":
            if frame.f_code is not allowed:
                raise SlotNotRead(f"{attribute}: {frame.f_code.co_name}")
            packed.append(frame.f_locals.get(frame.f_code.co_varnames[0]))
        return None

    previous, collecting = sys.gettrace(), gc.isenabled()
    gc.disable()
    with _disable_current_modes():  # unpacking detaches: no meter's __torch_dispatch__ may run under the trace
        sys.settrace(refuse_other_hooks)
        try:
            value = getattr(node, attribute)
        finally:
            sys.settrace(previous)
            if collecting:
                gc.enable()
    return value, packed[0] if len(packed) == 1 else None


def saved_slot_data(node, attribute):
    """The tensor a saved slot saved without hooks holds, read without autograd's version check (a slot
    modified in place), or None where it cannot be read.

    Relies on: ``SavedTensor.data`` (torch >= 2.10); older torches have no way around the version check:
    None there, and graph_table shows such a slot without its bytes. Guarded by:
    test_graph_views.py::test_graph_table_marks_a_saved_tensor_modified_in_place.
    """
    if not SAVED_TENSOR_EXPOSES_HOOKS:
        return None
    try:
        raw = getattr(node, _raw_name(attribute), None)
        return raw.data if raw is not None and not isinstance(raw, (tuple, list)) else None
    except RuntimeError:
        return None


# Relies on (present in 2.13, absent in 2.8): Dynamo asking each mode on the dispatch stack ``ignore_compile_internals()`` per
# frame before it skips the frame under a Python dispatch mode (``torch.utils._python_dispatch.
# any_torch_dispatch_mode_on_stack``). Older torches skip such frames without asking: there the Dynamo frame
# callback (``torch._C._dynamo.eval_frame.get_eval_frame_callback``), set while a compiled function runs,
# tells the mode at its next op. Guarded by:
# test_meter_edge_cases.py::test_torch_compile_under_live_tensors_warns_that_it_runs_eagerly.
DYNAMO_ASKS_MODES = hasattr(_python_dispatch, "any_torch_dispatch_mode_on_stack")


class CompileAwareMode(TorchDispatchMode):
    """A dispatch mode told when ``torch.compile`` runs a function eagerly because of it.

    Relies on: Dynamo asking the mode ``ignore_compile_internals()`` (see ``DYNAMO_ASKS_MODES``), and
    ``TorchDispatchMode.__enter__`` asking it once on entry (hence ``installed``); on older torches, on the
    subclass calling :meth:`notice_compile` from ``__torch_dispatch__``. Guarded by:
    test_meter_edge_cases.py::test_torch_compile_under_live_tensors_warns_that_it_runs_eagerly.
    """

    installed = False
    # True where the mode must look for itself at each op (older torches): the subclass calls notice_compile()
    notices_compile_per_op = not DYNAMO_ASKS_MODES

    def ignore_compile_internals(self):
        if self.installed:
            self.on_compile_skipped()
        return False

    def notice_compile(self):
        """Call from ``__torch_dispatch__`` where ``notices_compile_per_op``: tells :meth:`on_compile_skipped`
        when the op runs inside a compiled function (one Dynamo runs eagerly under this mode)."""
        if self.installed and eval_frame_callback() not in (None, False):
            self.on_compile_skipped()

    def on_compile_skipped(self):
        """Override: called each time Dynamo skips a compiled function because this mode is active."""


def is_copy_slices(node):
    """True for the node an in-place op on a view records around the op's own node (its saved tensors
    have no accessor). Relies on: the node class name ``CopySlices``. Guarded by:
    test_graph_views.py::test_where_graph_table_and_graph_memory_differ_is_exactly_what_the_docs_say.
    """
    return type(node).__name__ == "CopySlices"


_saved_names = {}  # node type -> the names of its raw saved slots


def accumulated_leaf(node):
    """The leaf tensor an ``AccumulateGrad`` node adds gradients into, or None for any other node: a kept graph
    keeps its leaves alive (``x = torch.rand(..., requires_grad=True)`` made every step of a PINN).

    Relies on: ``AccumulateGrad.variable``, the attribute torch's C++ node exposes to Python. Guarded by
    test_holders.py::test_a_leaf_that_only_a_kept_graph_keeps_is_named_through_that_graph.

    >>> x = torch.ones(2, requires_grad=True)
    >>> accumulated_leaf((x * 2).grad_fn.next_functions[0][0]) is x
    True
    """
    return getattr(node, "variable", None) if type(node).__name__ == "AccumulateGrad" else None


_UNNUMBERED = 2 ** 64 - 1  # what an AccumulateGrad node reads: it is made once per leaf, outside any step's order


def sequence_number():
    """The number the next autograd node made on this thread will get (nodes made later get larger ones):
    find_leaks reads it between steps to tell which steps made the graph it finds.

    Relies on: ``torch.autograd._get_sequence_nr()`` (the calling thread's counter) and ``Node._sequence_nr()``
    (read by :func:`made_at`). A step's forward nodes, and on the CPU those backward makes (``create_graph=True``),
    are numbered by the thread that runs the step; on CUDA the engine's device threads number what backward makes
    from counters of their own (find_leaks reads a graph's nodes by these numbers only when enough of them fall within
    the steps). Guarded by
    test_torch_internals.py::test_nodes_and_hooks_made_after_a_number_is_read_read_larger_and_accumulators_none.

    >>> mark = sequence_number()
    >>> x = torch.ones(2, requires_grad=True)
    >>> made_at((x * 2).grad_fn) >= mark, made_at((x * 2).grad_fn.next_functions[0][0])
    (True, None)
    """
    return torch.autograd._get_sequence_nr()


def made_at(node):
    """The sequence number ``node`` was made with (see :func:`sequence_number`); None for an ``AccumulateGrad``."""
    number = node._sequence_nr()
    return None if number == _UNNUMBERED else number


def hook_number():
    """The id the next hook handle will get: a module's hook dicts are keyed by their handles' ids, so a hook
    registered later has a larger key. Relies on: ``torch.utils.hooks.RemovableHandle.next_id``, the class counter
    it takes ids from. Guarded by the test named in :func:`sequence_number`.

    >>> model, mark = torch.nn.Linear(1, 1), hook_number()
    >>> _ = model.register_forward_hook(print)
    >>> [key >= mark for key in model._forward_hooks]
    [True]
    """
    return torch.utils.hooks.RemovableHandle.next_id


def saved_tensors_of(node):
    """The tensors an autograd node keeps for backward, read without unpacking them (no hooks run),
    and the tensors a custom ``autograd.Function`` kept on ``ctx`` as attributes (``ctx.x = x``).

    Relies on: nodes exposing ``_raw_saved_<name>`` (``_raw_saved_tensors`` on custom Functions) as
    ``SavedTensor`` objects whose ``data`` is the saved tensor (torch >= 2.10; older torches: the slot
    ``_saved_<name>`` / ``saved_tensors`` unpacked by :func:`read_saved_slot`, which refuses any unpack hook,
    so a checkpointed slot is left out rather than recomputed), and a custom Function's node being its
    ``ctx`` (a Python object with a ``__dict__``). Guarded by:
    test_holders.py::test_a_tensor_saved_by_a_graph_is_held_by_the_variable_that_keeps_the_graph and
    ::test_a_custom_function_ctx_attribute_is_found.

    >>> x = torch.ones(3, requires_grad=True)
    >>> [t.shape for t in saved_tensors_of((x * x).grad_fn)]
    [torch.Size([3]), torch.Size([3])]
    """
    names = _saved_names.get(type(node))
    if names is None:
        names = _saved_names[type(node)] = [name for name in dir(node) if name.startswith("_raw_saved_")]
    tensors = []
    for name in names:
        try:
            raw = getattr(node, name) if SAVED_TENSOR_EXPOSES_HOOKS else _unpacked(node, name)
        except (RuntimeError, SlotNotRead):  # freed by backward; modified in place; packed by a hook not ours
            continue
        for item in raw if isinstance(raw, (tuple, list)) else (raw,):
            try:
                data = item if isinstance(item, torch.Tensor) else getattr(item, "data", None)
            except RuntimeError:
                continue
            if isinstance(data, torch.Tensor):
                tensors.append(data)
    context = getattr(node, "__dict__", None)
    if context:
        tensors += [value for value in context.values() if isinstance(value, torch.Tensor)]
    return tensors


def _unpacked(node, raw_name):
    """Older torches: the slot behind ``_raw_saved_<name>`` unpacked, refusing any unpack hook (read_saved_slot)."""
    attribute = "saved_tensors" if raw_name == "_raw_saved_tensors" and hasattr(node, "saved_tensors") else raw_name[4:]
    return read_saved_slot(node, attribute)[0]
