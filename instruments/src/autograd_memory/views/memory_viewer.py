"""An offline memory viewer for any memory snapshot: one self-contained HTML page that opens from disk with no network.

It draws the snapshot's **Active Memory Timeline**, the view pytorch.org/memory_viz opens at: each allocation a band
from its alloc to its free, stacked, over the allocator's events, with the peak marked; hovering a band shows its
size and the Python stack that made it; a selector picks the device where the snapshot has several. The page is
the project's own script (``memory_viewer.js``) and d3 5.16.0 (vendored in ``vendor/`` with its license), inlined,
with the snapshot embedded as JSON. A snapshot is ``torch.cuda.memory._snapshot()``'s dict, or a
:class:`~autograd_memory.Timeline`'s (``timeline(step).to_snapshot()``); :func:`save_snapshot` writes the file that
pytorch.org/memory_viz opens, for its other views.

>>> from autograd_memory.formats.memory_snapshot import memory_snapshot
>>> page = viewer_html(memory_snapshot([("alloc", 0, 4096, 1000, [("train.py", 4, "step")])]))
>>> page.startswith("<!DOCTYPE html>"), "<script src" in page    # everything it draws with is inside it
(True, False)
"""
import html
import json
import pickle
from pathlib import Path

__all__ = ["viewer_html", "save_viewer", "viewer_frame", "ViewerFrame", "save_snapshot", "SCRIPTS"]

HERE = Path(__file__).parent
SCRIPTS = (HERE / "vendor" / "d3.min.js", HERE / "memory_viewer.js")  # inlined in this order: the viewer uses d3
PICKLE_PROTOCOL = 4  # pytorch.org/memory_viz's unpickler reads protocols 2 to 4 (Python 3.14 writes 5 by default)
STYLE = """
body { margin: 0; font: 14px system-ui, sans-serif; display: flex; flex-direction: column; height: 100vh; }
header { padding: 6px 12px 0; }
h1 { font-size: 18px; margin: 0; }
#summary, #devices { font-size: 14px; color: #333; }
#plot { flex: 1; min-height: 200px; width: 100%; }
.axis text { font-size: 13px; }
.label { font-size: 14px; fill: #222; }
path.band { stroke: #fff; stroke-width: 0.3; cursor: pointer; }
path.band.selected { stroke: #000; stroke-width: 1.5; }
line.peak { stroke: #c00; stroke-dasharray: 6 4; stroke-width: 1.5; }
circle.peak { fill: #c00; }
.peak-label { font-size: 14px; font-weight: bold; fill: #c00; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
#detail { margin: 0; padding: 6px 12px; height: min(11em, 25vh); overflow: auto; font: 13px/1.35 monospace;
          border-top: 1px solid #ccc; background: #fafafa; white-space: pre; }
"""


def _script(path):
    text = path.read_text(encoding="utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise ValueError(f"{path.name} holds '</script' or '<!--': it cannot be inlined in a <script> as it is")
    return text


def _check(snapshot):
    if not (isinstance(snapshot, dict) and "segments" in snapshot and "device_traces" in snapshot):
        raise TypeError("a memory snapshot is a dict with 'segments' and 'device_traces', as torch.cuda.memory._snapshot()"
                        f" returns or Timeline.to_snapshot() makes; got {type(snapshot).__name__}")


def viewer_html(snapshot, title="Memory snapshot"):
    """The page (a ``str``) that draws ``snapshot``'s Active Memory Timeline, with no network."""
    _check(snapshot)
    data = json.dumps(snapshot, default=str).replace("<", "\\u003c")  # JSON still; nothing in it ends its <script>
    scripts = "".join(f"<script>\n{_script(path)}\n</script>\n" for path in SCRIPTS)
    return (f"<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{html.escape(title)}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n<header><h1>{html.escape(title)}: Active Memory Timeline</h1>\n"
            "<div id=\"summary\"></div>\n<label id=\"devices\" hidden>device <select id=\"device\"></select></label>"
            "</header>\n<svg id=\"plot\"></svg>\n"
            "<pre id=\"detail\">Hover a band for its size and the stack that allocated it; click to keep it.</pre>\n"
            f"<script type=\"application/json\" id=\"snapshot\">{data}</script>\n{scripts}</body>\n</html>\n")


def save_viewer(snapshot, path, title="Memory snapshot"):
    """Write :func:`viewer_html` to ``path`` (a ``.html`` file); returns the path."""
    path = Path(path)
    path.write_text(viewer_html(snapshot, title), encoding="utf-8")
    return path


def save_snapshot(snapshot, path):
    """Pickle ``snapshot`` to ``path``, as ``torch.cuda.memory._dump_snapshot`` does (protocol 4, which
    pytorch.org/memory_viz reads): a file to drop on that page or to read with ``python -m torch.cuda._memory_viz``."""
    _check(snapshot)
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
                'title="Active Memory Timeline"></iframe>')

    def __repr__(self):
        return f"the Active Memory Timeline of a memory snapshot, a page of {len(self.page) // 1000} kB: a notebook shows it"


def viewer_frame(snapshot, height=480, title="Memory snapshot"):
    """``snapshot`` in the viewer, for a notebook's display (:class:`ViewerFrame`)."""
    return ViewerFrame(viewer_html(snapshot, title), height)
