"""course_utils.problems.integrate: the trapezoid rule's order, and the exact bytes an integral through a network costs."""
import pytest
import torch

import course_utils as cu
from autograd_memory.measuring.trace import convergence_order
from course_utils.problems.integrate import (
    EXACT_INTEGRAL,
    ScalarNet,
    activation_bytes,
    grid,
    integrand,
    trapezoid_in_chunks,
)


def test_trapezoid_error_is_second_order():
    sizes = [11, 21, 41, 81, 161]
    steps, errors = [], []
    for points in sizes:
        x = grid(points, dtype=torch.float64)
        steps.append((x[1] - x[0]).item())
        errors.append(abs(torch.trapezoid(integrand(x), x).item() - EXACT_INTEGRAL))
    assert 1.95 < convergence_order(steps, errors) < 2.05


@pytest.mark.parametrize("points,width,hidden_layers", [(1000, 16, 1), (1000, 16, 2), (3000, 32, 2)])
def test_graph_saves_one_tanh_output_per_hidden_layer(points, width, hidden_layers):
    net, x = ScalarNet(width, hidden_layers), grid(points)
    with cu.GraphMemory() as graph:
        value = torch.trapezoid(net(x), x)
    # the tanh outputs, and the spacing diff(x) trapezoid computes inside the meter and saves for its product
    assert activation_bytes(points, width, hidden_layers) == 4 * points * width * hidden_layers
    assert graph.by_kind["activations"] == activation_bytes(points, width, hidden_layers) + 4 * (points - 1)
    # the nodes x (unsqueezed for the first Linear): they existed before the meter
    assert graph.by_kind["inputs"] == 4 * points
    del value
    assert graph.bytes == 0


def test_no_grad_saves_nothing_but_peaks_at_two_layers_of_activations():
    points, width = 1000, 16
    net, x = ScalarNet(width, hidden_layers=2), grid(points)
    with cu.LiveTensors() as live:
        value = torch.trapezoid(net(x), x)
    with_grad_peak = live.peak
    del value
    with torch.no_grad(), cu.LiveTensors() as live, cu.GraphMemory() as graph:
        torch.trapezoid(net(x), x)
    assert graph.peak == 0
    # with grad: two saved tanh outputs + the next layer's pre-activation; without: one layer's input and output
    assert with_grad_peak == 3 * 4 * points * width
    assert live.peak == 2 * 4 * points * width


@pytest.mark.parametrize("chunk", [1, 7, 100, 999, 5000])
def test_chunks_give_the_full_integral(chunk):
    x = grid(1000, dtype=torch.float64)
    assert torch.allclose(trapezoid_in_chunks(integrand, x, chunk), torch.trapezoid(integrand(x), x))


def test_chunked_peak_is_one_chunk_of_activations():
    width, chunk = 16, 100
    net, x = ScalarNet(width), grid(1000)
    with torch.no_grad(), cu.LiveTensors() as live:
        trapezoid_in_chunks(net, x, chunk)
    chunk_activations = 2 * 4 * (chunk + 1) * width
    assert chunk_activations <= live.peak <= chunk_activations + 16  # plus the running total's scalars


def test_chunk_size_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        trapezoid_in_chunks(integrand, grid(10), 0)


def test_checkpoint_keeps_only_the_nodes_and_gives_the_same_gradient():
    points, width = 2001, 16
    net, x = ScalarNet(width, hidden_layers=2), grid(points)
    (torch.trapezoid(net(x), x) - 1.0).pow(2).backward()
    plain = [p.grad.clone() for p in net.parameters()]
    net.zero_grad(set_to_none=True)
    net.points_seen = 0
    with cu.GraphMemory() as graph:
        value = trapezoid_in_chunks(net, x, chunk_size=200, use_checkpoint=True)
    # checkpoint's own saved-tensor hooks take over inside each chunk: the graph meter sees only what
    # checkpoint saves itself, the chunk's nodes (views of x's storage, counted once)
    assert graph.by_kind["activations"] == 0
    assert graph.by_kind["inputs"] == 4 * points
    seen_forward = net.points_seen
    (value - 1.0).pow(2).backward()
    assert net.points_seen == 2 * seen_forward, "backward recomputes every chunk once"
    for p, expected in zip(net.parameters(), plain):
        assert torch.allclose(p.grad, expected, rtol=1e-4, atol=1e-6)


def test_same_seed_same_weights_and_global_rng_untouched():
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    a, b = ScalarNet(8, seed=1), ScalarNet(8, seed=1)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(ScalarNet(8, seed=2).layers[0].weight, a.layers[0].weight)
