"""PyTorch's memory snapshot format, from any recorded list of allocations and frees: the dict that
``torch.cuda.memory._snapshot()`` returns and that pytorch.org/memory_viz (and ``torch.cuda._memory_viz``) reads.

A snapshot holds ``device_traces``, one list per device index of the allocator's actions in order, each
``{"action", "addr", "size", "stream", "frames"}`` (``frames``: ``{"filename", "line", "name"}``, innermost first), and
``segments``, the memory held when it was taken, each ``{"device", "address", "total_size", "allocated_size",
"active_size", "requested_size", "stream", "segment_type", "frames", "blocks"}`` with its blocks ``{"address", "size",
"requested_size", "state", "frames"}``.

The layout for memory that has no caching allocator (a CPU's): **one segment per allocation**, exactly its size, made
by a ``segment_alloc`` just before its ``alloc`` and returned by a ``segment_free`` just after its ``free_completed``
(which follows its ``free_requested``). So reserved equals allocated at every event, as it does for a CPU, and every
view of the viewer replays it. Blocks alive before the recording started have no ``alloc``: those still alive are in
``segments`` with no frames (the viewer says "allocated before _record_history was enabled"), as in a CUDA snapshot.

>>> frames = [("train.py", 4, "step")]
>>> snapshot = memory_snapshot([("alloc", 0, 4096, 1000, frames), ("alloc", 0, 8192, 24, frames),
...                             ("free", 0, 4096, 1000, frames)], alive_before=[(0, 65536, 400)])
>>> [event["action"] for event in snapshot["device_traces"][0]][:4]
['segment_alloc', 'alloc', 'segment_alloc', 'alloc']
>>> [(segment["address"], segment["total_size"]) for segment in snapshot["segments"]]
[(8192, 24), (65536, 400)]
>>> active_peak(snapshot)
1424
"""
__all__ = ["memory_snapshot", "active_peak", "SMALL_SEGMENT"]

SMALL_SEGMENT = 1 << 20  # CUDA's allocator keeps blocks up to 1 MiB in its "small" pool: the segment_type it reports


def _frames(frames):
    return [{"filename": filename, "line": line, "name": name} for filename, line, name in frames]


def _event(action, addr, size, frames):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "frames": frames}


def _segment(device, addr, size, frames):
    block = {"address": addr, "size": size, "requested_size": size, "state": "active_allocated", "frames": frames}
    return {"device": device, "address": addr, "total_size": size, "allocated_size": size, "active_size": size,
            "requested_size": size, "stream": 0, "segment_type": "small" if size <= SMALL_SEGMENT else "large",
            "frames": frames, "blocks": [block]}


def memory_snapshot(events, alive_before=(), devices=None):
    """A snapshot (see the module) of ``events``, ``(action, device, addr, size, frames)`` in order, ``action``
    ``"alloc"`` or ``"free"``, ``device`` an index, ``frames`` ``(filename, line, function name)`` innermost first;
    ``alive_before``: ``(device, addr, size)`` of the blocks alive before the first event. ``devices``: how many
    device traces (default: one past the highest device index seen). Each block is its own segment.

    A block's ``addr`` is where it starts: two live blocks of one device never share it (an ``alloc`` at a live
    address is an error, and so is a ``free`` of an address that is not live).
    """
    live = {(device, addr): (size, []) for device, addr, size in alive_before}
    traces = {}
    for action, device, addr, size, frames in events:
        trace = traces.setdefault(device, [])
        if action == "alloc":
            if (device, addr) in live:
                raise ValueError(f"alloc at {addr:#x} on device {device}, where a live block already starts")
            frames = _frames(frames)
            live[device, addr] = size, frames
            trace += [_event("segment_alloc", addr, size, frames), _event("alloc", addr, size, frames)]
        elif action == "free":
            if (device, addr) not in live:
                raise ValueError(f"free of {addr:#x} on device {device}, where no live block starts")
            size, frames = live.pop((device, addr))
            trace += [_event(step, addr, size, frames) for step in ("free_requested", "free_completed", "segment_free")]
        else:
            raise ValueError(f"an event's action is 'alloc' or 'free', not {action!r}")
    used = {device for device, _ in live} | set(traces)
    count = devices if devices is not None else max(used, default=-1) + 1
    return {"device_traces": [traces.get(device, []) for device in range(count)],
            "segments": [_segment(device, addr, size, frames) for (device, addr), (size, frames) in sorted(live.items())]}


def active_peak(snapshot, device=0):
    """The most bytes allocated at once on ``device``: what was alive before its trace (blocks freed with no
    ``alloc`` in it, and blocks in ``segments`` with none), then each ``alloc`` and ``free_completed`` in order.
    The highest point of the viewer's Active Memory Timeline."""
    trace, live, before = snapshot["device_traces"][device], set(), 0
    for event in trace:
        if event["action"] == "alloc":
            live.add(event["addr"])
        elif event["action"] == "free_completed":
            if event["addr"] in live:
                live.remove(event["addr"])
            else:
                before += event["size"]
    before += sum(block["size"] for segment in snapshot["segments"] if segment["device"] == device
                  for block in segment["blocks"] if block["state"] == "active_allocated" and block["address"] not in live)
    now = peak = before
    for event in trace:
        if event["action"] == "alloc":
            now += event["size"]
            peak = max(peak, now)
        elif event["action"] == "free_completed":
            now -= event["size"]
    return peak
