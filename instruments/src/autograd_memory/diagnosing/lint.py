"""A static check for the autograd memory patterns the course measures: Python files and notebooks, read with
:mod:`ast` only (the code is never imported or run), a few milliseconds a file.

What it knows is how values flow: a model's output, a loss (anything ``.backward()`` is called on), a value
``torch.autograd.grad`` returns and whatever is computed from them carry a graph, until ``.item()``, ``.detach()``,
``float()`` or ``torch.no_grad()`` cuts it. A value is kept *across steps* when it is stored inside a loop into
something made before the loop, or, inside a function, into something that outlives the call (a global, an
attribute such as ``self.total_loss``, a parameter, a container of an enclosing scope). The rules are in
:mod:`autograd_memory.diagnosing.lint_rules`; ``# noqa: AGM001`` (or a bare ``# noqa``) silences one line.

>>> code = '''
... total = 0
... for x, y in batches:
...     loss = model(x).sub(y).pow(2).mean()
...     loss.backward()
...     total += loss
... '''
>>> [f"{f.line}:{f.code}" for f in check_source(code)]
['6:AGM001']
>>> check_source(code.replace("total += loss", "total += loss.item()"))
[]
"""
import ast
import io
import json
import os
import re
import tokenize
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Optional

from .lint_rules import LINT_RULES

__all__ = ["Finding", "LintError", "check_source", "check_notebook", "check_file", "check_paths", "as_text", "as_json"]


@dataclass(frozen=True)
class Finding:
    """One flagged line: ``cell`` is the notebook cell's number (1-based, markdown cells counted), else None."""

    path: str
    line: int
    col: int
    code: str
    message: str
    cell: Optional[int] = None

    def __str__(self):
        where = f"{self.path}:cell {self.cell}:{self.line}:{self.col}" if self.cell else f"{self.path}:{self.line}:{self.col}"
        return f"{where}: {self.code} {self.message}"


class LintError(Exception):
    """A file the lint cannot read or parse: the message names it and says what to do."""


GRAPH, LEAF, DERIV, DETACHED_DERIV, MODULE = "graph", "leaf", "derivative", "detached derivative", "module"
NONE = frozenset()

# methods whose result carries no graph: numbers, sizes, detached copies, and the calls that only act
SAFE_METHODS = {"item", "tolist", "numpy", "numel", "nelement", "size", "dim", "ndimension", "element_size",
                "data_ptr", "stride", "is_contiguous", "equal", "allclose", "backward", "detach_", "keys",
                "register_hook", "zero_", "copy_", "format", "startswith", "endswith", "join", "split", "get_device",
                "untyped_storage", "storage", "__len__", "is_floating_point", "requires_grad_", "append", "extend"}
SAFE_BUILTINS = {"all", "any", "float", "int", "bool", "str", "len", "repr", "format", "id", "type", "isinstance",
                 "print", "round", "hash", "range", "enumerate", "callable", "hasattr", "issubclass", "bytes", "divmod",
                 "vars", "dir", "super", "open", "input"}
TENSOR_ATTRIBUTES = {"T", "mT", "H", "mH", "real", "imag", "grad_fn"}  # attributes of a graph tensor that keep its graph
MODULE_METHODS_TO_MODULE = {"to", "cuda", "cpu", "train", "eval", "double", "float", "half", "requires_grad_"}
NO_GRAPH_CONSTRUCTORS = re.compile(r"^(tensor|as_tensor|from_numpy|zeros|ones|empty|full|rand|randn|randint|randperm|"
                                   r"arange|linspace|logspace|eye|\w+_like|Generator|manual_seed|no_grad|enable_grad|"
                                   r"inference_mode|set_grad_enabled|device|dtype|is_tensor|numel|is_grad_enabled|"
                                   r"equal|allclose|isclose)$")
MODULE_NAMES = re.compile(r"^(model|net|network|module|encoder|decoder|field|policy|critic|actor|backbone|head|"
                          r"classifier|cell|rnn|lstm|gru|mlp|transformer|embedding|(layer|conv|fc|linear)\d*|probe|"
                          r"\w+_(model|net|network|layer|encoder|decoder|rnn|lstm|gru|mlp)|(model|net)(_\w+|\d*))$")
LOSSY_CALLEES = re.compile(r"loss|forward|predict|residual|logits|output|energy|objective", re.IGNORECASE)
MODULE_HOOKS = {"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                "register_backward_hook", "register_full_backward_pre_hook", "register_module_forward_hook",
                "register_module_forward_pre_hook", "register_module_full_backward_hook"}
TENSOR_HOOKS = {"register_hook", "register_post_accumulate_grad_hook"}
MUTATORS = {"append", "extend", "insert", "add", "appendleft", "extendleft", "setdefault", "update", "put"}
NO_GRAD_CONTEXTS = {"no_grad", "inference_mode"}
STEP_NAMES = {"forward"}


def dotted(node) -> Optional[str]:
    """``self.total_loss`` for an attribute chain on a name, ``x`` for a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def mentions(node) -> set:
    """The names and attribute chains an expression reads (``self.total_loss`` and ``self`` both)."""
    found = set()
    for child in ast.walk(node):
        if isinstance(child, (ast.Name, ast.Attribute)):
            name = dotted(child)
            if name:
                found.add(name)
    return found


def _keyword(call, name):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _truthy(node) -> bool:
    """Whether a keyword's value may be true (a literal False or None is not; anything computed may be)."""
    return node is not None and not (isinstance(node, ast.Constant) and not node.value)


def _own_nodes(body):
    """Every node of a list of statements, without descending into nested functions, classes and lambdas."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _is_call_to(node, names):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


class _Facts:
    """What the whole file says: the functions it defines, which names are modules, which are autograd.grad."""

    def __init__(self, trees):
        self.functions, self.modules, self.grad_names, self.hooks, self.no_grad_names = {}, set(), set(), set(), set()
        self.bodies, self.returns = {}, {}
        module_classes = set()
        nodes = [node for tree in trees for node in ast.walk(tree)]
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, node)
            elif isinstance(node, ast.ClassDef) and any((dotted(b) or "").split(".")[-1] in ("Module", "Sequential")
                                                        for b in node.bases):
                module_classes.add(node.name)
            elif isinstance(node, ast.ImportFrom) and node.module in ("torch.autograd", "torch"):
                for alias in node.names:
                    if alias.name == "grad" and node.module == "torch.autograd":
                        self.grad_names.add(alias.asname or alias.name)
                    if alias.name in NO_GRAD_CONTEXTS:
                        self.no_grad_names.add(alias.asname or alias.name)
        self.cleared = {dotted(n.func.value) for n in nodes if _is_call_to(n, {"clear"})} - {None}
        for node in nodes:
            if _is_call_to(node, {"parameters", "named_parameters", "zero_grad", "state_dict", "named_children",
                                  "children", "modules", "named_modules"}):
                receiver = dotted(node.func.value)
                if receiver:
                    self.modules.add(receiver.split(".")[-1])
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                callee = dotted(node.value.func) or ""
                if re.match(r"^(torch\.)?nn\.\w+$", callee) or callee.split(".")[-1] in module_classes:
                    for target in node.targets:
                        name = dotted(target)
                        if name:
                            self.modules.add(name.split(".")[-1])
            elif _is_call_to(node, MODULE_HOOKS) and node.args:
                hook = node.args[0]
                if isinstance(hook, ast.Name):
                    self.hooks.add(hook.id)
                elif isinstance(hook, ast.Call) and isinstance(hook.func, ast.Name) and hook.func.id in self.functions:
                    factory = self.functions[hook.func.id]
                    self.hooks.update(n.name for n in ast.walk(factory) if isinstance(n, ast.FunctionDef) and n is not factory)

    def own(self, function, body):
        """The nodes of a function's body (or of the module's), walked once however often a scope reads them."""
        key = id(function)
        if key not in self.bodies:
            self.bodies[key] = list(_own_nodes(body))
        return self.bodies[key]

    def is_module(self, name: str) -> bool:
        last = name.split(".")[-1]
        return last in self.modules or bool(MODULE_NAMES.match(last))

    def is_grad(self, func) -> bool:
        name = dotted(func) or ""
        return name.endswith("autograd.grad") or name in self.grad_names


class _Region:
    """A loop body, or a function body whose stores into outliving state carry to the next call; what it holds is
    worked out on first use (most regions store no graph and never ask)."""

    def __init__(self, body, scope, loop=None):
        self.body, self.scope, self.loop, self.carried = body, scope, loop, set()

    @cached_property
    def own(self):
        return list(_own_nodes(self.body))

    @cached_property
    def differentiated(self):
        """The names a backward pass in this region starts from, and every name they were computed from."""
        return self.scope.closure(set().union(set(), *(mentions(n) for n in _differentiated(self.own))))

    @cached_property
    def detach_calls(self):
        """The names detached here: ``x.detach()``, ``x.detach_()``, ``x.data``."""
        found = {dotted(n.func.value) for n in self.own if _is_call_to(n, {"detach", "detach_"})}
        found |= {dotted(n.value) for n in self.own if isinstance(n, ast.Attribute) and n.attr == "data"}
        return found - {None}

    @cached_property
    def detached(self):
        """The names detached here, or set anew from other values (a reset after each window's backward)."""
        return self.detach_calls | {name for _, name, reads in self.assignments if name not in reads}

    @cached_property
    def reads(self):
        """``(line, name)`` of every name and attribute chain the region reads."""
        return [(n.lineno, dotted(n)) for n in self.own if isinstance(n, (ast.Name, ast.Attribute))
                and isinstance(n.ctx, ast.Load) and _part(n) is _part(self.loop)]

    @cached_property
    def runs_model(self):
        return any(_is_call_to(n, {"backward", "step"}) or
                   (isinstance(n, ast.Call) and self.scope.facts.is_module(dotted(n.func) or "")) for n in self.own)

    @cached_property
    def has_backward(self):
        return any(_is_call_to(n, {"backward"}) for n in self.own)

    @cached_property
    def removed(self):
        return {dotted(n.func.value) for n in self.own if _is_call_to(n, {"remove"})}

    @cached_property
    def assignments(self):
        """``(line, name, names its value reads)`` for every binding in the region, for :meth:`_Scope.fresh`."""
        first, last = (self.loop.lineno, self.loop.end_lineno) if self.loop else (0, float("inf"))
        cell = _part(self.loop) if self.loop else None
        return [(line, name, mentions(value) if value is not None else set())
                for line, name, value, part in self.scope.bindings
                if first <= line <= last and (self.loop is None or part is cell)]


def _differentiated(nodes):
    """The expressions a backward pass starts from: ``X.backward()``'s receiver, autograd's outputs."""
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "backward":
                yield node.func.value
                if node.args:  # torch.autograd.backward(tensors, ...)
                    yield node.args[0]
            elif node.func.attr == "grad" and node.args:
                yield node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "grad" and node.args:
            yield node.args[0]


class _Scope:
    """One module (a file, or every cell of a notebook) or function body, walked in order: the kind of each name,
    the stores that keep a graph across steps, and the calls the rules flag."""

    def __init__(self, facts, report, body, params=(), hook_params=(), env=None, function=None, outer=None):
        self.facts, self.report, self.function, self.outer = facts, report, function, outer
        self.env = dict(env or {})
        self.env.update({p: NONE for p in params})
        self.env.update({p: frozenset({GRAPH}) for p in hook_params})
        self.params = set(params) | set(hook_params)
        self.own = facts.own(function, body)
        self.declared = {name for n in self.own if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        self.bindings = [(_line(n), name, value, _part(n)) for n in self.own if isinstance(n, BINDINGS) for target, value in
                         _assignments(n) for name in filter(None, (dotted(t) for t in _flat(target)))]
        self.locals = {name for _, name, _, _ in self.bindings} - self.declared
        self.backwarded = {dotted(n.func.value) for n in self.own if _is_call_to(n, {"backward"})} - {None}
        self.no_grad = self.silent = 0
        self.loops, self.deferred = [], []
        self.whole = _Region(body, self)
        self.function_region = self.whole if function is not None else None

    @cached_property
    def deps(self):
        """Name -> the names its values were computed from, over the whole scope."""
        deps = {}
        for _, name, value, _ in self.bindings:
            deps.setdefault(name, set()).update(mentions(value) if value is not None else ())
        return deps

    @cached_property
    def last_use(self):
        """Name -> the last line that reads or writes it."""
        last = {}
        for node in self.own:
            if isinstance(node, (ast.Name, ast.Attribute)) and hasattr(node, "lineno"):
                name = dotted(node)
                if name:
                    last[name] = max(last.get(name, 0), node.lineno)
        return last

    def closure(self, names):
        seen, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.deps.get(name, ()))
        return seen

    # ---- kinds of expressions -------------------------------------------------------------------------------------
    def kind(self, node) -> frozenset:
        if node is None or isinstance(node, (ast.Constant, ast.JoinedStr, ast.Lambda, ast.Compare)):
            return NONE
        if isinstance(node, ast.Name):
            if node.id in self.env:
                found = self.env[node.id]
            elif self.outer is not None and node.id not in self.locals:
                found = self.outer.kind(node)
            else:
                found = NONE
            if node.id in self.backwarded:
                return found | {GRAPH}
            return frozenset({MODULE}) if not found and self.facts.is_module(node.id) else found
        if isinstance(node, ast.Attribute):
            name = dotted(node)
            if self.env.get(name):
                return self.env[name] | ({GRAPH} if name in self.backwarded else set())
            if name in self.backwarded:
                return frozenset({GRAPH})
            base = self.kind(node.value)
            if node.attr in TENSOR_ATTRIBUTES and base & {GRAPH, LEAF}:
                return frozenset({GRAPH}) | (base & {DERIV})
            return frozenset({MODULE}) if name and self.facts.is_module(node.attr) else NONE
        if isinstance(node, ast.Call):
            return self.call_kind(node)
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.IfExp, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp)):
            parts = [self.kind(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
            if isinstance(node, ast.IfExp):
                parts = parts[1:]  # the condition's kind is not the value's
            return _combine(parts)
        if isinstance(node, (ast.Subscript, ast.Starred, ast.Await, ast.NamedExpr)):
            return self.kind(node.value)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = dict(self.env)
            for generator in node.generators:
                for name in filter(None, (dotted(t) for t in _flat(generator.target))):
                    inner[name] = self.kind(generator.iter) - {MODULE}
            saved, self.env = self.env, inner
            try:
                element = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                return _combine([self.kind(e) for e in element])
            finally:
                self.env = saved
        return NONE

    def call_kind(self, node) -> frozenset:
        func = node.func
        args = [*node.args, *(k.value for k in node.keywords)]
        arg_kinds = [self.kind(a) for a in args]
        if self.facts.is_grad(func):
            return frozenset({DERIV, GRAPH}) if _truthy(_keyword(node, "create_graph")) else frozenset({DERIV})
        if self.no_grad:
            return NONE
        if isinstance(func, ast.Attribute):
            method, receiver = func.attr, self.kind(func.value)
            name = dotted(func) or ""
            if method == "detach":
                return frozenset({DETACHED_DERIV}) if DERIV in receiver else NONE
            if method in ("clone", "to", "cpu", "cuda", "contiguous") and DETACHED_DERIV in receiver:
                return receiver
            if method in SAFE_METHODS:
                return NONE
            if self.facts.is_module(method) and not receiver & {GRAPH, LEAF}:
                return frozenset({GRAPH})  # self.model(x)
            if MODULE in receiver:
                if method in MODULE_METHODS_TO_MODULE:
                    return receiver
                if method in ("parameters", "named_parameters"):
                    return frozenset({LEAF})
                return frozenset({GRAPH}) if method in ("forward", "__call__") or LOSSY_CALLEES.search(method) else NONE
            if receiver & {GRAPH, LEAF}:
                return frozenset({GRAPH}) | (receiver & {DERIV})
            if name.startswith(("torch.", "F.", "nn.")) or name.split(".")[0] in ("torch", "F", "functional"):
                if method[:1].isupper():  # a class: nn.Linear is a module, optim.SGD and Generator hold no graph
                    return frozenset({MODULE}) if ".nn." in f".{name}" else NONE
                if NO_GRAPH_CONSTRUCTORS.match(method):
                    return frozenset({LEAF}) if _truthy(_keyword(node, "requires_grad")) else NONE
                return _graph_of(arg_kinds)
            if func.value and isinstance(func.value, ast.Name) and func.value.id == "self" and method in self.facts.functions:
                return self.returns(method, arg_kinds)
            return self.unknown_call(method, arg_kinds)
        if isinstance(func, ast.Name):
            if func.id in SAFE_BUILTINS:
                return NONE
            if self.facts.is_module(func.id) or MODULE in self.env.get(func.id, NONE):
                return frozenset({GRAPH})
            if func.id in self.facts.functions:
                return self.returns(func.id, arg_kinds)
            if func.id[:1].isupper():
                return NONE
            return self.unknown_call(func.id, arg_kinds)
        if isinstance(func, ast.Subscript) and MODULE in self.kind(func.value):
            return frozenset({GRAPH})  # model["encoder"](x)
        return _graph_of(arg_kinds)

    def unknown_call(self, name, arg_kinds):
        """A function the file does not define: it returns a graph when given one (``criterion(out, y)``), or when
        its name says it runs a model (``residual_loss(net, points)``)."""
        if any(GRAPH in k for k in arg_kinds):
            return _graph_of(arg_kinds)
        if LOSSY_CALLEES.search(name) and any(k & {MODULE, LEAF} for k in arg_kinds):
            return frozenset({GRAPH})
        return NONE

    def returns(self, name, arg_kinds):
        """What the file's own function ``name`` returns, given its arguments' kinds (analysed once per kind)."""
        function = self.facts.functions[name]
        key = (name, any(GRAPH in k or LEAF in k for k in arg_kinds))
        cache = self.facts.returns
        if key not in cache:
            cache[key] = NONE  # a recursive call sees "no graph" while its function is being analysed
            params = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
            scope = _Scope(self.facts, None, function.body, env={p: frozenset({GRAPH}) if key[1] else NONE for p in params},
                           function=function)
            scope.walk(function.body)
            cache[key] = _combine(scope.returned)
        return cache[key]

    # ---- walking statements ---------------------------------------------------------------------------------------
    returned = ()

    def emit(self, node, code, message):
        if self.report is not None and not self.silent:
            self.report(node, code, message)

    def walk(self, body):
        self.returned = list(self.returned)
        for statement in body:
            self.statement(statement)

    def statement(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if self.report is not None and not self.silent:
                self.deferred.append(node)  # walked after this scope, with what it knows of the names
            return
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return self.loop(node)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return self.with_block(node)
        self.expressions(node)
        if isinstance(node, ast.Assign):
            value = self.kind(node.value)
            for target in node.targets:
                self.store(node, target, node.value, value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.store(node, node.target, node.value, self.kind(node.value))
        elif isinstance(node, ast.AugAssign):
            self.accumulate(node, node.target, self.kind(node.value))
        elif isinstance(node, ast.Return) and node.value is not None:
            self.returned.append(self.kind(node.value))
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                self.walk_nested(block)
        for handler in getattr(node, "handlers", ()):
            self.walk_nested(handler.body)
        for case in getattr(node, "cases", ()):
            self.walk_nested(case.body)

    def walk_nested(self, body):
        for statement in body:
            self.statement(statement)

    def loop(self, node):
        if not isinstance(node, ast.While):
            self.expressions(node.iter)
        region = _Region(node.body, self, loop=node)
        self.loops.append(region)
        if not self.silent:  # a first, silent pass learns what the loop carries; the second reports with it
            self.silent += 1
            try:
                self.loop_pass(node)
            finally:
                self.silent -= 1
        self.loop_pass(node)
        self.loops.pop()
        self.walk_nested(node.orelse)

    def loop_pass(self, node):
        if not isinstance(node, ast.While):
            kind = self.kind(node.iter) - {MODULE}
            for name in filter(None, (dotted(t) for t in _flat(node.target))):
                self.env[name] = kind
        self.walk_nested(node.body)

    def with_block(self, node):
        quiet = 0
        for item in node.items:
            self.expressions(item.context_expr)
            if _stops_grad(item.context_expr, self.facts):
                quiet += 1
            if item.optional_vars is not None:
                for name in filter(None, (dotted(t) for t in _flat(item.optional_vars))):
                    self.env[name] = NONE
        self.no_grad += quiet
        try:
            self.walk_nested(node.body)
        finally:
            self.no_grad -= quiet

    def expressions(self, node):
        """The rules on calls: hooks, backward's options, autograd.grad under no_grad, re-enabled derivatives."""
        for call in _own_nodes([node]) if not isinstance(node, ast.stmt) else _statement_calls(node):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            method = func.attr if isinstance(func, ast.Attribute) else None
            if method == "backward" or (dotted(func) or "").endswith("autograd.backward"):
                self.backward(call)
            elif self.facts.is_grad(func) and self.no_grad and _truthy(_keyword(call, "create_graph")):
                self.emit(call, "AGM005", "autograd.grad(create_graph=True) inside no_grad() still records the "
                                          "backward pass's graph: no_grad() does not stop it")
            elif (dotted(func) or "").endswith("saved_tensors_hooks") and call.args and self.packs_itself(call.args[0]):
                self.emit(call, "AGM008", "the pack hook returns the tensor it is given: each saved tensor then holds "
                                          "its own graph node, a cycle that is never freed")
            elif method in MUTATORS and call.args:
                value = call.args[1] if method in ("insert", "setdefault") and len(call.args) > 1 else call.args[0]
                self.keep(call, func.value, self.kind(value), "appended to")
            elif method in MODULE_HOOKS or (method in TENSOR_HOOKS and LEAF in self.kind(func.value)):
                self.hook(call)
            elif method == "requires_grad_" and _truthy(call.args[0] if call.args else ast.Constant(True)) \
                    and DETACHED_DERIV in self.kind(func.value):
                self.emit(call, "AGM006", f"{ast.unparse(func.value)} is a derivative detached from the network, then "
                                          "made to require grad: a loss built on it gives no parameter a gradient")
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "requires_grad" and _truthy(node.value) \
                        and DETACHED_DERIV in self.kind(target.value):
                    self.emit(node, "AGM006", f"{ast.unparse(target.value)} is a derivative detached from the network, "
                                              "then made to require grad: a loss built on it gives no parameter a "
                                              "gradient")

    def packs_itself(self, hook) -> bool:
        """Whether a pack hook (a lambda or the file's own function) returns its argument unchanged."""
        if isinstance(hook, ast.Lambda):
            params, body = hook.args.args, hook.body
        elif isinstance(hook, ast.Name) and hook.id in self.facts.functions:
            function = self.facts.functions[hook.id]
            returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
            params, body = function.args.args, returns[0].value if len(returns) == 1 else None
        else:
            return False
        return len(params) == 1 and isinstance(body, ast.Name) and body.id == params[0].arg

    def backward(self, call):
        if _truthy(_keyword(call, "create_graph")):
            self.emit(call, "AGM004", "backward(create_graph=True) stores the backward pass's graph in each .grad, "
                                      "a cycle that del and gc.collect() never free: use torch.autograd.grad")
        if _truthy(_keyword(call, "retain_graph")):
            region = self.region()
            if region is not None:
                receiver = self.closure(mentions(call.func.value if isinstance(call.func, ast.Attribute) else call))
                carried = sorted((region.carried & receiver) - region.detached)
                if carried:
                    self.emit(call, "AGM002", f"backward(retain_graph=True) keeps a graph that {carried[0]}, carried "
                                              "to the next step, extends every step: it is never freed")

    def hook(self, call):
        region = self.region()
        in_forward = self.function is not None and self.function.name in STEP_NAMES  # every call registers again
        if in_forward or (region is not None and region.runs_model and (self.loops or region.has_backward)):
            if not (region is not None and region.removed):
                self.emit(call, "AGM003", f"{call.func.attr} runs every step: each call adds one more hook that "
                                          "keeps what it captures")

    def region(self) -> Optional[_Region]:
        """The innermost loop, else the function body (whose outliving state carries to the next call)."""
        return self.loops[-1] if self.loops else self.function_region

    # ---- stores -------------------------------------------------------------------------------------------------
    def store(self, node, target, value_node, kind):
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.store(node, element, value_node, kind)
            return
        if isinstance(target, ast.Starred):
            return self.store(node, target.value, value_node, kind)
        if isinstance(target, ast.Subscript):  # cache[key] = value
            return self.keep(node, target.value, kind, "stored in")
        name = dotted(target)
        if name is None:
            return
        if self.no_grad and not kind & {DERIV}:
            kind = NONE
        if GRAPH in kind and value_node is not None and name in self.closure(mentions(value_node)) and \
                not self.fresh(name, node):
            self.carry(node, name, value_node)
        elif GRAPH in kind and self.loops and self.read_before(name, node):
            region = self.loops[-1]  # set at the end of a step, read at the start of the next
            region.carried.add(name)
            if name in region.differentiated and name not in region.detach_calls:
                self.emit(node, "AGM007", f"{name} is carried to the next step and differentiated through with no "
                                          "detach(): its graph reaches back through every earlier step")
        self.env[name] = kind

    def accumulate(self, node, target, kind):
        name = dotted(target) if not isinstance(target, ast.Subscript) else dotted(target.value)
        if name is None or GRAPH not in kind:
            return
        if isinstance(target, ast.Subscript):  # totals[k] += loss
            return self.keep(node, target.value, kind, "added to")
        if not self.fresh(name, node):
            self.carry(node, name, None)
        self.env[name] = self.env.get(name, NONE) | {GRAPH}

    def carry(self, node, name, value_node):
        """``name`` is given a graph built from its own value of the last step (or call)."""
        region = self.region()
        if region is None or not self.outlives(name, node):
            return
        region.carried.add(name)
        if name in region.detached:
            return
        accumulated = value_node is None or isinstance(value_node, (ast.BinOp, ast.IfExp))  # a sum, an average
        if self.computed(name, region) or (not accumulated and self.within_call(name, region)):
            return
        if name in region.differentiated:
            self.emit(node, "AGM007", f"{name} is carried to the next step and differentiated through with no "
                                      "detach(): its graph reaches back through every earlier step")
        elif name in self.differentiated_after():
            return  # backpropagated through every step once, after the loop: full backpropagation, on purpose
        elif accumulated:
            self.emit(node, "AGM001", f"{name} accumulates a tensor with its graph across steps: each step's graph "
                                      "stays alive; accumulate .item() (a number) or .detach()")
        else:
            self.emit(node, "AGM007", f"{name} is carried to the next step with its graph and no detach(): its graph "
                                      "reaches back through every earlier step")

    def keep(self, node, container, kind, how):
        name = _container(container)
        if name is None or GRAPH not in kind or not self.outlives(name, node) or self.fresh(name, node):
            return
        if name in self.differentiated_after() or name in self.facts.cleared:
            return  # stacked and backpropagated together; emptied by the file's own code (a cache cleared each step)
        if self.computed(name, self.region()):
            return
        self.emit(node, "AGM001", f"a tensor with its graph is {how} {name}, which outlives the step: each step's "
                                  "graph stays alive; keep .item() or .detach()")

    def differentiated_after(self) -> set:
        """The names a backward pass after the outermost loop starts from (in the same notebook cell), with what
        they were computed from; in a function outside any loop, those of the function's backward passes."""
        if not self.loops:
            return self.whole.differentiated if self.function is not None else set()
        loop = self.loops[0].loop
        after = [n for n in self.own if getattr(n, "lineno", 0) > loop.end_lineno and _part(n) is _part(loop)]
        return self.closure(set().union(set(), *(mentions(n) for n in _differentiated(after))))

    def within_call(self, name, region) -> bool:
        """Whether ``name`` is a function's own name, carried through a loop that runs no backward: state that lives
        for one call (the hidden state through the time steps of a forward pass, a rollout)."""
        if not self.loops or self.function is None or region.has_backward:
            return False
        return "." not in name and name in self.locals and name not in self.declared  # a parameter rebound is its own

    def computed(self, name, region) -> bool:
        """Whether ``name`` is a result a function's loop computes within one call and reads after it (a sum over
        dimensions, outputs to stack)."""
        return self.within_call(name, region) and self.last_use.get(name, 0) > self.loops[0].loop.end_lineno

    def read_before(self, name, node) -> bool:
        """Whether the innermost loop reads ``name`` above ``node``'s line without setting it first: the value
        ``node`` stores is the one the next iteration reads there."""
        first_read = min((line for line, read in self.loops[-1].reads if read == name), default=None)
        return first_read is not None and first_read < node.lineno and not self.fresh(name, ast.Pass(lineno=first_read))

    def fresh(self, name, node) -> bool:
        """Whether ``name`` is made anew in the innermost loop's body before ``node`` (so nothing carries)."""
        if not self.loops:
            return False
        return any(line < node.lineno and target == name and name not in reads
                   for line, target, reads in self.loops[-1].assignments)

    def outlives(self, name, node) -> bool:
        """Whether ``name`` lives on to the next step: made before the loop, or, in a function, state the call
        does not own (a global, an attribute, a parameter, a name of an enclosing scope)."""
        if self.loops:
            return True
        if self.function is None:
            return False
        base = name.split(".")[0]
        return "." in name or base in self.declared or base in self.params or base not in self.locals


def _container(node) -> Optional[str]:
    """The name of what a store goes into: ``history`` for ``history[k]``, ``spread.setdefault(k, []).append``."""
    while isinstance(node, (ast.Subscript, ast.Call)):
        node = node.value if isinstance(node, ast.Subscript) else node.func
        if isinstance(node, ast.Attribute) and not isinstance(node.value, ast.Name) or \
                isinstance(node, ast.Attribute) and node.attr in ("setdefault", "get", "__getitem__"):
            node = node.value
    return dotted(node)


def _graph_of(kinds):
    merged = _combine(kinds)
    return frozenset({GRAPH}) | (merged & {DERIV}) if merged & {GRAPH, LEAF} else NONE


def _combine(kinds):
    merged = frozenset().union(*kinds) if kinds else NONE
    if merged & {GRAPH, LEAF}:
        merged = merged - {MODULE}
    return merged - {LEAF} | ({GRAPH} if LEAF in merged and len(kinds) > 1 else ({LEAF} if LEAF in merged else set()))


def _stops_grad(node, facts) -> bool:
    name = dotted(node.func) if isinstance(node, ast.Call) else dotted(node)
    if name is None:
        return False
    last = name.split(".")[-1]
    if last in NO_GRAD_CONTEXTS or name in facts.no_grad_names:
        return True
    return last == "set_grad_enabled" and isinstance(node, ast.Call) and node.args and \
        isinstance(node.args[0], ast.Constant) and node.args[0].value is False


def _statement_calls(node):
    """The calls of a statement's own expressions (not those of its nested blocks, walked on their own)."""
    for field, value in ast.iter_fields(node):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                yield from _own_nodes([child])


def _flat(target):
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _flat(element)
    elif isinstance(target, ast.Starred):
        yield from _flat(target.value)
    else:
        yield target


BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr)


def _part(node):
    """The notebook cell (or file) a node was read from: line numbers count from 1 in each cell."""
    return getattr(node, "_lint_part", None)


def _line(node):
    return node.lineno if hasattr(node, "lineno") else node.context_expr.lineno  # a with's item has no line


def _assignments(node):
    """``(target, value)`` pairs a statement binds (value None where it is not one expression)."""
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        return [(node.target, node.value if isinstance(node, ast.AnnAssign) else
                 ast.BinOp(left=node.target, op=node.op, right=node.value))]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.target, node.iter)]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(node.optional_vars, node.context_expr)]
    if isinstance(node, ast.NamedExpr):
        return [(node.target, node.value)]
    return []


def _parameters(function):
    args = function.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a]


def _analyse(trees, report):
    """Walk the module-level code of every tree in order, then every function and method, once each."""
    facts = _Facts(trees)
    module = _Scope(facts, report, [s for tree in trees for s in tree.body])
    for tree in trees:
        module.walk(tree.body)
    _functions(facts, report, module.deferred, module)


def _functions(facts, report, nodes, outer):
    """Walk each function (a class's methods too) with what its enclosing scope knows, then the functions in it."""
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            _functions(facts, report, [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                               ast.ClassDef))], outer)
            continue
        params = _parameters(node)
        hook_params = params[1:] if node.name in facts.hooks or (len(params) == 3 and "hook" in node.name) else []
        scope = _Scope(facts, report, node.body, params=[p for p in params if p not in hook_params],
                       hook_params=hook_params, function=node, outer=outer)
        scope.no_grad = sum(_stops_grad(d, facts) for d in node.decorator_list)
        scope.walk(node.body)
        _functions(facts, report, scope.deferred, scope)


# ---- files -----------------------------------------------------------------------------------------------------------
def _noqa(source):
    """Line -> the codes its ``# noqa: CODE, CODE`` comment silences (an empty set: a bare ``# noqa``, all)."""
    silenced = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                match = re.search(r"#\s*noqa(?::\s*([A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", token.string, re.IGNORECASE)
                if match:
                    silenced[token.start[0]] = set(re.findall(r"[A-Z]+[0-9]+", match.group(1) or "", re.IGNORECASE))
    except (tokenize.TokenError, SyntaxError):
        pass
    return silenced


def _check_trees(parts, path):
    """``parts``: (source, tree, cell) per piece; the findings not silenced by a noqa comment."""
    findings = set()
    by_tree = {id(tree): (source, cell) for source, tree, cell in parts}
    current = {}

    def report(node, code, message):
        source, cell = current["part"]
        findings.add(Finding(path, node.lineno, node.col_offset + 1, code, message, cell))

    trees = [tree for _, tree, _ in parts]
    for tree in trees:  # each node knows its piece (its cell) through its tree
        for node in ast.walk(tree):
            node._lint_part = by_tree[id(tree)]

    def located(node, code, message):
        current["part"] = node._lint_part
        report(node, code, message)

    _analyse(trees, located)
    noqa = {cell: _noqa(source) if findings and "noqa" in source else {} for source, _, cell in parts}
    kept = [f for f in findings if not _silenced(noqa[f.cell].get(f.line), f.code)]
    return sorted(kept, key=lambda f: (f.cell or 0, f.line, f.col, f.code))


def _silenced(codes, code):
    return codes is not None and (not codes or code in {c.upper() for c in codes})


def check_source(source: str, path: str = "<string>") -> list:
    """The findings in one Python source; raises :class:`LintError` when it does not parse.

    >>> check_source("loss.backward(create_graph=True)  # noqa: AGM004")
    []
    """
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        raise LintError(f"{path}:{error.lineno}: cannot parse it as Python ({error.msg}); the lint reads Python "
                        "files and notebooks only") from None
    return _check_trees([(source, tree, None)], path)


MAGIC = re.compile(r"^\s*[%!]|^\s*\w+\s*=\s*[%!]|^\s*[\w.]+\?{1,2}\s*$")  # %magic, !shell, x = !ls, obj?


def check_notebook(text: str, path: str = "<notebook>") -> list:
    """The findings in a notebook's code cells (JSON text), each with its cell's number; IPython's magics and shell
    lines are read as blank lines, a cell magic's cell is skipped."""
    try:
        cells = json.loads(text)["cells"]
    except (ValueError, KeyError, TypeError) as error:
        raise LintError(f"{path}: not a notebook ({error}); give a .ipynb file that Jupyter saved") from None
    parts = []
    for number, cell in enumerate(cells, 1):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", ""))
        if source.lstrip().startswith("%%"):
            continue
        source = "\n".join("" if MAGIC.search(line) else line for line in source.splitlines())
        try:
            parts.append((source, ast.parse(source), number))
        except SyntaxError as error:
            raise LintError(f"{path}: cell {number}, line {error.lineno}: cannot parse it as Python ({error.msg})") \
                from None
    return _check_trees(parts, path)


def check_file(path: str) -> list:
    """The findings in one ``.py`` file or ``.ipynb`` notebook; :class:`LintError` when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise LintError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}; give a readable .py file, "
                        ".ipynb notebook or folder") from None
    return check_notebook(text, path) if path.endswith(".ipynb") else check_source(text, path)


def check_paths(paths) -> list:
    """The findings in every file given, and in every .py and .ipynb file under each folder given."""
    findings = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, files in os.walk(path):
                subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
                for name in sorted(files):
                    if name.endswith((".py", ".ipynb")):
                        findings += check_file(os.path.join(folder, name))
        elif os.path.exists(path):
            findings += check_file(path)
        else:
            raise LintError(f"no such file or folder: {path}; give Python files, notebooks (.ipynb) or folders")
    return findings


def as_text(findings) -> str:
    """One line per finding, then each flagged rule's fix and the section that measures it."""
    lines = [str(f) for f in findings]
    for code in sorted({f.code for f in findings}):
        rule = LINT_RULES[code]
        lines.append(f"{code} {rule.title}: {rule.keeps}. Fix: {rule.fix}. Measured in {rule.link}")
    return "\n".join(lines)


def as_json(findings) -> str:
    """The findings and the rules they break, as JSON for CI."""
    return json.dumps({"findings": [asdict(f) for f in findings],
                       "rules": {code: {**asdict(LINT_RULES[code]), "link": LINT_RULES[code].link}
                                 for code in sorted({f.code for f in findings})}}, indent=2)
