"""PyTorch's memory viewer for any memory snapshot, as one self-contained HTML page that opens from disk with no network.

The page is the one pytorch.org/memory_viz runs: PyTorch's ``MemoryViz.js`` and the d3 build it imports, both
vendored in ``vendor/`` (versions and hashes in ``vendor/README.md``) and inlined, with the snapshot embedded as
``torch.cuda._memory_viz.trace_plot`` embeds it (pickled, base64). ``trace_plot``'s page loads both scripts from two
CDNs; this one loads nothing. A snapshot is ``torch.cuda.memory._snapshot()``'s dict, or a
:class:`~autograd_memory.Timeline`'s (``timeline(step).to_snapshot()``).

>>> from autograd_memory.formats.memory_snapshot import memory_snapshot
>>> page = viewer_html(memory_snapshot([("alloc", 0, 4096, 1000, [("train.py", 4, "step")])]))
>>> page.startswith("<!DOCTYPE html>"), 'from "https://' in page    # MemoryViz.js's CDN imports are gone
(True, False)
"""
import base64
import html
import json
import pickle
from pathlib import Path

__all__ = ["viewer_html", "save_viewer", "viewer_frame", "ViewerFrame", "save_snapshot", "VIEWS", "VENDOR", "IMPORTS"]

VENDOR = Path(__file__).parent / "vendor"
VIEWS = ("Active Memory Timeline", "Allocator State History", "Active Cached Segment Timeline")  # MemoryViz.js's
# MemoryViz.js's import lines, each with what replaces it: the same names, from the inlined d3 5 bundle (window.d3)
IMPORTS = {
    'import * as d3 from "https://cdn.skypack.dev/d3@5";': "const d3 = window.d3;",
    'import {axisLeft} from "https://cdn.skypack.dev/d3-axis@1";': "const {axisLeft} = window.d3;",
    'import {scaleLinear} from "https://cdn.skypack.dev/d3-scale@1";': "const {scaleLinear} = window.d3;",
    'import {zoom, zoomIdentity} from "https://cdn.skypack.dev/d3-zoom@1";': "const {zoom, zoomIdentity} = window.d3;",
    'import {brushX} from "https://cdn.skypack.dev/d3-brush@1";': "const {brushX} = window.d3;",
}
PICKLE_PROTOCOL = 4  # MemoryViz.js's unpickler reads protocols 2 to 4 (Python 3.14 writes 5 by default)


def _script(name):
    text = (VENDOR / name).read_text(encoding="utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise ValueError(f"vendor/{name} holds '</script' or '<!--': it cannot be inlined in a <script> as it is")
    return text


def _memory_viz():
    """MemoryViz.js with its CDN imports replaced by the inlined d3's names, and nothing else changed."""
    text = _script("MemoryViz.js")
    for line, replacement in IMPORTS.items():
        if text.count(line) != 1:
            raise ValueError(f"vendor/MemoryViz.js no longer has the line {line!r}: update memory_viewer.IMPORTS "
                             "to the imports of the vendored version (see vendor/README.md)")
        text = text.replace(line, replacement)
    if any(line.startswith("import ") for line in text.splitlines()):
        raise ValueError("vendor/MemoryViz.js imports more than memory_viewer.IMPORTS replaces: update IMPORTS")
    return text


def _check(snapshot, view):
    if not (isinstance(snapshot, dict) and "segments" in snapshot and "device_traces" in snapshot):
        raise TypeError("a memory snapshot is a dict with 'segments' and 'device_traces', as torch.cuda.memory._snapshot()"
                        f" returns or Timeline.to_snapshot() makes; got {type(snapshot).__name__}")
    if view not in VIEWS:
        raise ValueError(f"view is one of {', '.join(map(repr, VIEWS))}; got {view!r}")


def viewer_html(snapshot, view=VIEWS[0], title="Memory snapshot"):
    """The page (a ``str``) that shows ``snapshot`` in PyTorch's viewer, opened at ``view``, with no network."""
    _check(snapshot, view)
    buffer = pickle.dumps(snapshot, protocol=PICKLE_PROTOCOL)
    buffer += b"\x00" * (-len(buffer) % 3)  # MemoryViz.js decodes base64 without padding
    files = json.dumps([{"name": "snapshot.pickle", "base64": base64.b64encode(buffer).decode("ascii")}])
    return (f"<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{html.escape(title)}</title>\n"
            f"<script>\n{_script('d3.min.js')}\n</script>\n</head>\n<body>\n<script type=\"module\">\n"
            f"{_memory_viz()}\nadd_local_files({files}, {json.dumps(view)});\n</script>\n</body>\n</html>\n")


def save_viewer(snapshot, path, view=VIEWS[0], title="Memory snapshot"):
    """Write :func:`viewer_html` to ``path`` (a ``.html`` file); returns the path."""
    path = Path(path)
    path.write_text(viewer_html(snapshot, view, title), encoding="utf-8")
    return path


def save_snapshot(snapshot, path):
    """Pickle ``snapshot`` to ``path``, as ``torch.cuda.memory._dump_snapshot`` does (protocol 4, which the viewer
    reads): a file to drop on pytorch.org/memory_viz or to read with ``python -m torch.cuda._memory_viz``."""
    _check(snapshot, VIEWS[0])
    path = Path(path)
    path.write_bytes(pickle.dumps(snapshot, protocol=PICKLE_PROTOCOL))
    return path


class ViewerFrame:
    """The viewer inline in a notebook: an ``<iframe>`` whose page is its ``srcdoc``, so it needs no file and no server.

    >>> from autograd_memory.formats.memory_snapshot import memory_snapshot
    >>> frame = viewer_frame(memory_snapshot([("alloc", 0, 4096, 1000, [])]), height=300)
    >>> frame._repr_html_().startswith('<iframe class="amlab-memory-viewer" srcdoc="&lt;!DOCTYPE html&gt;')
    True
    """

    def __init__(self, page, height):
        self.page, self.height = page, int(height)

    def _repr_html_(self):
        return (f'<iframe class="amlab-memory-viewer" srcdoc="{html.escape(self.page, quote=True)}" '
                f'style="width: 100%; height: {self.height}px; border: 1px solid #ccc" '
                'title="PyTorch memory viewer"></iframe>')

    def __repr__(self):
        return f"PyTorch's memory viewer, a page of {len(self.page) // 1000} kB: a notebook shows it"


def viewer_frame(snapshot, view=VIEWS[0], height=480):
    """``snapshot`` in the viewer, for a notebook's display (:class:`ViewerFrame`)."""
    return ViewerFrame(viewer_html(snapshot, view), height)
