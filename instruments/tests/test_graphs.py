"""Graph views: hand-checked node counts and saved bytes, agreement with GraphMemory, pictures and fallbacks."""
import importlib.util
import re

import pytest
import torch

from autograd_memory import GraphMemory, Kind
from autograd_memory.formats.display_settings import MIN_PX, use_large
from autograd_memory.views.graphs import NoGraphError, graph_table, lifecycle, show_graph
from autograd_memory.views.zoom import zoomable, zoomable_html

needs_graphviz = pytest.mark.skipif(importlib.util.find_spec("graphviz") is None, reason="the `graphs` extra")

N = 1000  # float32: 4,000 bytes per tensor of N elements


@pytest.fixture
def x():
    return torch.ones(N, requires_grad=True)


def ops(table):
    return [node.op for node in table.nodes]


def test_exp_saves_its_result(x):
    table = graph_table(x.exp().sum())
    assert ops(table) == ["SumBackward0", "ExpBackward0", "AccumulateGrad"]
    assert (table.node_count, table.leaf_count) == (3, 1)
    assert table.total_bytes == 4 * N
    assert table.by_kind == {"parameters": 0, "inputs": 0, "activations": 4 * N}
    [slot] = table.nodes[1].saved
    assert (slot.name, slot.shape, slot.dtype, slot.nbytes, slot.state) == ("result", (N,), "torch.float32", 4 * N, "alive")


def test_sin_saves_its_input(x):
    table = graph_table(x.sin().sum())
    assert table.node_count == 3
    assert [slot.name for slot in table.nodes[1].saved] == ["self"]
    assert table.total_bytes == 4 * N and table.by_kind["inputs"] == 4 * N


def test_a_storage_saved_by_two_nodes_counts_once(x):
    # sin saves x; mul saves sin(x) and x again: two storages of 4 kB, three slots.
    table = graph_table((x.sin() * x).sum())
    assert ops(table) == ["SumBackward0", "MulBackward0", "SinBackward0", "AccumulateGrad"]
    mul, sin = table.nodes[1], table.nodes[2]
    assert (mul.nbytes, sin.nbytes) == (8 * N, 4 * N)
    assert table.total_bytes == 8 * N
    assert [slot.counted for slot in sin.saved] == [False]  # x was counted at the mul node already


def test_x_times_x_saves_one_storage(x):
    table = graph_table((x * x).sum())
    assert table.node_count == 3 and table.total_bytes == 4 * N


def test_linear_saves_only_what_the_gradients_need():
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 4)
    data = torch.randn(5, 3)  # no requires_grad: addmm need not save the weight
    table = graph_table(layer(data).tanh().sum(), params=dict(layer.named_parameters()))
    assert ops(table) == ["SumBackward0", "TanhBackward0", "AddmmBackward0", "AccumulateGrad", "TBackward0", "AccumulateGrad"]
    assert [node.leaf for node in table.nodes if node.leaf] == ["bias (4,)", "weight (4, 3)"]
    assert table.total_bytes == 5 * 4 * 4 + 5 * 3 * 4  # tanh's result + the input (mat1)
    assert table.by_kind == {"parameters": 0, "inputs": 60, "activations": 80}


def _mlp_loss():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    inputs = torch.randn(8, 3, requires_grad=True)
    return (model, inputs), model(inputs).pow(2).mean()


def _second_derivative():
    (model, inputs), _ = _mlp_loss()
    (grad,) = torch.autograd.grad(model(inputs).sum(), inputs, create_graph=True)
    return (model, inputs), grad.pow(2).sum()


class _ExpSavingBoth(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        result = t.exp()
        ctx.save_for_backward(t, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        _, result = ctx.saved_tensors
        return grad * result


def _computations():
    x = torch.ones(N, requires_grad=True)
    rows, ones = torch.tensor([0, 5, 7]), torch.ones(10, 3)  # data that exists before the meter: inputs
    return {
        "exp": lambda: (x, x.exp().sum()),
        "sin*x": lambda: (x, (x.sin() * x).sum()),
        "mlp": _mlp_loss,
        "create_graph": _second_derivative,
        "index": lambda: (x, x[rows].sum()),
        "view of an input": lambda: (x, (x.view(10, 100).t() @ ones).sum()),
        "custom Function": lambda: (x, _ExpSavingBoth.apply(x).sum()),
    }


@pytest.mark.parametrize("name", list(_computations()))
def test_total_equals_graph_memory(name):
    compute = _computations()[name]
    with GraphMemory() as graph:
        keep, out = compute()
    hooked = graph_table(out)  # built while the meter's saved-tensor hooks were active
    _, plain = compute()  # the same computation, no meter
    assert graph.bytes > 0
    assert hooked.total_bytes == graph.bytes == graph_table(plain).total_bytes
    assert hooked.by_kind == graph.by_kind, "under the meter the table reads the meter's kinds"
    plain_kinds = graph_table(plain).by_kind
    if name == "create_graph":  # autograd.grad's seed (a 0-dim 1.0) is made inside the meter: an activation
        # there, an input for a table of a plain graph (graph_table's docstring says why)
        plain_kinds["inputs"], plain_kinds["activations"] = plain_kinds["inputs"] - 4, plain_kinds["activations"] + 4
    assert plain_kinds == graph.by_kind
    out.backward()
    assert graph.bytes == 0 and graph_table(out).total_bytes == 0


def test_backward_frees_and_the_table_says_so(x):
    loss = (x.sin() * x).sum()
    loss.backward(retain_graph=True)
    assert graph_table(loss).freed_count == 0 and graph_table(loss).total_bytes == 8 * N
    loss.backward()
    table = graph_table(loss)
    assert table.total_bytes == 0
    assert table.freed_count == 3  # mul's self and other, sin's self
    assert [node.state for node in table.nodes] == ["saves nothing", "freed", "freed", "leaf"]
    assert "freed" in str(table) and "3 saved tensors freed" in table.caption()


@needs_graphviz
def test_show_graph_draws_an_svg(x):
    view = show_graph(x.exp().sum())
    assert view.svg.startswith("<svg") and view._repr_svg_() == view.svg
    assert "ExpBackward0" in view.svg and "result [1000] 4.00 kB" in view.svg
    assert "3 nodes (1 leaf), 4.00 kB saved" in view.svg  # the caption
    assert "saved bytes per node" in view.svg  # the legend
    assert view.svg in view._repr_html_()


def smallest_label_px(svg):
    """The smallest text of a graphviz SVG, in px when the picture is drawn at its size (width in points, 96 px an
    inch; its viewBox in the drawing's units)."""
    width, view_width = re.search(r'<svg width="([\d.]+)pt".*?viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg, re.S).groups()
    smallest = min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg))
    return smallest * float(width) / float(view_width) * 96 / 72


def height_pt(svg):
    return float(re.search(r'height="([\d.]+)pt"', svg).group(1))


@needs_graphviz
def test_the_legend_is_one_row_under_the_graph(x):
    svg = show_graph(x.exp().sum()).svg
    rows = {re.search(rf'y="([\d.-]+)"[^>]*>{re.escape(text)}<', svg).group(1)
            for text in ("saved bytes per node:", "nothing saved", "&lt;= 4.00 kB", "freed by backward", "leaf")}
    assert len(rows) == 1, f"the legend's entries should share one row (one y), not add a row each: {rows}"


@needs_graphviz
def test_in_the_large_display_set_labels_are_min_px_and_the_spacing_tighter(x):
    loss = x.exp().sin().cos().sum()  # a chain: one rank per node
    notebook = show_graph(loss).svg
    use_large()
    try:
        projector = show_graph(loss).svg
    finally:
        use_large(False)
    assert smallest_label_px(notebook) == pytest.approx(10 * 96 / 72), "the notebook's pictures keep their 10 pt"
    assert smallest_label_px(projector) >= MIN_PX, f"labels of {smallest_label_px(projector):.1f} px at 1:1"
    lines = [height_pt(svg) / smallest_label_px(svg) for svg in (notebook, projector)]
    assert lines[1] < 0.75 * lines[0], f"the picture's height in label heights, notebook vs projector: {lines}"


@needs_graphviz
def test_a_graph_shows_as_html_that_a_click_enlarges(x):
    import graphviz

    view = show_graph(x.exp().sum())
    assert view._repr_html_() == zoomable_html(view.svg)
    assert view._repr_html_().startswith(f"<div class='amlab-zoomable'>{view.svg}</div><script>")
    assert f"MIN_PX = {MIN_PX};" in view._repr_html_()
    drawing = graphviz.Digraph(node_attr={"fontsize": "10"})  # what torchviz.make_dot returns
    drawing.node("leaf", "AccumulateGrad")
    picture = zoomable(drawing)
    assert picture.svg.startswith("<svg") and "AccumulateGrad" in picture.svg, "the SVG, without its XML prolog"
    assert picture._repr_html_() == zoomable_html(picture.svg)
    assert smallest_label_px(picture.svg) == pytest.approx(10 * 96 / 72, abs=0.05), "a notebook shows it at its own size"
    use_large()
    try:
        projected = zoomable(drawing)
    finally:
        use_large(False)
    assert smallest_label_px(projected.svg) == pytest.approx(MIN_PX, abs=0.05), "on a projector, drawn larger"


@needs_graphviz
def test_show_graph_marks_freed_nodes_and_names_parameters():
    (model, _), loss = _mlp_loss()
    loss.backward()
    view = show_graph(loss, params=dict(model.named_parameters()))
    assert "freed: mat1, mat2" in view.source and "dashed" in view.source
    assert "0.weight (16, 3)" in view.svg
    assert "0 B saved for backward" in view.svg


@needs_graphviz
def test_without_dot_the_fallback_has_table_source_and_hint(x, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no `dot` on PATH
    view = show_graph(x.exp().sum())
    assert view.svg is None and view._repr_svg_() is None
    assert view.source.startswith("digraph") and "ExpBackward0" in view.source
    assert view.hint.startswith("No picture") and "install graphviz" in view.hint
    page = view._repr_html_()
    assert "install graphviz" in page and "<table>" in page and "4.00 kB" in page
    assert "ExpBackward0" in str(view)


@needs_graphviz
def test_large_graphs_are_summarised(x):
    h = x
    for _ in range(20):
        h = h * 2.0  # each mul saves the python scalar as a 0-dim float64 tensor: 8 B
    view = show_graph(h.sum(), max_nodes=10)
    assert view.svg is None and view.source is None and "max_nodes=10" in view.hint
    assert "MulBackward0 x20" in str(view) and "top 10 nodes" in view._repr_html_()
    assert view.table.node_count == 22 and view.table.total_bytes == 20 * 8
    assert show_graph(h.sum()).svg is not None  # under the default limit it draws


@needs_graphviz
def test_a_derivative_has_its_own_graph(x):
    y = x.sin().sum()
    (dy_dx,) = torch.autograd.grad(y, x, create_graph=True)  # cos(x), built from saved tensors
    derivative = graph_table(dy_dx)
    assert ops(derivative) == ["MulBackward0", "CosBackward0", "AccumulateGrad"]
    assert derivative.total_bytes == 4 * N + 4  # cos saves x; mul saves the incoming gradient, a 4 B scalar expanded
    both = graph_table({"y": y, "dy/dx": dy_dx})
    assert both.node_count == 5  # x's AccumulateGrad is shared
    assert both.total_bytes == 4 * N + 4  # sin and cos save the same x
    assert "dy/dx" in show_graph({"y": y, "dy/dx": dy_dx}).source


@needs_graphviz
def test_lifecycle_snapshots(x):
    loss = x.exp().sum()
    snaps = lifecycle(loss)
    snaps.take("after forward")
    loss.backward(retain_graph=True)
    snaps.take("after backward(retain_graph=True)")
    loss.backward()
    snaps.take("after a second backward()")
    assert [view.table.total_bytes for _, view in snaps.snapshots] == [4 * N, 4 * N, 0]
    assert snaps["after a second backward()"].table.nodes[1].state == "freed"
    page = snaps._repr_html_()
    assert page.count("<svg") == 3 and "after backward(retain_graph=True)" in page
    slider = snaps.slider()  # works without a frontend
    assert slider.children[0].max == 2
    del loss
    assert snaps.take("after del loss") is None  # the snapshots held no reference to the graph
    assert "output deleted" in snaps._repr_html_()


def test_error_for_a_leaf(x):
    with pytest.raises(NoGraphError, match="is a leaf"):
        graph_table(x)


@needs_graphviz
def test_error_for_a_detached_tensor(x):
    y = x.exp()
    with pytest.raises(NoGraphError, match=r"probably detached.*ExpBackward0"):
        show_graph(y.detach())


def test_error_for_a_no_grad_result(x):
    with torch.no_grad():
        y = x.exp()
        with pytest.raises(NoGraphError, match="inside torch.no_grad"):
            graph_table(y)
    with pytest.raises(NoGraphError, match="probably computed under torch.no_grad"):
        graph_table(y)
    with torch.inference_mode():
        z = x.exp()
    with pytest.raises(NoGraphError, match="inference_mode"):
        graph_table(z)
    assert issubclass(NoGraphError, ValueError)


def test_outputs_may_be_a_list_or_dict(x):
    a, b = x.exp().sum(), x.sin().sum()
    assert graph_table([a, b]).total_bytes == 8 * N
    assert [label for label, _, _ in graph_table({"a": a, "b": b}).outputs] == ["a", "b"]
    with pytest.raises(TypeError, match="not a tensor"):
        graph_table([a, 3.0])


def test_numbers_and_empty_input_get_a_clear_error():
    loss = torch.ones(3, requires_grad=True).exp().sum()
    with pytest.raises(TypeError, match=r"\.item\(\) gives a Python number"):
        graph_table(loss.item())
    with pytest.raises(ValueError, match="no tensors given"):
        graph_table([])


def test_a_frozen_parameter_is_a_parameter_in_the_table_as_under_the_meter():
    """One rule picks the kind (Kind.of): a weight with requires_grad=False, saved as a view (Linear's weight.t()),
    is a parameter with or without GraphMemory, with or without ``params``."""
    layer, x = torch.nn.Linear(3, 2), torch.ones(4, 3, requires_grad=True)
    layer.weight.requires_grad_(False)
    with GraphMemory() as graph:
        y = layer(x).tanh().sum()
    plain = layer(x).tanh().sum()
    assert graph_table(plain).by_kind == graph_table(y).by_kind == graph.by_kind == {
        "parameters": 3 * 2 * 4, "inputs": 0, "activations": 4 * 2 * 4}
    assert all(isinstance(slot.kind, Kind) for node in graph_table(plain).nodes for slot in node.saved)
