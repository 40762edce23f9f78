"""Which line leaks, and how much per step: :func:`find_leaks` runs a training step a few times and
names the source lines whose tensors pile up, and the variables whose autograd graph grows.

>>> import torch
>>> history = []
>>> def step():
...     history.append(torch.zeros(250).exp())   # 1 kB a step kept; the zeros die at once
>>> report = find_leaks(step, steps=3)
>>> report.top.bytes_per_step, report.top.tensors_per_step, report.top.during_backward
(1000, 1, False)
>>> report.top.where.endswith("line 2"), report.top.holder
(True, 'history[-1]')
>>> history.clear()

How it works: a :class:`~autograd_memory.LiveTensors` meter that notes, for each storage it counts, the
code object and line of the innermost frame outside ``torch`` and ``autograd_memory``
(:func:`~autograd_memory.diagnosing.sites.creation_site`), and forgets it when the storage dies. Storages still
alive after the last step, minus those alive after the warm-up, are what each line leaked. What
keeps them, and which graphs grow, comes from a bounded search over what the step can reach
(:mod:`autograd_memory.diagnosing.holders`). Growth made inside ``optimizer.step``, kept in ``optimizer.state`` or in
a ``deque(maxlen=N)``, made in one step only, that stops within the steps, or that keeps nothing the first half of the
steps made (a graph kept from one step to two, once) is *bounded*: shown apart, never the leak: a leak keeps what
every step makes. Each row's fix is read from what keeps it (:mod:`autograd_memory.diagnosing.fixes`).
"""
import collections
import gc
import html
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import psutil  # noqa: F401  read by process_rss; imported here so that the first find_leaks call is not the one to pay for it

from ..formats import display_settings
from ..formats.tables import ShowsAsText
from ..formats.units import format_bytes
from ..measuring.meters import LiveTensors, process_rss
from ..measuring.trace import NotFlatError
from ..seams import torch_internals as internals
from .fixes import container as _container
from .fixes import remedy
from .holders import MAX_OBJECTS, frame_locals, roots_of, search
from .sites import creation_site_and_caller, source_location, source_text
from .steps import call_step, check_step, step_function
from .verify import try_fixes

__all__ = ["find_leaks", "LeakReport", "LeakRow", "refusal", "MIN_STEPS"]


class _SiteMeter(LiveTensors):
    """LiveTensors that remembers where each live storage was created (and the line that called there)."""

    def __init__(self, step_code=None):
        super().__init__()
        self.step_code = step_code  # the step's own body: a site there needs no call site (one frame walk less)
        self.step = 0  # which step runs now (0: the warm-up)
        # storage key -> ((code, line, phase, caller code, caller line), nbytes, step): a record made at the storage's
        # birth, so a reading tells a new storage from an old one that had the same id (ids are reused)
        self.sites = {}

    def _on_new_storage(self, key, nbytes, device):
        self.sites[key] = (creation_site_and_caller(self._owner, self.step_code), nbytes, self.step)

    def _on_free_storage(self, key, nbytes, device):
        self.sites.pop(key, None)

    def alive(self):
        """storage key -> (site, nbytes, step made) of what is alive now."""
        self._settle()  # deaths are noticed at the next op or reading: take them in first
        with self._lock:
            return dict(self.sites)


@dataclass
class LeakRow:
    """One line whose tensors (or whose tensor's graph) grow every step.

    ``site`` is ``(code object, line)``, or the holder's path when the grown tensor was made before
    find_leaks ran; ``where``/``code`` are read from it when asked. ``holder`` is the path that keeps
    what grows (``trainer.losses[-1]``), ``fix`` which way the fix goes, ``phases`` the bytes per step
    made in the forward code, during backward and inside the optimizer, ``bounded`` why the row is not
    a leak (empty for a leak), ``called_from`` the line that called the helper, lambda or closure.
    """

    site: object
    bytes_per_step: float
    tensors_per_step: float = 0
    nodes_per_step: float = 0
    during_backward: bool = False
    note: str = ""
    holder: str = ""
    fix: str = ""
    bounded: str = ""
    phases: dict = field(default_factory=dict)
    called_from: tuple = (None, 0)
    storages_made: int = 0  # how many more of the line's storages are alive after the steps
    steps: int = 1
    kept_in: str = ""  # the variable, attribute or container of ``holder``: ``trainer.losses``
    holder_note: str = ""  # where the holder's first name lives: "a variable of make_step()"
    hooks_per_step: float = 0  # hooks a module gains per step (a hook registered inside the step)
    remedy: object = None  # the fix as a change to apply: :class:`~autograd_memory.diagnosing.fixes.Remedy`
    part_of: object = None  # a bounded row kept by a holder that leaks in another row: that row (its fix frees both)

    unseen: bool = False  # storages the step keeps that the meter never saw made, found by the search
    threads: tuple = ()  # for such a row: the other threads that ran in the steps

    @property
    def where(self) -> str:
        if isinstance(self.site, str):
            if self.unseen and self.threads:
                return (f"{self.site} (made on thread {', '.join(self.threads)}: the meters count this thread's ops "
                        "only, so not the line)")
            if self.unseen:
                return (f"{self.site} (made where the meters cannot see the line: inside a tensor subclass's own "
                        "dispatch, or outside the dispatcher)")
            return f"{self.site} (made before find_leaks ran)"
        return source_location(*self.site)

    @property
    def code(self) -> str:
        return self.note if isinstance(self.site, str) else source_text(*self.site)

    def grows(self) -> str:
        """What grows, per step: bytes (and how many tensors), graph nodes."""
        parts = []
        if self.bytes_per_step:
            parts.append(f"+{format_bytes(self.bytes_per_step)}/step {_tensors(self.storages_made, self.steps)}")
        if self.nodes_per_step:
            parts.append(f"+{_number(self.nodes_per_step)} graph nodes/step")
        if self.hooks_per_step:
            parts.append(f"+{_number(self.hooks_per_step)} hook{'s' if self.hooks_per_step != 1 else ''}/step")
        return ", ".join(parts)

    def made(self) -> str:
        """Where it was made: the line, the phase inside it, and the call site of a helper."""
        phases = [f"{'forward' if phase == '' else phase} +{format_bytes(n)}" for phase, n in self.phases.items() if n]
        inside = f" [{', '.join(phases)}]" if len(phases) > 1 or (phases and not phases[0].startswith("forward")) else ""
        caller = ""
        if self.called_from[0] is not None:
            caller = f" (called from {source_location(*self.called_from)}: {source_text(*self.called_from)})"
        return f"{self.where}: {self.code}{inside}{caller}"

    def __str__(self):
        note = f"  ({self.holder_note})" if self.holder_note else ""
        lines = [f"{self.grows()}", f"    made at {self.made()}", f"    kept by {self.holder}{note}"]
        if self.bounded:
            lines[0] += f"  ({self.bounded}: not a leak)"
        if self.fix:
            lines.append(f"    fix: {self.fix}")
        return "\n".join(lines)


def _number(x):
    return f"{x:g}" if isinstance(x, float) else str(x)


def _tensors(made, steps):
    """An honest count of the tensors behind a row's bytes."""
    if made <= 0:
        return "(no new tensors: tensors replaced by bigger ones)"
    if made % steps == 0:
        per = made // steps
        return f"in {per} tensor{'s' if per > 1 else ''}/step"
    return f"in {made} tensor{'s' if made > 1 else ''} over {steps} steps"


def _per_step(growth, steps):
    """Exact when the growth divides evenly (the usual case: the same bytes every step)."""
    return growth // steps if growth % steps == 0 else growth / steps


@dataclass
class LeakReport(ShowsAsText):
    """What :func:`find_leaks` found. ``rows`` are the leaks, largest first (tensor bytes, then graph
    nodes); ``top`` is the first, or None when nothing leaks. ``bounded`` rows grew but are not leaks
    (optimizer state, one-off allocations). ``rss_per_step`` is the OS's view, noisy, used for no row."""

    rows: list
    steps: int
    warmup: int
    rss_per_step: float
    bytes_per_step: float
    nodes_per_step: float = 0
    bounded: list = field(default_factory=list)
    rss_changes: tuple = (0, 0)
    uncounted: dict = field(default_factory=dict)  # kind -> how many more tensors of it the meters cannot count are alive

    def unseen(self) -> str:
        """What the meters could not count: tensors of kinds they cannot count exactly that the steps kept ("" for
        none), so that no leak hidden in them reads as flat."""
        if not self.uncounted:
            return ""
        kinds = ", ".join(f"+{_number(_per_step(n, self.steps))} {kind} tensor{'' if n == self.steps else 's'}/step"
                          for kind, n in self.uncounted.items())
        return (f"cannot tell: {kinds} that the meters cannot count exactly stay alive (their bytes are not all in "
                "the rows); a leak could hide in them")

    @property
    def top(self) -> Optional[LeakRow]:
        return self.rows[0] if self.rows else None

    def headline(self) -> str:
        return (f"find_leaks: {self.steps} steps after {self.warmup} warm-up: live tensors "
                f"{format_bytes(self.bytes_per_step, signed=True)}/step, graph nodes {self.nodes_per_step:+g}/step; "
                f"{len(self.rows)} leak(s)" + (f", {len(self.bounded)} bounded" if self.bounded else ""))

    def os_view(self) -> str:
        low, high = self.rss_changes
        return (f"the OS's view (used for no row): process RSS {format_bytes(self.rss_per_step, signed=True)}/step, "
                f"its step-to-step changes from {format_bytes(low, signed=True)} to {format_bytes(high, signed=True)} "
                "(the C allocator keeps and returns pages in chunks)")

    def __str__(self):
        lines = [self.headline()]
        if self.uncounted:
            lines.append("  " + self.unseen())
        elif not self.rows:
            lines.append("  flat: nothing grows from step to step")
        lines += [_indent(row) for row in self.rows]
        if self.bounded:
            lines.append("  bounded growth, not leaks:")
            lines += [_indent(row) for row in self.bounded]
        lines.append("  " + self.os_view())
        return "\n".join(lines)

    def _repr_html_(self):
        def cells(rows):
            # a holder's rows share one fix: the table says it once, and "the same fix" under it
            fixes = [r.fix if i == 0 or r.fix != rows[i - 1].fix else "the same fix as the row above"
                     for i, r in enumerate(rows)]
            return "".join(
                f"<tr><td style='text-align:left'>{html.escape(r.grows())}{html.escape(f' ({r.bounded})' if r.bounded else '')}"
                f"</td><td style='text-align:left'>{html.escape(r.made())}</td>"
                f"<td style='text-align:left'><code>{html.escape(r.holder)}</code></td>"
                f"<td style='text-align:left'>{html.escape(fix)}</td></tr>" for r, fix in zip(rows, fixes))
        large = display_settings.is_large()  # a slide: the largest rows, at the slide's text size
        rows, bounded = self.rows, self.bounded
        if large:
            rows = rows[:display_settings.REPORT_ROWS]
            bounded = bounded[:display_settings.REPORT_ROWS - len(rows)]
        body = cells(rows) or ("" if self.uncounted else "<tr><td colspan=4>flat: nothing grows from step to step</td></tr>")
        if self.uncounted:
            body = f"<tr><td colspan=4 style='text-align:left'>{html.escape(self.unseen())}</td></tr>" + body
        if bounded:
            body += "<tr><th colspan=4 style='text-align:left'>bounded growth, not leaks</th></tr>" + cells(bounded)
        left_out = len(self.rows) + len(self.bounded) - len(rows) - len(bounded)
        if left_out:
            body += f"<tr><td colspan=4 style='text-align:left'>… {left_out} more row(s); print() the report for all</td></tr>"
        os_view = html.escape(self.os_view())
        return (f"<table><caption style='text-align:left'>{html.escape(self.headline())}<br>"
                f"{os_view if large else f'<small>{os_view}</small>'}</caption><thead><tr><th>what grows</th>"
                f"<th>where it was made</th><th>what keeps it</th><th>the fix</th></tr></thead>{body}</table>")

    def assert_flat(self, allow_uncounted: bool = False) -> None:
        """Raise :class:`~autograd_memory.NotFlatError` naming the top rows unless nothing leaks (bounded rows pass);
        also when the steps kept tensors the meters cannot count (a leak could hide there), unless ``allow_uncounted``."""
        if self.rows:
            top = "\n".join(_indent(row) for row in self.rows[:3])
            raise NotFlatError(f"the step leaks; top rows:\n{top}\nFix where it is kept and run find_leaks again.")
        if self.uncounted and not allow_uncounted:
            raise NotFlatError(f"{self.unseen()}. Pass allow_uncounted=True to accept that.")


def _indent(row):
    return "\n".join("  " + line for line in str(row).splitlines())


def find_leaks(step: Callable[[], Any], steps: int = 5, warmup: int = 1, *, max_nodes: int = 100_000,
               max_objects: int = MAX_OBJECTS, verify: bool = False) -> LeakReport:
    """Run ``step()`` ``warmup + steps`` times and report what grows from step to step.

    Each :class:`LeakRow` reads: what grows (bytes per step, exactly, and graph nodes per step); where
    it was made (``cell [N], line L`` in a notebook; storages made inside ``backward()``/``autograd.grad``
    are charged to that call's line, with the phase shown); what keeps it, as a path from a name the
    step can reach (``self.total_loss``, ``state.history[-1]``, ``optimizer.state[...]['exp_avg']``),
    found by a search capped at ``max_objects`` objects and ``max_nodes`` graph nodes; and which way
    the fix goes. Leaks that hold no tensor bytes (``running_loss = running_loss + loss`` keeps every
    step's autograd nodes) are rows too, at the line that made the tensor holding the graph.
    Each row's fix is also ``row.remedy``, a change to apply (:mod:`~autograd_memory.diagnosing.fixes`).
    Growth made inside ``optimizer.step``, kept in ``optimizer.state`` or in a ``deque(maxlen=N)``, made in one step
    only, that stops by the middle of the steps, or that keeps nothing the first half of the steps made (a graph kept
    from one step to two, even late: autograd's sequence numbers tell which steps made a graph, hook handles' ids
    which steps registered a hook) is listed apart as bounded and does not fail
    :meth:`LeakReport.assert_flat`. Not counted: the Python numbers a graph saves (``x * 0.5`` saves an 8-byte
    tensor made outside the dispatcher; the graph's nodes still count) and what a ``functools.lru_cache`` holds
    (its size names it). Tensors the meters cannot count exactly (a tensor subclass of its own, a strided nested
    tensor, mkldnn; see :attr:`~autograd_memory.LiveTensors.uncounted`) that the steps keep are
    ``report.uncounted``, by kind: the report then says "cannot tell", never "flat", and :meth:`LeakReport.assert_flat`
    fails unless ``allow_uncounted=True``. Storages the step keeps that the meter never saw made (made on another
    thread, or inside a tensor subclass's own dispatch) are rows too, found by the search for holders: "made on
    thread T", without a line. Nothing stays installed if ``step`` raises; no tensor is kept alive.

    ``verify=True`` tries each row's edit first (:mod:`~autograd_memory.diagnosing.verify`): applied to a copy of the
    step's script and measured again, it is kept with "this edit ends the growth (verified)", or given as words only,
    marked unverified. It runs the script again per fix: a step of a script's top level (a function, or a method of
    an object the script makes) only.

    Refused with a ``ValueError`` saying what to pass (:func:`refusal`): fewer than 3 measured ``steps``, and
    ``warmup=0`` while a parameter has no ``.grad`` yet. Whatever the step raises (``SystemExit`` and
    ``KeyboardInterrupt`` too) leaves find_leaks unchanged, with a note naming the call: "find_leaks: the step exited
    (SystemExit: 0) on call 3 of 6".
    """
    check_step(step, "find_leaks", "find_leaks(train_step) or find_leaks(lambda: train_step(model, batch))")
    caller = sys._getframe(1)
    namespaces = [frame_locals(caller), caller.f_globals]
    del caller
    why = refusal(step, steps, warmup, namespaces)
    if why:
        raise ValueError(why)
    function = step_function(step)
    step_code = function.__code__ if function is not None else None  # its own lines need no call site
    calls = iter(range(1, warmup + steps + 1))
    # What existed before is not the steps' garbage: freezing it keeps the gc passes below short.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    threads = _ThreadNames()
    try:
        with _SiteMeter(step_code) as meter, threads:
            for _ in range(warmup):
                call_step(step, "find_leaks", (next(calls), warmup + steps))
            first = _Reading.now(meter, step, namespaces, max_objects, max_nodes, saved=False)
            rss = [process_rss()]
            middle = None
            for number in range(1, steps + 1):
                meter.step = number
                call_step(step, "find_leaks", (next(calls), warmup + steps))
                rss.append(process_rss())
                if number == (steps + 1) // 2 and steps >= 2:  # what stops growing by then is bounded
                    middle = _Reading.between(meter)  # no search: the last one tells which half made what it finds
            marks = (first.mark, middle.mark) if middle is not None else None
            last = _Reading.now(meter, step, namespaces, max_objects, max_nodes, saved=True, marks=marks)
    finally:
        if freeze:
            gc.unfreeze()
        del namespaces
    report = _report(first, middle, last, steps, warmup, rss, step_code, tuple(threads.names))
    if verify:
        try_fixes(report, step, lambda copy: find_leaks(copy, steps, warmup, max_nodes=max_nodes, max_objects=max_objects))
    return report


MIN_STEPS = 3  # measured steps: with fewer, growth that stops (a window, a cache filled in buckets) reads as a leak


def _as_argument(name, value):
    return f"{name}={value!r}"


def refusal(step, steps, warmup, namespaces=(), spell=_as_argument):
    """Why find_leaks cannot answer for these ``steps`` and ``warmup``, and what to pass instead ("" when it can).
    ``spell(name, value)`` writes an argument as the caller types it (``steps=2``; the command line's ``--steps 2``).

    >>> refusal(lambda: None, 2, 1)  # doctest: +ELLIPSIS
    'steps=2 is too few: find_leaks needs steps=3 or more measured steps...'
    """
    if type(steps) is not int or steps < MIN_STEPS:
        return (f"{spell('steps', steps)} is too few: find_leaks needs {spell('steps', MIN_STEPS)} or more measured "
                "steps (a whole number): with fewer, growth that stops within the steps (a window of fixed size, a "
                f"cache filled in buckets) cannot be told from a leak. The default, {spell('steps', 5)}, suits most steps")
    if type(warmup) is not int or warmup < 0:
        return (f"{spell('warmup', warmup)}: the warm-up is a whole number of steps run first and not measured, 0 or "
                f"more; the default, {spell('warmup', 1)}, suits most steps")
    if warmup == 0:
        fresh = search(roots_of(step, namespaces), saved=False).no_grad_yet
        if fresh:
            named = ", ".join(fresh[:3]) + (f" and {len(fresh) - 3} more" if len(fresh) > 3 else "")
            return (f"{spell('warmup', 0)} on a model with no .grad yet: {named}. The first step makes every .grad, "
                    "and find_leaks would read those bytes as a leak; pass "
                    f"{spell('warmup', 1)} (the default): the warm-up makes them, and the steps after it are measured")
    return ""


def _by_line(alive):
    """(code, line) -> bytes alive."""
    totals = collections.Counter()
    for site, nbytes, _ in alive.values():
        totals[site[:2]] += nbytes
    return totals


class _ThreadNames:
    """Inside it, the names of the threads ``threading`` starts (a profile function that notes the thread's name at its
    first call, then removes itself), the previous ``threading.setprofile`` function restored on exit."""

    def __enter__(self):
        self.names, self.previous = [], threading.getprofile()
        threading.setprofile(self._note)
        return self

    def _note(self, frame, event, arg):
        name = threading.current_thread().name
        if name not in self.names:
            self.names.append(name)
        sys.setprofile(self.previous)

    def __exit__(self, *exc):
        threading.setprofile(self.previous)
        return False


def _unseen_rows(rows, first, last, steps, threads):
    """Storages the step keeps that the meter never saw made (made on another thread): a row per holder, from what
    the searches reached, so that such a leak is not read as flat."""
    grown = collections.Counter()
    for key, nbytes in last.found.sizes.items():
        if key not in last.alive and key not in first.found.sizes:
            grown[last.found.holder_of_storage.get(key)] += nbytes
    for holder, nbytes in grown.items():
        if holder is None or nbytes <= 0 or any(row.kept_in == holder for row in rows.values()):
            continue
        found = last.found.holders[holder]
        rows[holder] = LeakRow(found.path, 0, steps=steps, holder=found.path, kept_in=holder, holder_note=found.note,
                               phases={"": nbytes}, storages_made=sum(
                                   1 for key in last.found.sizes if key not in last.alive and key not in first.found.sizes
                                   and last.found.holder_of_storage.get(key) == holder), unseen=True, threads=threads)


def _report(first, middle, last, steps, warmup, rss, step_code, threads=()):
    rows = {}  # (code, line), or (line, holder key) for a graph kept by another holder than the line's bytes: -> LeakRow
    grown_by_site, made_by_line = collections.Counter(), collections.Counter()
    born = collections.defaultdict(set)  # line -> the steps in which its new storages alive at the end were made
    for sign, reading in ((1, last), (-1, first)):
        for key, (site, nbytes, made_in) in reading.alive.items():
            grown_by_site[site] += sign * nbytes
            made_by_line[site[:2]] += sign
            if sign > 0 and first.alive.get(key) is not reading.alive[key]:
                born[site[:2]].add(made_in)
    for site, grown in grown_by_site.items():
        if grown > 0:
            row = rows.setdefault(site[:2], LeakRow(site[:2], 0, steps=steps))
            row.phases[site[2]] = row.phases.get(site[2], 0) + grown
            row.storages_made = made_by_line[site[:2]]
            if site[3] is not None and site[0] is not step_code:  # made in a helper, lambda or closure
                row.called_from = site[3:]
    # What keeps a row is what keeps its growth: per holder, the bytes of the line's storages it keeps at the end
    # less those it kept after the warm-up (a .grad replaced every step keeps as much as before: not the holder).
    kept = collections.defaultdict(collections.Counter)  # line -> holder key -> bytes gained
    newest = {}  # (line, holder key) -> path of the newest storage it keeps
    # holder key -> bytes it kept at the start that lines with no row made (and that died since): a tensor replaced
    # by a bigger one made on another line (a buffer made by clone(), then grown in place by add_) grew by the difference
    replaced = collections.Counter()
    for sign, reading in ((1, last), (-1, first)):
        for key, record in reading.alive.items():
            site, nbytes = record[:2]
            holder = reading.found.holder_of_storage.get(key)
            if holder is not None and site[:2] not in rows:
                replaced[holder] += sign * nbytes
            elif holder is not None:
                kept[site[:2]][holder] += sign * nbytes
                # a new storage, not one alive before: ids are reused, the record (a tuple made at its birth) is not
                if sign > 0 and first.alive.get(key) is not record:
                    newest[site[:2], holder] = reading.found.storages[key]
    for line, holders in kept.items():
        gained = [(nbytes, holder) for holder, nbytes in holders.items() if nbytes > 0 and (line, holder) in newest]
        if gained:
            row = rows[line]
            row.kept_in = max(gained, key=lambda pair: pair[0])[1]
            row.holder, row.holder_note = newest[line, row.kept_in], last.found.holders[row.kept_in].note
            if replaced[row.kept_in] < 0:  # what the holder no longer keeps of other lines' tensors
                phase = max(row.phases, key=row.phases.get)
                taken = min(-replaced[row.kept_in], row.phases[phase])
                row.phases[phase] -= taken
                replaced[row.kept_in] += taken
    nodes_grown = 0
    for key, holder in last.found.holders.items():
        grown = holder.nodes - first.nodes.get(key, 0)
        if grown > 0:
            nodes_grown += grown
            site = last.alive.get(holder.storage, (None,))[0]
            where = site[:2] if site is not None else holder.path
            line = where
            if line in rows and rows[line].kept_in not in ("", key):  # that line's bytes are kept elsewhere: the
                line = (where, key)                                    # graph gets a row of its own, named by its holder
            row = rows.setdefault(line, LeakRow(where, 0, steps=steps, note=f"its graph has {holder.nodes} nodes"))
            row.nodes_per_step += grown
            if not row.kept_in:
                row.holder, row.kept_in, row.holder_note = holder.path, key, holder.note
    _hook_rows(rows, first, last, steps)
    _unseen_rows(rows, first, last, steps, threads)
    caches = {path: size - first.found.caches.get(path, 0) for path, size in last.found.caches.items()}
    cache = max(caches, key=caches.get, default=None)
    readings = (first, middle, last), [_by_line(reading.alive) if reading else {} for reading in (first, middle, last)]
    for row in rows.values():
        row.bytes_per_step = _per_step(sum(row.phases.values()), steps)
        row.tensors_per_step = _per_step(row.storages_made, steps)
        row.nodes_per_step = _per_step(row.nodes_per_step, steps)
        row.phases = {phase: _per_step(n, steps) for phase, n in row.phases.items()}
        row.during_backward = row.phases.get("backward", 0) * 2 > row.bytes_per_step
        if not row.kept_in and cache is not None and caches[cache] > 0:  # a functools cache's entries: only its
            row.kept_in = cache                                          # size is readable, and it grew
            row.holder = f"{cache} (a functools cache: +{caches[cache]} entries since the warm-up)"
        row.bounded = _bounded(row, readings, born, steps)
    _one_voice(rows.values())
    graphs_grow = {row.kept_in for row in rows.values() if row.nodes_per_step}
    by_holder = {}  # one fix per holder: the rows it keeps read the same advice
    for row in sorted(rows.values(), key=lambda row: (bool(row.bounded), -row.nodes_per_step, -row.bytes_per_step)):
        key = (row.kept_in, bool(row.bounded)) if row.kept_in else id(row)  # a leak's fix first: bounded rows it
        if key not in by_holder:                                             # keeps share it
            by_holder[key] = remedy(row, last, step_code, row.kept_in in graphs_grow)
        row.remedy = by_holder[key]
        row.fix = row.remedy.text
        if not row.holder:
            row.holder = f"holder not found within {last.found.visited} objects"
    ranked = sorted(rows.values(), key=lambda row: (row.bytes_per_step, row.nodes_per_step), reverse=True)
    changes = [b - a for a, b in zip(rss, rss[1:])]
    uncounted = {kind: n - first.uncounted.get(kind, 0) for kind, n in last.uncounted.items()
                 if n > first.uncounted.get(kind, 0)}
    return LeakReport([row for row in ranked if not row.bounded], steps, warmup, (rss[-1] - rss[0]) / steps,
                      _per_step(last.live - first.live, steps), _per_step(nodes_grown, steps),
                      [row for row in ranked if row.bounded], (min(changes), max(changes)), uncounted)


def _hook_rows(rows, first, last, steps):
    """Hooks a step registers every time: the module's hook dict grows (what they keep is kept by it)."""
    for path, (size, code, line, _) in last.found.hooks.items():
        grown = size - first.found.hooks.get(path, (0,))[0]
        if grown <= 0:
            continue
        row = next((row for row in rows.values() if row.kept_in == path), None)
        if row is None:
            row = rows[path] = LeakRow((code, line), 0, steps=steps, holder=path, kept_in=path,
                                       holder_note=last.found.holders[path].note if path in last.found.holders else "")
        row.hooks_per_step = _per_step(grown, steps)
        row.holder = f"{path} (+{grown} hooks since the warm-up)"


def _bounded(row, readings, born, steps):
    """Why a row is bounded growth and not a leak ("" for a leak)."""
    (first, middle, last), by_line = readings
    if row.kept_in in last.found.optimizer_states:  # torch's own optimizers: their state is bounded by their settings
        return "optimizer state, bounded"
    if row.phases and set(row.phases) == {"optimizer"}:
        return "made inside optimizer.step: optimizer state, bounded"
    window = _container(row.holder.split(" (")[0])
    if window in last.found.windows:
        return f"kept in {window}, a deque(maxlen={last.found.windows[window]}): bounded by its length"
    if middle is None:
        return ""
    line = row.site if not isinstance(row.site, str) and not row.hooks_per_step else None
    at_first, at_middle, at_last = (bytes_by_line.get(line, 0) for bytes_by_line in by_line)
    if row.bytes_per_step and line and len(born[line]) == 1 and at_middle <= at_first:
        return (f"made once, in step {min(born[line])} of {steps}: not every step (a tensor made late, e.g. the first "
                ".grad of a layer unfrozen after the warm-up), bounded")
    # A leak keeps what every step makes: what the first half of the steps made, and what the second half made. Per
    # quantity that grows: whether it keeps nothing the second half made (it stopped), or nothing the first half made
    # (a graph or tensor kept from one step to two). Graph nodes and hooks tell the step that made them by their
    # numbers (autograd's sequence numbers, hook handles' ids), read against the marks of the first and middle readings.
    middle_step = (steps + 1) // 2
    quantities = []  # per quantity: (it stopped, it keeps only what the second half made, each of its places one or the other)
    if row.bytes_per_step and line:
        stopped = at_last <= at_middle
        late = at_middle <= at_first and min(born[line], default=0) > middle_step
        quantities.append((stopped, late, stopped or late))
    if row.nodes_per_step:
        holder = last.found.holders.get(row.kept_in)
        places = list(holder.made.values()) if holder is not None else []
        if not places or sum(place[0] for place in places) > sum(first.nodes.values()):  # more nodes numbered before
            places = [(0, 1, 1)]  # the steps than all holders had then: the numbers tell nothing (another thread's)
        # each place the holder keeps graphs in (a list, an attribute) on its own: a list filled in the first steps
        # beside an attribute replaced every step is two bounded things, not one that keeps what both halves made
        quantities.append((all(recent == 0 for _, _, recent in places), all(early == 0 for _, early, _ in places),
                           not any(early and recent for _, early, recent in places)))
    if row.hooks_per_step:
        keys = [key for key in last.found.hooks[row.kept_in][3] if isinstance(key, int)]
        stopped = not any(key >= middle.hook_mark for key in keys)
        late = not any(first.hook_mark <= key < middle.hook_mark for key in keys)
        quantities.append((stopped, late, stopped or late))
    if not quantities or not all(bounded for _, _, bounded in quantities):
        return ""
    stopped, late, _ = zip(*quantities)
    if all(stopped):
        return "stopped growing within the steps: bounded (made once, or a window of fixed size)"
    if all(late):
        return (f"keeps only what the steps after step {middle_step} of {steps} made: not every step (a graph or "
                "tensor kept from one step to two), bounded")
    return "stopped growing within the steps, or keeps only what the last steps made: bounded (a window of fixed size)"


def _one_voice(rows):
    """A holder whose growth is a leak in one row is not "nothing to fix" in another: the bounded rows it keeps
    (bytes saved in the same graph, made once) are freed by the same fix, and say so."""
    leaking = {row.kept_in: row for row in rows if not row.bounded and row.kept_in}
    for row in rows:
        if row.bounded and row.kept_in in leaking and "optimizer" not in row.bounded:
            row.part_of = leaking[row.kept_in]


@dataclass
class _Reading:
    """Everything find_leaks compares between the end of the warm-up and the end of the steps."""

    alive: dict   # storage key -> (site, nbytes, step made)
    live: int
    nodes: dict   # holder key -> graph nodes first reached through it
    found: object
    mark: int     # autograd's sequence number when it was read: nodes made after it have larger ones
    hook_mark: int  # the id the next hook handle gets: hooks registered after it have larger ones
    uncounted: dict  # kind -> tensors alive that the meter cannot count exactly

    @classmethod
    def now(cls, meter, step, namespaces, max_objects, max_nodes, saved, marks=None):
        reading = cls.between(meter)
        reading.found = search(roots_of(step, namespaces), max_objects, max_nodes, saved=saved, marks=marks)
        reading.nodes = {key: holder.nodes for key, holder in reading.found.holders.items()}
        return reading

    @classmethod
    def between(cls, meter):
        """What the meter and the counters read, without a search for holders."""
        gc.collect()
        return cls(meter.alive(), meter.bytes, {}, None, internals.sequence_number(), internals.hook_number(),
                   meter.uncounted)
