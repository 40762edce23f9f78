"""%load_ext autograd_memory in a real kernel, run through nbclient: %%find_leaks, %%timeline, %memory."""
import pytest

nbformat = pytest.importorskip("nbformat", reason="needs Jupyter (nbformat, nbclient, ipykernel)")
nbclient = pytest.importorskip("nbclient", reason="needs Jupyter (nbformat, nbclient, ipykernel)")

CELLS = [
    "%load_ext autograd_memory\nimport torch\nw = torch.ones(100, requires_grad=True)\nkept = []",
    "%%find_leaks --steps 3\ny = w * 2\nkept.append(y)",
    "%%find_leaks\n(w * 2).sum().backward()\nw.grad = None",
    "%%timeline\nloss = w.exp().sum()\nloss.backward()",
    "%memory",
    "%%find_leaks --steps\npass",
    "%%find_leaks --steps 3 --snapshot leaky_step.html\ny = w * 2\nkept.append(y)",
    "%%timeline --snapshot step.pickle\nloss = w.exp().sum()\nloss.backward()",
    "%%timeline --snapshot step.txt\npass",
]


def _text(cell):
    return "".join(output.get("text", "") + output.get("data", {}).get("text/plain", "") + output.get("evalue", "")
                   for output in cell.outputs)


@pytest.mark.slow
def test_the_magics_in_a_real_kernel(tmp_path):
    import pickle

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    nbclient.NotebookClient(notebook, kernel_name="python3", timeout=120, allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    leaky, flat, timeline, memory, usage, viewer, snapshot, wrong_file = (_text(cell) for cell in notebook.cells[1:])
    assert "+400 B/step in 1 tensor/step" in leaky and "made at cell [2], line 2: y = w * 2" in leaky, leaky
    assert "flat: nothing grows from step to step" in flat, flat
    assert timeline.startswith("timeline of ") and "cell [4], line 3: loss.backward()" in timeline, timeline
    assert "process RSS (OS view)" in memory and "tensors Python objects hold" in memory, memory
    assert "usage: %%find_leaks" in usage, usage
    assert len(notebook.cells[1].outputs) == 1, "one report, shown once"
    page = (tmp_path / "leaky_step.html").read_text()
    assert "leaky_step.html: the Active Memory Timeline, offline, of one step: allocations 1, peak " in viewer, viewer
    assert "+400 B/step in 1 tensor/step" in viewer and 'id="snapshot"' in page, viewer
    allocation = next(event for event in pickle.loads((tmp_path / "step.pickle").read_bytes())["device_traces"][0]
                      if event["action"] == "alloc")  # the step's first: w.exp()
    assert allocation["size"] == 400, allocation
    assert allocation["frames"][0] == {"filename": "cell [8]", "line": 2, "name": "<module>"}, allocation["frames"]
    assert "step.pickle: the memory snapshot, for pytorch.org/memory_viz, of one step: allocations " in snapshot, snapshot
    assert "--snapshot step.txt: name a .html file" in wrong_file, wrong_file
