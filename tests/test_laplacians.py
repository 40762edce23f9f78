"""course_utils.problems.laplacians: every method agrees with nested autograd (the pitfall does not), finite differences
to their order, what each costs, the shipped benchmark, and 06's ranking sentences tied to its tables."""
import re

import nbformat
import pytest
import torch

import course_utils as cu
from course_utils import laplacians, pinn
from course_utils.problems.models import TanhMLP

pytestmark = pytest.mark.usefixtures("one_torch_thread")


EXACT_METHODS = {name: method for name, method in laplacians.METHODS.items() if "Hutchinson" not in name}


def float64_problem(d, n=16, seed=0):
    """A tanh MLP with d spatial inputs plus time, and n points, all float64."""
    model = TanhMLP(d + 1, width=12, hidden_layers=3, seed=seed).double()
    points = torch.rand(n, d + 1, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return model, points


@pytest.mark.parametrize("d", [1, 2, 5, 8])
@pytest.mark.parametrize("name", sorted(EXACT_METHODS))
def test_every_exact_method_matches_nested_autograd(d, name):
    model, points = float64_problem(d)
    space = range(d)
    u_ref, gradient_ref, laplacian_ref = laplacians.laplacian_nested(model, points, space)
    u, gradient, laplacian = EXACT_METHODS[name](model, points, space)
    assert u.shape == (len(points),) and gradient.shape == points.shape and laplacian.shape == (len(points),)
    torch.testing.assert_close(u, u_ref, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gradient, gradient_ref, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(laplacian, laplacian_ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("d", [2, 8])
def test_forward_laplacian_equals_the_trace_of_the_full_hessian(d):
    model, points = float64_problem(d)
    hessians = torch.func.vmap(torch.func.hessian(lambda p: model(p.unsqueeze(0))[0, 0]))(points)
    trace = hessians[:, :d, :d].diagonal(dim1=1, dim2=2).sum(1)
    torch.testing.assert_close(laplacians.laplacian_forward(model, points, range(d))[2], trace, rtol=1e-10, atol=1e-12)


def test_row_sum_pitfall_returns_hessian_row_sums_not_the_diagonal():
    model, points = float64_problem(3)
    hessians = torch.func.vmap(torch.func.hessian(lambda p: model(p.unsqueeze(0))[0, 0]))(points)
    space = [0, 1, 2]
    row_sums = hessians.sum(2)[:, space].sum(1)  # sum over j of d2u/dx_i dx_j, for i in space
    wrong = laplacians.laplacian_row_sums(model, points, space)[2]
    torch.testing.assert_close(wrong, row_sums, rtol=1e-12, atol=1e-12)
    right = laplacians.laplacian_nested(model, points, space)[2]
    assert (wrong - right).abs().max() > 1e-3, "the pitfall must differ from the true Laplacian"


def test_hutchinson_is_exact_in_one_dimension_and_stochastic_in_more():
    model, points = float64_problem(1)
    exact = laplacians.laplacian_nested(model, points, [0])[2]
    torch.testing.assert_close(laplacians.laplacian_hutchinson(model, points, [0])[2], exact, rtol=1e-12, atol=1e-12)
    model, points = float64_problem(4)
    exact = laplacians.laplacian_nested(model, points, range(4))[2]
    one_probe = laplacians.laplacian_hutchinson(model, points, range(4), probes=1)[2]
    many = laplacians.laplacian_hutchinson(model, points, range(4), probes=400)[2]
    assert (one_probe - exact).abs().max() > 1e-6
    assert (many - exact).abs().mean() < (one_probe - exact).abs().mean()


def test_chunks_lower_the_peak_and_the_saved_bytes():
    model = pinn.HeatPINN(width=32, depth=3)
    points = pinn.sample_points(1024)
    full_peak, full_saved = laplacians.step_memory(model, points, laplacians.laplacian_nested)
    quarter_peak, quarter_saved = laplacians.step_memory(model, points, laplacians.laplacian_nested, chunk_size=256)
    assert quarter_saved < full_saved / 3 and quarter_peak < full_peak / 3


def gradient_after(model, points, method, chunk_size=None, strategy=laplacians.STRATEGIES[0]):
    peak, saved = laplacians.step_memory(model, points, method, chunk_size, strategy)
    return peak, saved, torch.cat([p.grad.flatten() for p in model.parameters()])


def test_checkpointing_the_whole_residual_per_chunk_lowers_the_peak_at_the_same_gradient():
    model, points = pinn.HeatPINN(width=32, depth=3), pinn.sample_points(512)
    plain_peak, _, plain = gradient_after(model, points, laplacians.laplacian_nested)
    chunked_peak, _, chunked = gradient_after(model, points, laplacians.laplacian_nested, 128)
    checkpointed_peak, checkpointed_saved, checkpointed = gradient_after(
        model, points, laplacians.laplacian_nested, 128, "checkpointed chunks, one backward")
    assert (checkpointed - plain).abs().max() <= 1e-6 and (chunked - plain).abs().max() <= 1e-6
    assert checkpointed_peak < 0.9 * plain_peak, "one backward over checkpointed chunks holds less than the plain step"
    assert chunked_peak < checkpointed_peak, "a backward per chunk holds less still"
    assert checkpointed_saved == 4 * points[:128].nbytes, "the graph meter sees only what checkpoint keeps: each chunk's points"


def test_save_on_cpu_moves_nothing_on_a_cpu_and_hides_the_saved_tensors_from_the_graph_meter():
    model, points = pinn.HeatPINN(width=16, depth=2), pinn.sample_points(64)
    plain_peak, plain_saved, plain = gradient_after(model, points, laplacians.laplacian_nested)
    offloaded_peak, offloaded_saved, offloaded = gradient_after(model, points, laplacians.laplacian_nested,
                                                                strategy="save_on_cpu")
    assert offloaded_peak == plain_peak and offloaded_saved == 0 < plain_saved
    assert torch.equal(offloaded, plain)


def test_float64_doubles_the_peak_exactly():
    points = pinn.sample_points(64)
    single = laplacians.step_memory(pinn.HeatPINN(width=16, depth=2), points, laplacians.laplacian_nested)
    double = laplacians.step_memory(pinn.HeatPINN(width=16, depth=2).double(), points.double(), laplacians.laplacian_nested)
    assert double == (2 * single[0], 2 * single[1])


def test_step_memory_names_the_strategies_it_knows():
    with pytest.raises(ValueError, match="strategy must be one of"):
        laplacians.step_memory(pinn.HeatPINN(width=8, depth=2), pinn.sample_points(8), laplacians.laplacian_nested,
                               strategy="offload")


def test_torch_func_methods_report_no_saved_bytes():
    model = pinn.HeatPINN(width=8, depth=2)
    peak, saved = laplacians.step_memory(model, pinn.sample_points(32), laplacians.laplacian_vmap_hessian)
    assert saved is None and peak > 0


def test_compare_laplacians_rows():
    model = TanhMLP(3, width=8, hidden_layers=2)
    methods = {"nested": laplacians.laplacian_nested, "chunked": (laplacians.laplacian_nested, 8),
               "forward": laplacians.laplacian_forward}
    rows = laplacians.compare_laplacians(model, pinn.sample_points(32), methods, repeats=1)
    assert [row["method"] for row in rows] == list(methods)
    assert all(row["max_error"] < 1e-5 and row["ms"] > 0 for row in rows)
    assert rows[1]["peak_bytes"] < rows[0]["peak_bytes"]


def test_compare_laplacians_takes_its_float64_reference_on_a_cpu_copy():
    """MPS has no float64: the reference runs on a float64 CPU copy of the model, whatever its device."""
    seen = []

    def spy(model, points, dims):
        parameter = next(model.parameters())
        seen.append((points.device.type, points.dtype, parameter.device.type, parameter.dtype))
        return laplacians.laplacian_nested(model, points, dims)

    model = TanhMLP(3, width=8, hidden_layers=2).to(cu.pick_device())
    points = pinn.sample_points(8, device=next(model.parameters()).device)
    rows = laplacians.compare_laplacians(model, points, {"forward": laplacians.laplacian_forward}, repeats=1,
                                         reference_method=spy)
    assert seen == [("cpu", torch.float64, "cpu", torch.float64)]
    assert next(model.parameters()).dtype == torch.float32, "the model itself stays float32"
    assert rows[0]["max_error"] < 1e-5


def test_the_benchmark_data_reads_and_covers_every_method():
    record = laplacians.load_benchmarks()["cpu"]
    assert record["device"] == "cpu" and record["torch"] and record["date"] and record["options"]["n"] > 0
    assert [result["d"] for result in record["results"]] == record["options"]["dims"]
    for result in record["results"]:
        names = {row["method"] for row in result["rows"]}
        assert set(laplacians.METHODS) <= names
        for row in result["rows"]:
            assert row["peak_bytes"] > 0 and row["ms"] > 0
            if "Hutchinson" not in row["method"]:
                assert row["max_error"] < 1e-4, row



@pytest.mark.parametrize("d", [2, 3])
def test_hutchinson_variance_is_the_variance_over_every_sign_vector(d):
    import itertools

    from torch.func import hessian, vmap

    model, points = float64_problem(d, n=5)
    dims = list(range(d))
    hessians = vmap(hessian(lambda p: model(p.unsqueeze(0))[0, 0]))(points)[:, dims][:, :, dims]
    trace = hessians.diagonal(dim1=1, dim2=2).sum(1)
    signs = torch.tensor(list(itertools.product((-1.0, 1.0), repeat=d)), dtype=torch.float64)  # all equally likely
    estimates = torch.einsum("si,nij,sj->ns", signs, hessians, signs)
    torch.testing.assert_close(estimates.mean(1), trace)                      # unbiased
    torch.testing.assert_close(laplacians.hutchinson_variance(model, points, dims),
                               (estimates - trace.unsqueeze(1)).pow(2).mean(1))


def test_finite_differences_converge_at_order_two_where_truncation_wins():
    model, points = float64_problem(2)
    exact = laplacians.laplacian_nested(model, points, range(2))[2]
    steps = [4e-2, 2e-2, 1e-2]  # float64: cancellation (eps / h^2, about 1e-12) is far below truncation here
    errors = [(laplacians.laplacian_finite_difference(model, points, range(2), h)[2] - exact).abs().max().item()
              for h in steps]
    assert 1.9 < cu.convergence_order(steps, errors) < 2.1, errors


def test_finite_differences_run_the_network_on_2d_plus_1_points_per_point_and_differentiate_nothing():
    model, points = float64_problem(3, n=5)
    seen = []
    counted = lambda batch: seen.append(len(batch)) or model(batch)
    with torch.no_grad():  # autograd.grad would raise here: no derivative is taken by autograd
        u, gradient, laplacian = laplacians.laplacian_finite_difference(counted, points, range(3), h=1e-3)
    assert seen == [(2 * 4 + 1) * 5], "one batch: each point and its 2d shifted copies (d = 4 input columns)"
    u_ref, gradient_ref, laplacian_ref = laplacians.laplacian_nested(model, points, range(3))
    torch.testing.assert_close(u, u_ref.detach())
    torch.testing.assert_close(gradient, gradient_ref.detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(laplacian, laplacian_ref.detach(), rtol=1e-4, atol=1e-5)
    laplacians.laplacian_finite_difference(model, points, range(3))[2].sum().backward()
    assert all(p.grad is not None for p in model.parameters()), "differentiable to the parameters, for training"


def test_the_finite_difference_error_curve_is_a_v_with_its_bottom_near_the_fourth_root_of_eps():
    model, points = TanhMLP(3, width=16, hidden_layers=2), pinn.sample_points(64)
    steps = torch.logspace(-4, 0, 17).tolist()
    errors = laplacians.finite_difference_errors(model, points, steps)
    best = min(errors, key=errors.get)
    theory = laplacians.finite_difference_step(torch.float32)
    assert theory / 4 < best < 4 * theory and errors[steps[0]] > 100 * errors[best] < errors[steps[-1]], errors


def test_the_ranking_names_each_column_s_least_and_most_from_the_table():
    names = ["nested", "chunked", "Hutchinson", "torch.func"]
    for seed in range(5):
        numbers = torch.rand(3, 4, generator=torch.Generator().manual_seed(seed)).tolist()
        rows = [{"method": name, "peak_bytes": round(1e6 * numbers[0][i]), "max_error": numbers[2][i],
                 "saved_bytes": None if name == "torch.func" else round(1e6 * numbers[1][i])} for i, name in enumerate(names)]
        for sentence, key in zip(laplacians.ranking(rows), ("peak_bytes", "saved_bytes", "max_error")):
            measured = [row for row in rows if row[key] is not None]
            least, most = min(measured, key=lambda row: row[key]), max(measured, key=lambda row: row[key])
            assert f"least {least['method']} (" in sentence and f"most {most['method']} (" in sentence, (sentence, rows)
        assert laplacians.ranking(rows)[1].endswith("not measured: torch.func")


# Notebook 06's sentences that rank its methods, each tied to the check cell that asserts it on the measured table
# (nbval runs those): a ranking sentence with no tie could disagree with the table.
# A sentence the scan finds that ranks nothing measured (a prompt, an exercise) is listed apart.
TIED = {
    "finite differences far above it, Hutchinson farther": "far above float32 rounding, and far below one Hutchinson probe",
    "the error stays far above the exact methods' rounding": "even at the best h, the finite differences err far above",
    "the 4-chunk row of the table peaked at less than half": "4 chunks: one chunk's graph alive at a time",
    "chunking it multiplies the two savings: the lowest row": "the forward Laplacian in chunks holds the least",
    "the forward Laplacian in chunks holds the least": "the forward Laplacian in chunks holds the least",
    "the forward Laplacian wins, modestly": "modestly at d = 2",
    "where the forward Laplacian wins modestly": "modestly at d = 2",
    "least near h = ε^(1/4)": "the least error sits within a factor 4 of h = eps^(1/4)",
    "less than a backward per chunk, but for any loss": "a backward per chunk lowers the peak further than checkpointed",
}
NOT_A_RANKING = ("the method they expect to hold the least", "ask what they expect from the older",
                 "Return the **largest** of", "the largest candidate chunk size that fits the budget")
_METHOD = re.compile(r"Hutchinson|nested|forward Laplacian|torch\.func|chunk|finite difference|row sums|checkpoint|"
                     r"save_on_cpu|float64", re.I)
_RANKS = re.compile(r"\b(least|most|lowest|highest|smallest|largest|fastest|slowest|cheapest|wins?|less than|more than|"
                    r"holds less|needs less|far above|far below)\b", re.I)


def ranking_sentences(notebook):
    """The statements (not questions) of a notebook's Markdown, speaker notes included, that name a method and rank."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for sentence in re.split(r"(?<=[.!:;])\s+(?=[A-Z*(-])|\n- ", cell.source):
                sentence = " ".join(sentence.split())
                if not sentence.endswith("?") and _METHOD.search(sentence) and _RANKS.search(sentence):
                    yield sentence


def test_every_ranking_sentence_of_06_is_tied_to_an_assert_on_its_table():
    notebook = nbformat.read(cu.laplacians.DATA.parent / "notebooks" / "06_which_laplacian.ipynb", as_version=4)
    asserts = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code" and "assert" in cell.source)
    untied = [sentence for sentence in ranking_sentences(notebook)
              if not any(words in sentence for words in [*TIED, *NOT_A_RANKING])]
    assert not untied, f"06 ranks methods in words no check cell asserts (assert it, or print it from the table): {untied}"
    unasserted = {sentence: words for sentence, words in TIED.items() if words not in asserts}
    assert not unasserted, f"these sentences' asserts are gone from 06: {unasserted}"

