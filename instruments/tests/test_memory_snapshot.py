"""A step's memory snapshot: PyTorch's format, read back by PyTorch's own readers, shown by the offline viewer.

The snapshot of a training step (``timeline(...).to_snapshot()``) agrees with the timeline (its allocations, its peak,
what is alive at the end), and round-trips through ``torch.cuda._memory_viz``: the readers that take a snapshot
(``segsum``, ``trace``, ``segments``, ``memory``, ``compare``, ``filter_alloc_free_pairs``, ``trace_plot`` and
``segment_plot``, whose pages embed it) and its command line (``stats``, ``trace``), which reads the pickled file.
The browser half (the page drawn in chromium, with no network) is tests/browser/test_memory_viewer.py.
"""
import base64
import contextlib
import hashlib
import io
import json
import os
import pickle
import re
import subprocess
import sys

import pytest
import torch
from torch.cuda import _memory_viz

import autograd_memory
from autograd_memory import timeline
from autograd_memory.formats.memory_snapshot import active_peak, memory_snapshot
from autograd_memory.views.memory_viewer import SCRIPTS, save_viewer, viewer_frame, viewer_html

VENDOR = SCRIPTS[0].parent


def no_flamegraph(lines):
    """The flamegraph's input: torch's readers hand it to flamegraph.pl, which they would download."""
    return lines


def embedded(page):
    """The snapshot a viewer page holds."""
    [data] = re.findall(r'<script type="application/json" id="snapshot">(.*?)</script>', page, flags=re.S)
    return json.loads(data)


def device_index(device):
    return torch.device(device).index or 0 if torch.device(device).type == "cuda" else torch.cuda.device_count()


def test_a_steps_snapshot_agrees_with_its_timeline(device, adam_step):
    model, optimizer, step = adam_step()
    memory = timeline(step, model, optimizer)
    snapshot = memory.to_snapshot()
    trace = snapshot["device_traces"][device_index(device)]
    allocs = [event for event in trace if event["action"] == "alloc"]
    assert len(allocs) == memory.allocations > 10
    assert active_peak(snapshot, device_index(device)) == memory.peak, "the viewer's highest point is the timeline's peak"
    alive = [segment for segment in snapshot["segments"] if segment["device"] == device_index(device)]
    assert sum(segment["allocated_size"] for segment in alive) == memory.total[-1], "segments: what is alive at the end"
    assert all(len(segment["blocks"]) == 1 and segment["total_size"] == segment["blocks"][0]["size"] for segment in alive)
    for event in trace:
        assert set(event) == {"action", "addr", "size", "stream", "frames"}, event
        assert all(set(frame) == {"filename", "line", "name"} for frame in event["frames"])
    actions = [event["action"] for event in trace]
    assert actions.count("segment_alloc") == actions.count("alloc")
    assert actions.count("free_requested") == actions.count("free_completed") == actions.count("segment_free")


def test_an_allocations_first_frame_is_the_line_that_made_it():
    def step():
        return torch.ones(1000).exp()          # the line each of its two allocations names first

    snapshot = timeline(step).to_snapshot()
    line = step.__code__.co_firstlineno + 1
    firsts = [event["frames"][0] for event in snapshot["device_traces"][-1] if event["action"] == "alloc"]
    assert firsts == [{"filename": __file__, "line": line, "name": "step"}] * 2, firsts
    instruments = os.path.dirname(autograd_memory.__file__)
    assert not [frame for event in snapshot["device_traces"][-1] for frame in event["frames"]
                if frame["filename"].startswith(instruments)], "the instruments' own frames are left out"


def test_storages_alive_before_the_step_have_no_alloc_and_a_grown_storage_is_freed_and_allocated_anew():
    model = torch.nn.Linear(2, 2)
    model(torch.ones(1, 2)).sum().backward()      # .grads alive before the step

    def step():
        model.zero_grad()                        # frees them
        grown = torch.zeros(4)
        grown.resize_(1000)                      # a new, larger block
        torch.empty(0)                           # no memory: nothing to draw

    memory = timeline(step, model)
    assert (memory.alive_at_start, memory.allocations) == (4, 2)
    trace = memory.to_snapshot()["device_traces"][-1]
    shown = [(event["action"], event["size"]) for event in trace if event["action"] in ("alloc", "free_completed")]
    assert sorted(shown[:2]) == [("free_completed", 8), ("free_completed", 16)], "the .grads: freed, never allocated"
    assert shown[2:5] == [("alloc", 16), ("free_completed", 16), ("alloc", 4000)], shown


def test_the_snapshot_round_trips_through_pytorchs_own_readers(tmp_path, device, adam_step):
    model, optimizer, step = adam_step()
    memory = timeline(step, model, optimizer)
    path = memory.save_snapshot(tmp_path / "step.pickle")
    assert path.read_bytes()[:2] == b"\x80\x04", "pickle protocol 4: pytorch.org/memory_viz's reader takes 2 to 4"
    snapshot = pickle.loads(path.read_bytes())
    assert snapshot == memory.to_snapshot()
    summary = _memory_viz.segsum(snapshot)   # it asserts that every segment's blocks add up, and the totals too
    assert f"segments: {len(snapshot['segments'])}" in summary
    assert "entries" in _memory_viz.trace(snapshot) and "TOTAL MEM" in _memory_viz.trace(snapshot)
    sizes = sum(segment["total_size"] for segment in snapshot["segments"])
    for lines in (_memory_viz.segments(snapshot, no_flamegraph), _memory_viz.memory(snapshot, no_flamegraph)):
        assert sum(int(line.rsplit(" ", 1)[1]) for line in lines.splitlines()) == sizes, "every byte in a block"
    with contextlib.redirect_stdout(io.StringIO()):
        assert _memory_viz.compare(snapshot["segments"], snapshot["segments"], no_flamegraph) == ""
    paired = _memory_viz.filter_alloc_free_pairs(pickle.loads(path.read_bytes()))
    assert sum(event["action"] == "alloc" for trace in paired["device_traces"] for event in trace) == sum(
        1 for segment in snapshot["segments"] if segment["frames"]), "unpaired: what the step made that stays alive"
    for page in (_memory_viz.trace_plot(snapshot), _memory_viz.segment_plot(snapshot)):
        [encoded] = re.findall(r'"base64": "([^"]+)"', page)
        assert pickle.loads(base64.b64decode(encoded)) == snapshot, "torch's pages embed it whole"


@pytest.mark.slow
def test_torchs_command_line_reads_the_saved_snapshot(tmp_path):
    kept = []
    path = timeline(lambda: kept.append(torch.ones(256))).save_snapshot(tmp_path / "step.pickle")
    shown = {command: subprocess.run([sys.executable, "-m", "torch.cuda._memory_viz", command, str(path)],
                                     capture_output=True, text=True, check=True).stdout for command in ("stats", "trace")}
    assert "segments: 1" in shown["stats"] and "total_allocated: 1.0KiB" in shown["stats"], shown["stats"]
    assert "cudaMalloc(" in shown["trace"] and "TOTAL MEM: 1.0KiB" in shown["trace"], shown["trace"]


def test_the_viewer_page_inlines_its_scripts_embeds_the_snapshot_and_loads_nothing(tmp_path, adam_step):
    memory = timeline(adam_step()[2])
    page = save_viewer(memory.to_snapshot(), tmp_path / "step.html").read_text()
    assert all(path.read_text() in page for path in SCRIPTS)
    assert not re.search(r"""(import|from|src=|href=)\s*["']?https?:""", page), "the page names nothing to load"
    assert embedded(page) == memory.to_snapshot()
    assert memory.save_html(tmp_path / "again.html").read_text().count('id="snapshot"') == 1
    assert "srcdoc=" in memory.viewer()._repr_html_() and "Active Memory Timeline" in repr(viewer_frame(memory.to_snapshot()))


def test_a_frame_that_reads_like_html_stays_data():
    frames = [("</script><script>alert(1)</script><!--", 1, "step")]
    page = viewer_html(memory_snapshot([("alloc", 0, 64, 4, frames)]))
    assert page.count("</script>") == len(SCRIPTS) + 1, "only the page's own scripts end"
    assert embedded(page)["device_traces"][0][0]["frames"][0]["filename"] == frames[0][0]


def test_the_vendored_files_are_the_ones_their_readme_names():
    table = (VENDOR / "README.md").read_text()
    assert sorted(path.name for path in VENDOR.iterdir()) == ["README.md", "d3.LICENSE", "d3.min.js"]
    for name in ("d3.min.js", "d3.LICENSE"):
        digest = hashlib.sha256((VENDOR / name).read_bytes()).hexdigest()
        assert re.search(rf"^\| `{re.escape(name)}` \|.*`{digest}` \|$", table, flags=re.M), f"{name}: {digest}"
    assert (VENDOR / "d3.min.js").read_text().startswith("// https://d3js.org v5.16.0 "), "the version the README names"


def test_bad_input_says_what_to_pass():
    with pytest.raises(TypeError, match=r"a dict with 'segments' and 'device_traces'.*Timeline.to_snapshot"):
        viewer_html([1, 2])
    with pytest.raises(ValueError, match="where a live block already starts"):
        memory_snapshot([("alloc", 0, 64, 4, []), ("alloc", 0, 64, 4, [])])
    with pytest.raises(ValueError, match="where no live block starts"):
        memory_snapshot([("free", 0, 64, 4, [])])


def test_a_cuda_allocator_snapshot_goes_through_the_same_viewer():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the allocator's own snapshot exists only on CUDA (make gpu-check runs this)")
    torch.cuda.memory._record_memory_history(max_entries=10_000)
    try:
        weights = torch.ones(1000, device="cuda", requires_grad=True)
        weights.exp().sum().backward()
        snapshot = torch.cuda.memory._snapshot()
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    shown = embedded(viewer_html(snapshot))
    assert [len(trace) for trace in shown["device_traces"]] == [len(trace) for trace in snapshot["device_traces"]]
    assert any(event["action"] == "alloc" for trace in shown["device_traces"] for event in trace)
