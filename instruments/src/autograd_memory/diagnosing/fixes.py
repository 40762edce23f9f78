"""The fix of a :func:`~autograd_memory.find_leaks` row as a change to make: what to do (``action``), to which
holder (``target``, as the code names it), and, where the source shows the line, the edit of that line (``old`` →
``new``) that does it. Every fix frees what its row counts: a tensor kept in a list is kept as a number
(``.item()``: a ``.detach()``-ed tensor keeps the same bytes), a state carried from step to step is detached where
the next step reads it, a cache is cleared, a hook is registered once.

>>> for line, action, name in [("losses.append(loss)", KEEP_NUMBER, "losses"),
...                             ("self.total_loss += loss", KEEP_NUMBER, "total_loss"),
...                             ("σ_log.append(σ)", KEEP_NUMBER, "σ_log"),
...                             ("log.append({'loss': loss, 'acc': acc})", KEEP_NUMBER, "log"),
...                             ("memory = torch.tanh(0.9 * memory + x)", DETACH_CARRIED, "memory"),
...                             ("loss.backward(create_graph=True)", NO_CREATE_GRAPH, ""),
...                             ("loss.backward(retain_graph=True, create_graph=True)  # ∂²", NO_CREATE_GRAPH, ""),
...                             ("loss.backward(retain_graph=True)  # a second backward", NO_RETAIN_GRAPH, "")]:
...     print(edit_line(line, action, name))
losses.append(loss.item())
self.total_loss += loss.item()
σ_log.append(σ.item())
log.append({'loss': loss.item(), 'acc': acc.item()})
memory = torch.tanh(0.9 * memory.detach() + x)
loss.backward()
loss.backward(retain_graph=True)  # ∂²
loss.backward()  # a second backward
"""
import ast
import dataclasses
import linecache
import re

from .sites import source_location

__all__ = ["Remedy", "remedy", "edit_line", "container", "ACTIONS"]

KEEP_NUMBER, DETACH_CARRIED, CLEAR, CACHE_CLEAR = "keep a number", "detach the carried state", "clear it", "clear the cache"
RESET = "reset it each step"
DETACH_ENTRIES = "detach what goes in"
NO_CREATE_GRAPH, REGISTER_ONCE, NOTHING, LOOK = "backward without create_graph", "register the hook once", "nothing", "look"
NO_RETAIN_GRAPH = "backward without retain_graph"  # a second edit of DETACH_CARRIED, not a row's action
_DROPPED = {NO_CREATE_GRAPH: "create_graph", NO_RETAIN_GRAPH: "retain_graph"}
ACTIONS = (KEEP_NUMBER, DETACH_CARRIED, DETACH_ENTRIES, CLEAR, CACHE_CLEAR, RESET, NO_CREATE_GRAPH, REGISTER_ONCE,
           NOTHING, LOOK)
_APPEND = {"append", "appendleft", "add", "insert", "extend", "put"}


@dataclasses.dataclass(frozen=True)
class Remedy:
    """A row's fix. ``action`` is one of :data:`ACTIONS`; ``target`` the holder as the code names it
    (``self.total_loss``); ``where`` the line to edit (``file, line L``), ``old`` its text and ``new`` what it should
    say (both empty when no line could be read); ``text`` the advice in words, which names the line but leaves the
    edit to the reader (a course's exercise asks for it; ``old`` and ``new`` are for tools and tests); ``more``: the
    other lines the fix changes, ``(where, old, new)`` each; ``verified``: None when the edit was not tried, True when
    it was applied to a copy of the step's script and ended the growth, False when it could not be (then there is no
    edit, only words: :mod:`~autograd_memory.diagnosing.verify`)."""

    action: str
    target: str = ""
    text: str = ""
    where: str = ""
    old: str = ""
    new: str = ""
    more: tuple = ()
    verified: object = None

    def as_dict(self):
        return {"action": self.action, "target": self.target, "where": self.where, "old": self.old, "new": self.new,
                "verified": self.verified,
                "more": [{"where": where, "old": old, "new": new} for where, old, new in self.more]}

    @property
    def edits(self):
        """Every ``(old, new)`` line edit of the fix, in order (empty when no line could be read)."""
        return [(self.old, self.new), *((old, new) for _, old, new in self.more)] if self.old else []


def remedy(row, last, step_code, graph_grows):
    """The :class:`Remedy` of a :class:`~autograd_memory.diagnosing.leaks.LeakRow`, read from what keeps it
    (``graph_grows``: the holder's graph grows, in this row or another: every row it keeps gets the same fix)."""
    if row.part_of is not None:
        fix = row.part_of.remedy
        return Remedy(fix.action, fix.target, f"kept by {row.part_of.kept_in}, which leaks above: {fix.text}",
                      fix.where, fix.old, fix.new)
    if row.bounded:
        why = ("bounded by the optimizer's settings" if "optimizer" in row.bounded else
               "bounded by the deque's length" if "deque(maxlen" in row.bounded else
               "made once, not every step" if row.bounded.startswith("made once") else
               "it keeps only what the last steps made, not what every step makes (find_leaks(step, steps=10) "
               "shows it stay bounded)" if row.bounded.startswith("keeps only what") else
               "it stopped growing (made once, or kept in a window of fixed size)")
        return Remedy(NOTHING, text=f"nothing to fix: {why}")
    found = last.found
    holder = found.holders.get(row.kept_in)
    lines = _candidate_lines(row, last, step_code)
    if row.kept_in in found.hooks:
        return _register_once(row.kept_in, lines)
    if holder is None and row.kept_in not in found.caches:
        return Remedy(LOOK, text=(
            "look for where the tensors made on this line are kept (a list, an attribute, a hook, a cache): "
            f"the search gave up after {found.visited} objects" if found.exhausted else
            "no name the step reaches keeps them: look for hooks or caches in other modules, or a graph kept "
            "by retain_graph=True"))
    if row.kept_in in found.caches:
        target = _seen_by(row.kept_in, step_code, lines)
        return _at_start(CACHE_CLEAR, f"{target}.cache_clear()", target, step_code,
                         f"{target} is a functools cache that gains entries every step, each keeping tensors (and their "
                         f"graph): call {target}.cache_clear() at the start of each step, or cache numbers, not tensors")
    if holder.through_grad:
        return _edited(NO_CREATE_GRAPH, row.kept_in, lines, "", (
            f"{row.kept_in} is a .grad that carries a graph (backward(create_graph=True)), and each step's graph "
            "points to the last: call backward() without create_graph=True (torch.autograd.grad(..., create_graph=True) "
            "gives the derivative the loss needs)"))
    path = holder.path.split(" (")[0]
    # one entry that carries a longer graph each step (metrics['loss'] = metrics['loss'] + loss), not one more entry
    chained = graph_grows and not row.bytes_per_step and not re.search(r"\[-\d+\]$", path)
    entries = container(path) if _in_container(holder.path) and not chained else ""
    if entries:
        name = _last_name(entries)
        target = _seen_by(entries, step_code, lines)
        if holder.numel == 1:
            return _edited(KEEP_NUMBER, target, lines, name, (
                f"{entries} gains entries every step, each a tensor{' and its graph' if graph_grows else ''}: store "
                "a number instead, .item() (a .detach()-ed tensor would keep the same bytes)"))
        if graph_grows and path.startswith(f"{entries}[-"):  # a sequence that accumulates keeps its data (a cache
            # that gains keys is cleared): what goes in loses its graph, in every field
            return _detach_entries(entries, target, step_code, lines)
        return _at_start(CLEAR, f"{target}.clear()", target, step_code, (
            f"{entries} gains entries every step: clear it at the start of each step, or keep a number or a smaller "
            "summary in it (.detach() keeps the same bytes)"))
    name, target = _last_name(path), _named_as(path, lines)
    if holder.numel == 1 and graph_grows:
        return _edited(KEEP_NUMBER, target, lines, name, (
            f"{path} chains each step's graph onto the last: keep a number in it (add loss.item(), not loss)"))
    if graph_grows and path in found.on_tensors:  # fast weights on a parameter: each step starts from the parameter
        attribute = path.rpartition(".")[2]  # and the same attribute on the other tensors (every fast weight)
        resets = "; ".join(f"{_seen_by(on, step_code, lines)} = {_seen_by(tensor, step_code, lines)}"
                           for on, tensor in found.on_tensors.items() if on.rpartition(".")[2] == attribute)
        return _at_start(RESET, resets, target, step_code, (
            f"{path} chains each step's graph onto the last: start every .{attribute} again from its tensor at the start "
            "of each step (as MAML's inner loop does for each task)"))
    if graph_grows:
        return _without_retain_graph(_edited(DETACH_CARRIED, target, lines, name, (
            f"{path} carries each step's graph into the next: .detach() it where the next step reads it "
            f"({target}.detach()), so backward stops at the step's start")), step_code)
    return _at_start(RESET, f"{target} = None", target, step_code,
                     f"{path} keeps them across steps: reset it each step (or keep a number, .item(), instead)")


def _detach_entries(entries, target, step_code, lines):
    """Detach each tensor where it goes into ``entries``' root (``rollout["values"]`` and ``rollout["log_probs"]``
    alike): every line of the step, or of the row's own lines, that appends into it."""
    root = re.match(r"\w+", target).group() if re.match(r"\w+", target) else ""
    text = (f"{entries} keeps each entry's graph: detach what goes in, at the line that puts it there, in every field "
            "it fills; the entries stay (the data it is meant to keep), their graphs (what the step saved for "
            "backward) go")
    codes = [step_code] if step_code is not None else []
    codes += [code for code, _, own in lines if own and code not in codes]
    edits = []
    for code in codes:
        for line in _lines_of(code):
            old = linecache.getline(code.co_filename, line).strip()
            new = _detached_entry(old, root)
            if new is not None and (code, line) not in [(c, n) for c, n, *_ in edits]:
                edits.append((code, line, old, new))
    if not edits:
        return Remedy(DETACH_ENTRIES, target, text)
    (code, line, old, new), *more = edits
    where = source_location(code, line)
    return Remedy(DETACH_ENTRIES, target, f"{text} (at {where}{''.join(f', line {n}' for _, n, _, _ in more)})", where,
                  old, new, tuple((source_location(c, n), o, w) for c, n, o, w in more))


def _detached_entry(text, root):
    """``rollout["values"].append(value)`` -> ``rollout["values"].append(value.detach())`` when the container's first
    name is ``root``; None for any other line, or one whose entry is detached already or a number.

    >>> _detached_entry('rollout["values"].append(value)', "rollout"), _detached_entry("log.append(x.item())", "log")
    ('rollout["values"].append(value.detach())', None)
    """
    for node in _statements(text):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _APPEND and node.value.args):
            continue
        receiver = node.value.func.value
        while isinstance(receiver, (ast.Subscript, ast.Attribute)):
            receiver = receiver.value
        value = node.value.args[-1]
        if not isinstance(receiver, ast.Name) or receiver.id != root:
            continue
        if isinstance(value, ast.Call) and _name_of(value.func) in ("detach", "item", "tolist"):
            return None
        simple = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
        inner = _segment(text, value)
        return _splice(text, [(value, f"{inner}.detach()" if simple else f"({inner}).detach()")])
    return None


def container(path):
    """The container a row's entries go into: the path less its last elements (indexes, an element, a key, and
    entries under keys that are not names: a cache keyed by ids gains keys, not items under one).

    >>> container("metrics['loss'][-1]"), container("evals[-1][1]"), container("grads (an element)")
    ("metrics['loss']", 'evals', 'grads')
    >>> container("jacobians[(140, 141)][1]")
    'jacobians'
    """
    path = path.removesuffix(" (an element)").removesuffix(" (a key)")
    while path.endswith("]") and not path[path.rindex("[") + 1:-1].startswith(("'", '"')):
        path = path[:path.rindex("[")]
    return path


def _in_container(path):
    head = path.split(" (saved in its graph")[0].split(" (a leaf")[0].split(" (the .grad")[0]
    return head.endswith("]") or head.endswith(" (a key)") or " (an element)" in head


def _last_name(path):
    """The last name in a holder's path: ``state.worst_residuals[-1]`` -> ``worst_residuals``.

    >>> _last_name("spread['3'][-1]"), _last_name("trainer.total_loss"), _last_name("jacobians[(1, 2)][1]")
    ('spread', 'total_loss', 'jacobians')
    """
    path = re.sub(r"\[[^\[\]]*\]", "", re.sub(r"\[[^\[\]]*\]", "", path)).split(" ")[0]
    return path.rpartition(".")[2]


def _candidate_lines(row, last, step_code):
    """(code, line) of the lines a fix may edit, nearest first: the row's own line, the line that made the
    holder's tensor, then every line of the step (and of functions nested in it) and of the holder's function."""
    holder = last.found.holders.get(row.kept_in)
    made = last.alive.get(holder.storage, (None,))[0] if holder is not None else None
    lines = []
    if not isinstance(row.site, str) and row.site[0] is not None:
        lines.append(row.site)
    if made is not None and made[0] is not None:
        lines.append(made[:2])
    own = set(lines)  # lines that made the row's tensor or the holder's: what they append is what is kept
    for code in (step_code, made[0] if made else None, row.site[0] if not isinstance(row.site, str) else None):
        lines += [(code, line) for line in _lines_of(code)]
    return [(code, line, (code, line) in own) for code, line in dict.fromkeys(lines)]


def _lines_of(code):
    if code is None:
        return []
    lines = sorted({line for *_, line in code.co_lines() if line and line > code.co_firstlineno})
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            lines += _lines_of(const)
    return lines


def _named_as(path, lines):
    """``path`` as the step's code writes it: ``trainer.total_loss`` is ``self.total_loss`` in the method."""
    name = _last_name(path)
    for code, line, _ in lines:
        for node in _statements(linecache.getline(code.co_filename, line).strip()):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Name, ast.Attribute)) and _name_of(sub) == name:
                    return ast.unparse(sub)
    return path.split("[")[0]


def _seen_by(path, step_code, lines):
    """``path`` if the step's code can name its first name (a global or closure variable it uses, ``self``), else
    the path as the code writes it."""
    root = re.match(r"\w+", path)
    names = (*step_code.co_names, *step_code.co_varnames, *step_code.co_freevars) if step_code is not None else ()
    return path if root and root.group() in names else _named_as(path, lines)


def _edited(action, target, lines, name, text):
    for code, line, own in lines:
        old = linecache.getline(code.co_filename, line).strip()
        new = edit_line(old, action, name, own=own)
        if new is not None:
            where = source_location(code, line)
            return Remedy(action, target, f"{text} (at {where})", where, old, new)
    return Remedy(action, target, text)


def _without_retain_graph(fix, step_code):
    """A detached carried state also drops the step's one ``backward(retain_graph=True)``: a carried graph is why a
    step needs it, and once backward runs through the step's own graph only, keeping that graph alive after backward
    costs a step's graph every step. Left alone where the step calls backward or autograd.grad more than once (the
    first of two backwards through one graph needs it)."""
    found = []
    for line in _lines_of(step_code):
        text = linecache.getline(step_code.co_filename, line).strip()
        calls = [call for node in _statements(text) for call in ast.walk(node) if isinstance(call, ast.Call)
                 and _name_of(call.func) in ("backward", "grad")]
        found += [(line, text, edit_line(text, NO_RETAIN_GRAPH, "")) for _ in calls]
    if len(found) != 1 or found[0][2] is None or not fix.old:
        return fix
    line, old, new = found[0]
    where = source_location(step_code, line)
    return dataclasses.replace(fix, text=f"{fix.text}; then backward needs no retain_graph=True (at {where}): with "
                                         "the carried graph detached, nothing runs backward through it again",
                               more=((where, old, new),))


def _at_start(action, statement, target, step_code, text):
    """Insert ``statement`` before the step's first line, at its indentation."""
    lines = _lines_of(step_code)
    if not lines:
        return Remedy(action, target, text)
    raw = linecache.getline(step_code.co_filename, lines[0])
    old = raw.strip()
    indent = raw[:len(raw) - len(raw.lstrip())]
    return Remedy(action, target, f"{text} (at the step's start)", source_location(step_code, lines[0]),
                  old, f"{statement}\n{indent}{old}")


def _register_once(path, lines):
    for code, line, _ in lines:
        old = linecache.getline(code.co_filename, line).strip()
        if any(isinstance(sub, ast.Attribute) and sub.attr.startswith("register_") and sub.attr.endswith("hook")
               for node in _statements(old) for sub in ast.walk(node)):
            return Remedy(REGISTER_ONCE, path, (
                f"{path} gains a hook every step, and each keeps what it captured: register the hook once, before the "
                f"loop (move `{old}` out of the step), or keep its handle and call handle.remove() at the step's end"),
                source_location(code, line), old, "")
    return Remedy(REGISTER_ONCE, path, f"{path} gains a hook every step: register the hook once, before the loop, or "
                                       "keep its handle and call handle.remove() at the step's end")


def _statements(text):
    try:
        return ast.parse(text).body
    except SyntaxError:  # a compound statement's header, a continued line
        return []


def _name_of(node):
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _segment(text, node):
    """The source of ``node`` (ast's offsets count UTF-8 bytes, not characters)."""
    return text.encode()[node.col_offset:node.end_col_offset].decode()


def _wrap(text, node):
    inner = _segment(text, node)
    simple = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    return f"{inner}.item()" if simple else f"({inner}).item()"


def _splice(text, edits):
    data = text.encode()
    for node, replacement in sorted(edits, key=lambda pair: -pair[0].col_offset):
        data = data[:node.col_offset] + replacement.encode() + data[node.end_col_offset:]
    return data.decode()


def edit_line(text, action, name, own=True):
    """``text`` (one line of source) with ``action`` applied to what it stores into ``name``; None when the line
    stores nothing there. ``own``: the line made the row's tensor, so any container it appends to is the one."""
    for node in _statements(text):
        if action in _DROPPED:
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "backward":
                    keyword = next((k for k in call.keywords if k.arg == _DROPPED[action]), None)
                    if keyword is not None:
                        return _drop_keyword(text, call, keyword)
            continue
        value = None
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
            call = node.value
            if call.func.attr in _APPEND and call.args and (own or _name_of(call.func.value) == name):
                value, target = call.args[-1], None
        elif isinstance(node, ast.AugAssign) and _name_of(node.target) == name:
            value, target = node.value, node.target
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            stored = target.value if isinstance(target, ast.Subscript) else target
            if _name_of(stored) == name:
                value = node.value
        if value is None:
            continue
        if action == KEEP_NUMBER:
            if isinstance(value, ast.BinOp) and target is not None:  # total = total + loss: the new part
                same = ast.unparse(target)
                if ast.unparse(value.left) == same:
                    value = value.right
                elif ast.unparse(value.right) == same:
                    value = value.left
            if isinstance(value, ast.Dict):  # a dict of tensors: a number per value (a dict has no .item())
                return _splice(text, [(item, _wrap(text, item)) for item in value.values])
            return _splice(text, [(value, _wrap(text, value))])
        if action == DETACH_CARRIED and target is not None:
            same = ast.unparse(target)
            reads = [sub for sub in ast.walk(value) if isinstance(sub, (ast.Name, ast.Attribute)) and ast.unparse(sub) == same]
            if reads:
                return _splice(text, [(sub, f"{_segment(text, sub)}.detach()") for sub in reads])
    return None


def _drop_keyword(text, call, keyword):
    """The call without one keyword argument (and its comma)."""
    data = text.encode()  # ast's offsets count UTF-8 bytes
    start, end = keyword.col_offset, keyword.end_col_offset
    rest = data[end:]
    if rest.lstrip().startswith(b","):
        end += len(rest) - len(rest.lstrip()) + 1
        end += len(data[end:]) - len(data[end:].lstrip())
    else:
        before = data[:start].rstrip()
        if before.endswith(b","):
            start = len(before) - 1
    return (data[:start] + data[end:]).decode()
