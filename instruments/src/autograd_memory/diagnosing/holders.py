"""What keeps a tensor or a graph alive: a bounded search from the names a training step can reach
(the caller's variables, the step's globals and closure, a bound method's ``self``) through objects'
attributes, containers, closures, optimizer state and autograd graphs, giving each tensor storage and
each graph node the first path that reaches it, as text a learner can paste: ``trainer.losses[-1]``.

>>> import torch
>>> from dataclasses import dataclass, field
>>> @dataclass
... class State:
...     history: list = field(default_factory=list)
>>> state = State()
>>> w = torch.ones(3, requires_grad=True)
>>> state.history.append((w * 2).sum())
>>> found = search([Root("state", state)])
>>> found.holders["state.history"].path, found.holders["state.history"].nodes
('state.history[-1]', 3)
>>> found.storages[id(state.history[0].untyped_storage())]
'state.history[-1]'

The search visits at most ``max_objects`` objects and ``max_nodes`` graph nodes; ``exhausted`` says
when it stopped there. It keeps no reference to what it visited once it returns (only ids and text).
"""
import collections
import functools
import gc
import os
import re
import site
import sys
import types
import weakref
from dataclasses import dataclass, field

import torch

from ..seams import torch_internals as internals
from . import LIBRARY_DIRS
from .steps import step_function

__all__ = ["Root", "Holder", "Found", "search", "roots_of", "frame_locals", "MAX_OBJECTS"]

MAX_OBJECTS = 50_000
# Objects of these libraries hold no training state the learner wrote: not searched.
_SKIPPED_PACKAGES = ("IPython", "ipykernel", "jupyter_client", "zmq", "tornado", "asyncio", "threading", "logging",
                     "_pytest", "pytest", "pluggy", "matplotlib", "numpy", "pandas", "traitlets",
                     "psutil", "concurrent", "multiprocessing", "socket", "ssl", "io", "_io", "selectors",
                     "subprocess", "weakref", "_weakrefset", "inspect", "ast", "typing", "enum", "re", "sre")
_SKIPPED_NAMES = {"In", "Out", "exit", "quit", "get_ipython"}
_LIBRARY_PACKAGES = {"torch", "builtins", "abc", "typing", *_SKIPPED_PACKAGES}  # whose classes keep no learner's data


@dataclass
class Root:
    """A name the learner knows and the object it names; ``note`` says where the name lives."""

    name: str
    value: object
    note: str = ""


@dataclass
class Holder:
    """What one attribute, variable or container (``key``, e.g. ``trainer.losses``) keeps: the graph
    nodes first reached through it, and the path of the newest tensor in it (``trainer.losses[-1]``)."""

    key: str
    path: str
    note: str = ""
    nodes: int = 0
    storage: int = 0      # id of the storage of the tensor at ``path`` (0: none)
    through_grad: bool = False  # reached through a .grad
    graph: bool = False   # its tensor at ``path`` has a graph of its own (a grad_fn): it reaches the nodes it counts
    numel: int = 0        # the most elements of a tensor it keeps: 1 for losses or metrics (they can be kept as numbers)
    made: dict = field(default_factory=dict)  # where in it a graph sits (:func:`_graph_place`) -> of the nodes there,
    # how many were made before the search's first mark, between its ``marks``, and after the second (AccumulateGrad
    # nodes have no number)


@dataclass
class Found:
    """What :func:`search` found: storage id -> path, holder key -> :class:`Holder`."""

    storages: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)  # storage id -> its bytes, for the storages of tensors it reached
    holders: dict = field(default_factory=dict)
    holder_of_storage: dict = field(default_factory=dict)  # storage id -> holder key
    optimizer_states: set = field(default_factory=set)  # ``optimizer.state`` of a library's optimizers (not the learner's)
    hooks: dict = field(default_factory=dict)  # path of a module's hook dict (``model[0]._forward_hooks``) -> (its size,
    # the code and first line of its newest hook, its keys: the ids of their handles, in the order they were registered)
    caches: dict = field(default_factory=dict)  # path of a ``functools`` cache (``Model.features``) -> its entries
    windows: dict = field(default_factory=dict)  # path of a ``deque(maxlen=N)`` (``state.y_history``) -> N
    on_tensors: dict = field(default_factory=dict)  # path of an attribute set on a tensor (``net.weight.fast``) -> the tensor's
    no_grad_yet: list = field(default_factory=list)  # paths of parameters (an optimizer's too) with no .grad yet
    visited: int = 0
    exhausted: bool = False


def roots_of(step, namespaces=()):
    """The names ``step`` can reach: ``namespaces`` (the caller's, first), a bound method's ``self``,
    the step's closure cells (enclosing functions' variables), a ``functools.partial``'s arguments,
    a callable object itself, and the step's module globals."""
    roots = []
    for namespace in namespaces:
        roots += [Root(name, value) for name, value in list(namespace.items())
                  if not name.startswith("_") and name not in _SKIPPED_NAMES]
    seen = set()
    while True:
        if isinstance(step, functools.partial):
            roots += [Root(f"argument {i} of the partial", value) for i, value in enumerate(step.args)]
            roots += [Root(name, value, "a keyword of the partial") for name, value in step.keywords.items()]
            step = step.func
        elif isinstance(step, types.MethodType):
            owner = step.__self__
            roots.append(Root("self", owner, f"self is the {type(owner).__name__} whose {step.__name__} is the step"))
            step = step.__func__
        elif not isinstance(step, types.FunctionType) and id(step) not in seen:
            seen.add(id(step))
            roots.append(Root("step", step, f"the step is a {type(step).__name__}"))
            step = getattr(type(step), "__call__", None)
            step = step.__get__(roots[-1].value) if step is not None else None
        else:
            break
    if isinstance(step, types.FunctionType):
        enclosing = step.__qualname__.rpartition(".<locals>.")[0]
        where = f"a variable of {enclosing.rpartition('.')[2]}()" if enclosing else "a closure variable"
        for name, cell in zip(step.__code__.co_freevars, step.__closure__ or ()):
            try:
                roots.append(Root(name, cell.cell_contents, where))
            except ValueError:  # an empty cell
                pass
        module = step.__globals__.get("__name__", "")
        roots += [Root(name, value, f"a global of module {module}") for name, value in list(step.__globals__.items())
                  if not name.startswith("_") and name not in _SKIPPED_NAMES]
    return roots


def frame_locals(frame):
    """A copy of a frame's local variables (the caller's, a paused generator's). Before Python 3.13, ``f_locals`` of a
    function's frame is a snapshot dict the frame keeps: left filled, it would keep the caller's tensors alive after
    the caller deletes them, so it is emptied (the frame refills it whenever it is asked again)."""
    namespace = frame.f_locals
    if namespace is frame.f_globals:
        return namespace
    copy = dict(namespace)
    if type(namespace) is dict:
        namespace.clear()
    return copy


def _searched(value):
    """True for objects whose contents are searched; False for leaves and library machinery.
    (It runs for every edge the search meets: the answer depends only on the type, so it is kept per type; a module
    or a class is searched when it is the learner's own, asked once per module or class.)"""
    kind = type(value)
    known = _library_types.get(kind) or _searching.get(kind)  # one dict lookup for installed code's types (they
    if known is None:                                             # never die), two for the learner's while searching
        known = _searching[kind] = _type_searched(kind)
    if known is _PER_OBJECT:
        answer = _modules_searched.get(id(value))
        if answer is None or answer[1]() is not value:
            learners = _learners_module(value) if kind is types.ModuleType else _learners_class(value)
            answer = _remember(_modules_searched, value, learners)
        return answer[0]
    return known


def _type_searched(kind):
    """Whether objects of ``kind`` are searched: True, False, or ``_PER_OBJECT`` (modules and classes), kept per type."""
    known = _library_types.get(kind)
    if known is not None:
        return known
    entry = _learners_types.get(id(kind))
    if entry is not None and entry[1]() is kind:
        return entry[0]
    known = _searched_type(kind)
    if _learners_class(kind):
        _remember(_learners_types, kind, known)
    elif len(_library_types) < 10_000:
        _library_types[kind] = known
    return known


_PLAIN = frozenset({list, tuple, dict, set, frozenset})  # plain data containers: what they hold is read in bulk
_CHUNK = 256  # items of a large container checked together by _plain_data


def _plain_data(objects, depth=8):
    """True when nothing in ``objects``, nor in what they hold, is searched: lists, tuples, dicts and sets of leaves
    (numbers, strings, objects of skipped libraries), and objects of the learner's own classes that hold only such
    data in their attributes (:func:`_record_class`), nested at most ``depth`` levels. It reads a level at a time with
    ``gc.get_referents`` and looks at each type once, not at each object: a notebook's data (a list of a million
    records as dicts of numbers, or as dataclasses) costs the search milliseconds instead of a visit per object.
    False when unsure.

    >>> _plain_data([{"id": i, "tags": ["a", "b"], "xy": (1.0, 2.0)} for i in range(1000)])
    True
    >>> import torch
    >>> _plain_data([{"id": 1}, {"weights": [torch.ones(2)]}])
    False
    """
    level = objects
    for _ in range(depth):
        if not level:
            return True
        records = set()  # ids of the record classes in this level: their objects' referents name them
        for kind in set(map(type, level)):
            if kind in _PLAIN or _type_searched(kind) is False:
                continue
            if not _record_class(kind):
                return False
            records.add(id(kind))
        level = gc.get_referents(*level)  # leaves hold nothing; a skipped library's object shows its parts: unsure
        if records:
            level = [item for item in level if id(item) not in records]
    return not level


def _record_class(kind):
    """True for a class of the learner's whose objects the search reads only by their attributes (``__dict__`` and
    slots, which ``gc.get_referents`` gives too, beside the class): not a container, module, function or tensor, and
    with no data in its class bodies. Asked once per class while a search runs."""
    known = _records.get(kind)
    if known is None:
        known = _records[kind] = (
            all(_learners_class(klass) for klass in kind.__mro__[:-1])  # the last is object
            and not any(issubclass(kind, bases) for bases, _ in _READERS)
            and not any(issubclass(kind, base) for base, _ in _ROLES) and not _layout(kind)[1])
    return known


def _unplain(items):
    """``enumerate(items)`` less the runs of :func:`_plain_data` in a long sequence (checked ``_CHUNK`` at a time)."""
    starts = range(0, len(items), _CHUNK) if len(items) >= _CHUNK else ()
    kept = [start for start in starts if not _plain_data(items[start:start + _CHUNK])]
    if len(kept) == len(starts):  # no run of plain data: every item, as it comes
        return enumerate(items)
    return [pair for start in kept for pair in enumerate(items[start:start + _CHUNK], start)]


def _remember(cache, key, answer):
    """``cache[id(key)] = (answer, a weak reference to key)``: a class a notebook redefines can die (and with it what
    its body keeps) while its answer is cached; a dead one's id is not taken for a new one's."""
    if len(cache) > 10_000:
        cache.clear()
    entry = cache[id(key)] = (answer, weakref.ref(key))
    return entry


_PER_OBJECT = "per object"  # modules and classes: whether they are the learner's
_library_types = {}  # type -> _searched_type(type), for types of installed code
_learners_types = {}  # id(type) -> (_searched_type(type), a weak reference to it), for the learner's own classes
_modules_searched = {}  # id(module or class) -> (whether it is searched, a weak reference to it)
_searching = {}  # type -> whether searched, for the learner's types too, while a search runs (emptied after: it holds them)
_records = {}  # type -> _record_class(type), while a search runs (emptied after, with _searching)
_reached = {}  # id -> the path that first reached the object, while a search runs: a dict key holding an id() names it
# Where installed code lives: the standard library, site-packages, the virtualenv (each run's sys.path is read once).
_INSTALLED = tuple({os.path.join(os.path.abspath(path), "") for path in (
    sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.__file__),
    *getattr(site, "getsitepackages", list)(), getattr(site, "USER_SITE", None) or sys.prefix)})


def _learners_class(kind):
    """True for a class the learner wrote (in a script, a notebook, or a module of theirs)."""
    module = sys.modules.get(getattr(kind, "__module__", None))
    return module is None or module.__name__ == "__main__" or _learners_module(module)


def _learners_module(module):
    """True for a module of the learner's own (``metrics.py`` beside the notebook, keeping a history list): one
    with a file outside the installed code and the instruments' ``LIBRARY_DIRS``. Its names are searched like
    globals (``metrics.history``); torch, NumPy and the standard library are not.

    >>> import os, types
    >>> _learners_module(os), _learners_module(types.ModuleType("made_here"))
    (False, False)
    """
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return False
    path = os.path.abspath(path)
    return not path.startswith(_INSTALLED) and not path.startswith(tuple(LIBRARY_DIRS))


def _searched_type(kind):
    if kind is types.ModuleType or issubclass(kind, type):
        return _PER_OBJECT
    if kind in (str, bytes, int, float, bool, complex, type(None), range, slice):
        return False
    if issubclass(kind, (types.ModuleType, types.FrameType, types.CodeType, types.BuiltinFunctionType)):
        return False
    if issubclass(kind, (torch.nn.Module, torch.optim.Optimizer, torch.Tensor)):
        return True
    module = getattr(kind, "__module__", "") or ""
    package = module.partition(".")[0]
    if package == "torch":
        return module.startswith("torch.optim")  # optimizers and schedulers; not torch's machinery
    return package not in _SKIPPED_PACKAGES and package != "builtins" or kind in _CONTAINERS


_CONTAINERS = {list, tuple, dict, set, frozenset, collections.deque, collections.OrderedDict, collections.defaultdict,
               types.FunctionType, types.MethodType, functools.partial, types.SimpleNamespace, types.GeneratorType}


_KEY_LEAVES = {str, int, float, bool, bytes, tuple, type(None)}


def _key_text(key, item=None, named=None):
    """A dict key as the learner's code writes it. An int of a key that is an object's ``id()`` (a cache keyed by
    ``(id(y), id(x))``) reads ``id(points)`` where ``named`` (id -> path) knows the object, ``id(…)`` where it is
    the item's own or one of its parts', never the raw address.

    >>> y = [1.0]
    >>> _key_text((id(y), id(_key_text)), (y, 2.0), {id(_key_text): "f"}.get), _key_text(("a", 3))
    ('(id(…), id(f))', "('a', 3)")
    """
    if isinstance(key, (str, int, float, bool)) or key is None:
        return _id_text(key, item, named) if isinstance(key, int) else repr(key)
    if isinstance(key, tuple) and all(isinstance(k, (str, int)) for k in key) and len(key) < 4:
        parts = [_id_text(k, item, named) if isinstance(k, int) else repr(k) for k in key]
        return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"
    return "..."


def _id_text(number, item, named):
    if isinstance(number, bool) or number < 2 ** 16:
        return repr(number)
    name = named(number) if named else None
    if name is not None:
        return f"id({name})"
    parts = item if isinstance(item, (tuple, list)) else ()
    if number == id(item) or any(number == id(part) for part in parts):
        return "id(…)"
    return repr(number)



def _reader_of(kind):
    """What reads the contents of objects of type ``kind``: a function of an object that gives (edge text, child,
    edge kind) of what it holds that is searched, as they come (a long list's items are not all read when the search
    stops early). Kinds: "attr", "item", "closure", "hooks"."""
    for bases, reader in _READERS:
        if issubclass(kind, bases):
            return reader
    slots, class_data = _layout(kind)
    return lambda value: _attributes(value, slots, class_data)


# containers name only the items that are searched: numbers and strings (a param group's lr, a list of floats) cost
# no edge text


def _sequence_items(value):
    items = list(value)
    n = len(items)
    return ((f"[{i - n}]", item, "item") for i, item in _unplain(items) if _searched(item))


def _tuple_items(value):
    fields = getattr(type(value), "_fields", None)  # a NamedTuple: by its field names (ctx.metrics)
    if isinstance(fields, tuple) and len(fields) == len(value):
        return [(f".{name}", item, "attr") for name, item in zip(fields, value) if _searched(item)]
    return ((f"[{i}]", item, "item") for i, item in _unplain(value) if _searched(item))


def _dict_items(value):
    for _, (key, item) in _unplain(list(value.items())):
        if _searched(item):
            yield f"[{_key_text(key, item, _reached.get)}]", item, "item"
        if type(key) not in _KEY_LEAVES and _searched(key):
            yield " (a key)", key, "item"


def _class_body(value):  # a learner's class: the data in its body (K.store)
    return [(f".{name}", item, "attr") for name, item in list(vars(value).items())
            if isinstance(item, _CLASS_DATA) and not name.startswith("__")]


def _generator_variables(value):  # a paused generator's variables (a cache it fills)
    frame = value.gi_frame
    return [] if frame is None else [
        (f" -> {name} (a variable of the generator {value.__name__}())", item, "closure")
        for name, item in frame_locals(frame).items() if _searched(item)]


def _elements(value):
    return ((" (an element)", item, "item") for _, item in _unplain(list(value)) if _searched(item))


def _closure_variables(value):
    return [(f" -> {name} (a variable of {value.__name__}'s closure)", cell.cell_contents, "closure")
            for name, cell in zip(value.__code__.co_freevars, value.__closure__ or ())
            if _full(cell) and _searched(cell.cell_contents)]


def _method_parts(value):
    return [(edge, item, "attr") for edge, item in ((".__self__", value.__self__), ("", value.__func__))
            if _searched(item)]


def _partial_arguments(value):
    return [(f".args[{i}]", item, "item") for i, item in enumerate(value.args) if _searched(item)] + \
           [(f".keywords[{k!r}]", item, "item") for k, item in value.keywords.items() if _searched(item)]


def _nothing(value):  # a functools cache: its entries are not readable from Python (find_leaks reads its size)
    return ()


def _module_names(value):  # a learner's module: its names, as roots_of reads globals
    return [(f".{name}", item, "attr") for name, item in list(vars(value).items())
            if not name.startswith("_") and _searched(item)]


def _code_of(hook):
    """(code object, first line) of the function a hook calls, (None, 0) for a builtin."""
    function = step_function(hook)
    return (function.__code__, function.__code__.co_firstlineno) if function is not None else (None, 0)


def _full(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _attributes(value, slots, class_data):
    namespace = getattr(value, "__dict__", None)
    children = [(f".{name}", item, "attr") for name, item in list(namespace.items()) if _searched(item)] \
        if isinstance(namespace, dict) else []
    for name in slots:
        if hasattr(value, name):
            item = getattr(value, name)
            if _searched(item):
                children.append((f".{name}", item, "attr"))
    return children + _class_data(value, namespace, class_data) if class_data else children


_LRU_CACHE = type(functools.lru_cache(maxsize=None)(len))  # functools.lru_cache and functools.cache wrappers
_CLASS_DATA = (list, dict, set, collections.deque, torch.Tensor, _LRU_CACHE)
_layouts = {}  # id(type) -> ((its slot names, ((depth in its MRO, name), ...) of data in its learner's class bodies), weakref)


def _layout(kind):
    """(slot names, class data) of a type, read once per type: the names of its ``__slots__``, and where the lists,
    dicts, sets, deques and tensors kept on the learner's classes themselves are (``history = []`` in the class
    body, shared by every instance: ``self.history`` reaches them too, unless the instance has its own)."""
    entry = _layouts.get(id(kind))
    if entry is None or entry[1]() is not kind:
        slots = tuple(name for klass in kind.__mro__ for name in getattr(klass, "__slots__", ())
                      if name not in ("__dict__", "__weakref__"))
        class_data = tuple(
            (depth, name) for depth, klass in enumerate(kind.__mro__)
            if (getattr(klass, "__module__", "") or "builtins").partition(".")[0] not in _LIBRARY_PACKAGES
            for name, item in list(vars(klass).items()) if isinstance(item, _CLASS_DATA) and not name.startswith("__"))
        entry = _remember(_layouts, kind, (slots, class_data))
    return entry[0]


def _class_data(value, namespace, names):
    """The class data ``names`` (see :func:`_layout`) that ``value`` reaches: their values are read each time."""
    own = namespace if isinstance(namespace, dict) else {}
    mro = type(value).__mro__
    return [(f".{name}", vars(mro[depth])[name], "attr") for depth, name in names
            if name not in own and name in vars(mro[depth])]


def _module_children(module):
    """A module's parameters, buffers and submodules by the names a learner uses (``model[0].weight``)."""
    children = []
    for name, item in list(module.__dict__.items()):
        if name in ("_parameters", "_buffers"):
            children += [(f".{key}", tensor, "attr") for key, tensor in item.items() if tensor is not None]
        elif name == "_modules":
            children += [(f"[{key}]" if key.isdigit() else f".{key}", sub, "attr") for key, sub in item.items()
                         if sub is not None]
        elif name.endswith("hooks") and isinstance(item, dict) and item and callable(next(reversed(item.values()))):
            children.append((f".{name}", item, "hooks"))
        elif not name.startswith("_") and _searched(item):
            children.append((f".{name}", item, "attr"))
    class_data = _layout(type(module))[1]
    return children + _class_data(module, module.__dict__, class_data) if class_data else children


_READERS = (((list, collections.deque), _sequence_items), (tuple, _tuple_items), (dict, _dict_items),
            (type, _class_body), (types.GeneratorType, _generator_variables), ((set, frozenset), _elements),
            (types.FunctionType, _closure_variables), (types.MethodType, _method_parts),
            (functools.partial, _partial_arguments), (torch.nn.Module, _module_children), (_LRU_CACHE, _nothing),
            (types.ModuleType, _module_names))


_ROLES = ((torch.Tensor, "tensor"), (torch.autograd.graph.Node, "node"), (torch.optim.Optimizer, "optimizer"),
          (_LRU_CACHE, "cache"), (collections.deque, "deque"))  # what the search does more with than read its contents


class _Search:
    def __init__(self, max_objects, max_nodes, saved, marks):
        self.saved, self.marks = saved, marks
        self.found = Found()
        self.seen = _reached  # id -> the path that first reached it: each object is queued once, by that path
        self.nodes_seen = set()  # ids of graph nodes (the nodes themselves are held in `keep` meanwhile)
        self.keep = []
        self.max_objects, self.max_nodes = max_objects, max_nodes

    def run(self, roots):
        try:
            return self._run(roots)
        finally:
            self.keep.clear()
            _reached.clear()
            _searching.clear()
            _records.clear()

    def _run(self, roots):
        # Each object is queued once, by the first (shortest) path that reaches it, and kept meanwhile (ids stay unique
        # while the search runs): only what is searched enters the queue (leaves never cost a path string), and no
        # more than the search can visit.
        queue = collections.deque()
        found, seen, kinds = self.found, self.seen, {}  # type -> (its name in _ROLES, "" for none; its reader)
        for root in roots:
            if id(root.value) not in seen and _searched(root.value):
                seen[id(root.value)] = root.name
                queue.append((root.name, root.value, root.name, root.note, False, False))
        self.queue = queue
        while queue:
            path, value, key, note, through_grad, pinned = queue.popleft()
            if found.visited >= self.max_objects:
                found.exhausted = True
                break
            self.keep.append(value)
            found.visited += 1
            known = kinds.get(type(value))
            if known is None:
                known = kinds[type(value)] = (next((name for base, name in _ROLES if issubclass(type(value), base)), ""),
                                              _reader_of(type(value)))
            role, reader = known
            if role == "tensor":
                self.tensor(value, path, key, note, through_grad, pinned)
                continue
            if role == "node":
                self.graph([value], path, key, note)
                continue
            if role == "optimizer" and key == path and not _learners_class(type(value)):
                found.optimizer_states.add(path + ".state")  # a library's optimizer: its settings bound its state
            elif role == "cache":
                found.caches[path] = value.cache_info().currsize
            elif role == "deque" and value.maxlen is not None:
                found.windows[path] = value.maxlen
            try:
                for edge, child, kind in reader(value):
                    if id(child) in seen:
                        continue
                    if found.visited + len(queue) >= self.max_objects:  # nothing queued from here could be visited
                        found.exhausted = True
                        break
                    seen[id(child)] = path + edge
                    if kind == "hooks":  # what the hooks keep is kept by the hook dict: it is what grows when a step
                        # registers a hook each time (the dict a hook writes into is only the hook's)
                        found.hooks[path + edge] = (len(child), *_code_of(list(child.values())[-1]), tuple(child))
                        queue.append((path + edge, child, path + edge, note, through_grad, True))
                    elif pinned:
                        queue.append((path + edge, child, key, note, through_grad, True))
                    elif kind == "closure":  # a new name: the holder is named from here on, where it lives in the note
                        name = seen[id(child)] = edge.split(" (")[0].removeprefix(" -> ")
                        queue.append((name, child, name, edge.partition(" (")[2][:-1], through_grad, False))
                    elif kind == "attr" and key == path:  # still a plain chain of names: the holder key grows
                        queue.append((path + edge, child, path + edge, note, through_grad, False))
                    else:
                        queue.append((path + edge, child, key, note, through_grad, False))
            except Exception:  # a property that raises, a container changing under us: not searched (further)
                continue
        return found

    def push(self, entry):
        """Queue ``entry`` (path, object, ...) unless its object is queued already or the queue fills the search."""
        if id(entry[1]) in self.seen:
            return
        if self.found.visited + len(self.queue) >= self.max_objects:
            self.found.exhausted = True
            return
        self.seen[id(entry[1])] = entry[0]
        self.queue.append(entry)

    def holder(self, key, path, note, through_grad):
        holder = self.found.holders.get(key)
        if holder is None:
            holder = self.found.holders[key] = Holder(key, path, note, through_grad=through_grad)
        return holder

    def tensor(self, tensor, path, key, note, through_grad, pinned):
        storages = internals.storages_of(tensor)
        holder = self.holder(key, path, note, through_grad)
        for storage in storages:
            self.found.storages.setdefault(id(storage), path)
            self.found.sizes[id(storage)] = storage.nbytes()
            self.found.holder_of_storage.setdefault(id(storage), key)
        if storages:
            holder.path, holder.storage, holder.numel = path, id(storages[0]), max(holder.numel, tensor.numel())
        if tensor.is_leaf and tensor.grad is not None:
            self.push((path + ".grad", tensor.grad, key if pinned else path + ".grad", note, True, pinned))
        elif tensor.is_leaf and tensor.requires_grad and (isinstance(tensor, torch.nn.Parameter) or ".param_groups[" in path):
            self.found.no_grad_yet.append(path)
        hooks = internals.backward_hooks_of(tensor)  # tensor.register_hook's: counted as a module's hooks are
        if hooks:
            where = f"{path}._backward_hooks"
            self.found.hooks[where] = (len(hooks), *_code_of(list(hooks.values())[-1]), tuple(hooks))
            self.push((where, hooks, where, note, through_grad, True))
        attributes = getattr(tensor, "__dict__", None)  # set on a tensor or a Parameter: MAML's weight.fast
        for name, item in list(attributes.items()) if attributes else ():
            if _searched(item):
                self.found.on_tensors[f"{path}.{name}"] = path
                self.push((f"{path}.{name}", item, key if pinned or key != path else f"{path}.{name}", note,
                           through_grad, pinned))
        if tensor.grad_fn is not None:
            before = holder.nodes
            self.graph([tensor.grad_fn], path, key, note)
            if holder.nodes > before:
                holder.path, holder.graph = path, True

    def graph(self, stack, path, key, note):
        """Walk autograd nodes from ``stack``: count them for the holder, map what they saved to ``path``."""
        holder = self.holder(key, path, note, False)
        made = holder.made.setdefault(_graph_place(path), [0, 0, 0]) if self.marks is not None else None
        found, seen = self.found, self.nodes_seen
        while stack and len(seen) < self.max_nodes:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            self.keep.append(node)
            holder.nodes += 1
            if self.marks is not None:
                number = internals.made_at(node)
                if number is not None:
                    made[(number >= self.marks[0]) + (number >= self.marks[1])] += 1
            if self.saved:
                kept = [(tensor, f"saved in its graph by {type(node).__name__}") for tensor in internals.saved_tensors_of(node)]
                leaf = internals.accumulated_leaf(node)
                if leaf is not None and not isinstance(leaf, torch.nn.Parameter):  # made each step, kept by the graph
                    kept += [(leaf, "a leaf its graph keeps"), (leaf.grad, "the .grad of a leaf its graph keeps")]
                for tensor, how in kept:
                    for storage in internals.storages_of(tensor) if tensor is not None else ():
                        if id(storage) not in found.storages:
                            found.storages[id(storage)] = f"{path} ({how})"
                            found.holder_of_storage[id(storage)] = key
            stack.extend(next_node for next_node, _ in node.next_functions)
        if stack:
            found.exhausted = True


def _graph_place(path):
    """Where a graph sits in what holds it: the container of per-step entries, to tell one holder's graphs apart. A path
    is cut at its last list index, or else loses its last subscript.

    >>> [_graph_place(p) for p in ("state['early'][-1]", "history[-1]['loss']", "state['last']", "t.last", "c[(1, 2)]")]
    ["state['early']", 'history', 'state', 't.last', 'c']
    """
    index = max((match.start() for match in _LIST_INDEX.finditer(path)), default=None)
    if index is not None:
        return path[:index]
    if path.endswith("]"):
        depth = 0
        for at in range(len(path) - 1, -1, -1):
            depth += {"]": 1, "[": -1}.get(path[at], 0)
            if depth == 0:
                return path[:at]
    return path


_LIST_INDEX = re.compile(r"\[-?\d+\]")


def search(roots, max_objects=MAX_OBJECTS, max_nodes=100_000, saved=True, marks=None):
    """Search forward from ``roots`` (a list of :class:`Root`), breadth first: each storage and node is
    credited to the shortest path that reaches it, ties to the earlier root. ``saved=False`` skips
    reading what graphs saved (only their nodes are counted). ``marks``, two autograd sequence numbers read in turn
    (:func:`~autograd_memory.seams.torch_internals.sequence_number`), counts in each holder's ``made`` the nodes made
    between them and after the second."""
    return _Search(max_objects, max_nodes, saved, marks).run(roots)
