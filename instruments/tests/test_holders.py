"""find_leaks names what keeps a leak wherever training code keeps it: on an object (a Trainer's
attribute, a dataclass), in an enclosing function's variable (closures handed to L-BFGS), a module
global, a custom Function's ctx, optimizer state; tells optimizer state and one-off growth from
leaks; and says so when its bounded search gives up."""
import collections
import functools
import gc
import importlib
import sys
import types
import typing
import weakref
from dataclasses import dataclass, field

import pytest
import torch
from torch import nn

from autograd_memory import NotFlatError, find_leaks
from autograd_memory.diagnosing.holders import Root, roots_of, search


def regression():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    x = torch.randn(32, 4)
    return model, x, x.sum(dim=1, keepdim=True).sin()


class Trainer:
    """The PyTorch FAQ's `total_loss += loss`, written as a method: only graph nodes grow."""

    def __init__(self):
        self.model, self.x, self.y = regression()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
        self.total_loss = 0.0

    def train_step(self):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        self.total_loss += loss


def test_a_graph_only_leak_on_an_object_is_a_row_named_by_the_callers_variable_and_fails_assert_flat():
    trainer = Trainer()
    report = find_leaks(trainer.train_step)
    assert report.bytes_per_step == 0
    assert report.top is not None and report.top.nodes_per_step > 0, report
    assert report.top.holder == "trainer.total_loss", report
    assert "self.total_loss += loss" in report.top.code
    assert "trainer.total_loss" in report.top.fix and ".item()" in report.top.fix
    with pytest.raises(NotFlatError, match="trainer.total_loss"):
        report.assert_flat()


def test_without_a_name_in_the_caller_the_holder_is_self_and_the_class_is_named():
    def run():
        return find_leaks(Trainer().train_step)
    report = run()
    assert report.top.holder == "self.total_loss", report
    assert "Trainer" in report.top.holder_note and "Trainer" in str(report)


@dataclass
class History:
    losses: list = field(default_factory=list)
    best: float = float("inf")


def test_a_dataclass_keeping_lbfgs_losses_is_named_and_lbfgs_own_history_is_bounded():
    model, x, y = regression()
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=1, history_size=2)
    state = History()

    def step():
        def closure():
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            state.losses.append(loss)
            return loss
        optimizer.step(closure)
    report = find_leaks(step, steps=6)
    assert report.top.holder == "state.losses[-1]", report
    assert report.top.nodes_per_step > 0 and report.top.bytes_per_step > 0
    assert all(row.holder.startswith("state.losses") for row in report.rows), report
    bounded = [row for row in report.bounded if "optimizer" in row.bounded]
    assert bounded and all("optimizer.step(closure)" in row.code for row in bounded), report


def test_the_fixed_lbfgs_step_passes_assert_flat_and_shows_its_history_apart():
    model, x, y = regression()
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=1, history_size=3)

    def step():
        def closure():
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss
        optimizer.step(closure)
    report = find_leaks(step, steps=6)
    report.assert_flat()
    assert report.rows == [] and report.bounded, report
    assert any(row.holder.startswith("optimizer.state[") for row in report.bounded), report
    assert "bounded" in str(report) and "not a leak" in str(report)


def make_lbfgs_step(model, x, y):
    """A step built by a function: the losses list lives in the enclosing function, used by a nested closure."""
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=3, history_size=2)
    losses = []

    def step():
        def closure():
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            losses.append(loss)
            return loss
        optimizer.step(closure)
    return step


def test_a_list_in_the_enclosing_function_of_a_nested_closure_is_named():
    report = find_leaks(make_lbfgs_step(*regression()))
    assert report.top.holder == "losses[-1]", report
    assert "make_lbfgs_step" in report.top.holder_note
    assert "called from" in str(report.top) and "optimizer.step(closure)" in str(report.top)


def test_adam_state_made_in_the_first_step_is_bounded_and_does_not_fail_assert_flat():
    model, x, y = regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    nn.functional.mse_loss(model(x), y).backward()  # every .grad exists: no warm-up needed, Adam's state is new
    report = find_leaks(step, warmup=0, steps=4)
    report.assert_flat()
    holders = [row.holder for row in report.bounded]
    assert any(h.startswith("optimizer.state[") and "exp_avg" in h for h in holders), report


def test_a_module_global_is_named_as_one():
    module = types.ModuleType("training_script")
    exec("import torch\n"
         "w = torch.ones(10, requires_grad=True)\n"
         "seen = {}\n"
         "def step():\n"
         "    seen[len(seen)] = (w * 2).sum()\n", module.__dict__)
    report = find_leaks(module.step)
    assert report.top.holder == "seen[0]" or report.top.holder.startswith("seen["), report
    assert "training_script" in report.top.holder_note


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.kept = x * 3  # kept on ctx, not saved for backward: lives as long as the graph
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_a_custom_function_ctx_attribute_is_found():
    w = torch.ones(100, requires_grad=True)
    outputs = []
    report = find_leaks(lambda: outputs.append(Scale.apply(w)))
    row = next(row for row in report.rows if "ctx.kept" in row.code)
    assert row.bytes_per_step == 400
    assert row.holder.startswith("outputs[-1] (saved in its graph by"), report


def test_a_tensor_saved_by_a_graph_is_held_by_the_variable_that_keeps_the_graph():
    w = torch.ones(100, requires_grad=True)
    spread = []

    def step():
        e = w.exp()  # saved by std
        spread.append(e.std())
    report = find_leaks(step)
    assert report.top.bytes_per_step == 400 and "saved by std" in report.top.code
    assert report.top.holder == "spread[-1] (saved in its graph by StdBackward0)", report
    assert ".item()" in report.top.fix


def test_when_the_search_gives_up_it_says_within_how_many_objects():
    deep = [[[[[]]]]]
    report = find_leaks(lambda: deep[0][0][0][0].append(torch.ones(10)), max_objects=3)
    assert report.top.holder == "holder not found within 3 objects", report


def test_the_search_keeps_nothing_alive():
    trainer = Trainer()
    report = find_leaks(trainer.train_step)
    probe = weakref.ref(trainer.total_loss)
    trainer.total_loss = 0.0
    gc.collect()
    assert probe() is None, "find_leaks (or its report) still holds a tensor it searched"
    assert report.top is not None


def test_search_names_module_attributes_the_way_a_learner_writes_them():
    model = nn.Sequential(nn.Linear(2, 3))
    found = search([Root("model", model)])
    assert found.storages[id(model[0].weight.untyped_storage())] == "model[0].weight"


def test_roots_of_a_bound_method_name_self_and_the_closure():
    trainer = Trainer()
    names = [root.name for root in roots_of(trainer.train_step)]
    assert names[0] == "self"
    step = make_lbfgs_step(*regression())
    assert {"losses", "optimizer", "model"} <= {root.name for root in roots_of(step)}


class Chain:
    """A running total that keeps each step's graph; the exp's result is saved in it, made on the same line."""

    def __init__(self):
        self.w = torch.ones(64, requires_grad=True)
        self.total = torch.zeros(())

    def step(self):
        self.total = self.total + (self.w * 2).exp().sum()


def test_a_new_tensor_that_got_the_id_of_a_dead_one_from_its_line_still_names_its_holder(monkeypatch):
    """CPython reuses ids: the newest tensor of a line can get the id of one that died since the warm-up (the
    clinic's points.grad, about one run in eight). It is still new, and the row still names where it is kept,
    not a storage saved in its graph."""
    from autograd_memory.diagnosing import leaks

    real = leaks._report

    def report_after_an_id_reuse(first, middle, last, *args):
        storage = last.found.holders["chain.total"].storage
        alive = dict(first.alive)
        # an equal record, not the same one: a storage of the same line that died had this id
        alive[storage] = tuple(list(last.alive[storage]))
        first.alive = alive
        return real(first, middle, last, *args)

    monkeypatch.setattr(leaks, "_report", report_after_an_id_reuse)
    chain = Chain()
    report = find_leaks(chain.step)
    assert report.top.holder == "chain.total", report


def sgd_problem():
    model, x, y = regression()
    return model, torch.optim.SGD(model.parameters(), lr=0.01), x, y


def leaking_step(keep):
    """A step on the SGD regression whose loss ``keep(loss)`` stores somewhere."""
    model, optimizer, x, y = sgd_problem()

    def step():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        keep(loss)
    return step


def test_a_grad_made_anew_every_step_by_the_same_line_is_not_the_holder_of_its_growth():
    """The line also makes each parameter's .grad (zero_grad sets it to None): alive at the end and new, but one
    replaces the other. The holder is what keeps the growth."""
    model, optimizer, x, y = sgd_problem()
    kept = []

    def step():
        optimizer.zero_grad(); loss = nn.functional.mse_loss(model(x), y); loss.backward(); optimizer.step(); kept.append(loss * 2)  # noqa: E702,E501
    report = find_leaks(step)
    assert report.top.holder == "kept[-1]", report


def test_a_partial_of_the_step_is_its_function_and_shows_no_call_site_outside_it():
    model, optimizer, x, y = sgd_problem()

    def step(log, scale):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        log.append(loss * scale)
    mine = []
    report = find_leaks(functools.partial(step, mine, 2))
    assert report.top.holder == "mine[-1]", report
    assert report.top.called_from[0] is None and "called from" not in str(report.top), str(report.top)


def test_a_deque_with_a_maxlen_that_fills_within_the_steps_is_bounded_not_a_leak():
    model, optimizer, x, y = sgd_problem()
    window = collections.deque(maxlen=3)

    def step():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        window.append(loss)  # its graph too: nodes stop growing with the bytes
    report = find_leaks(step)
    assert report.rows == [] and len(report.bounded) == 1, report
    assert "a deque(maxlen=3): bounded by its length" in report.bounded[0].bounded
    report.assert_flat()


def test_a_list_in_a_module_of_the_learners_is_named_by_the_module(tmp_path, monkeypatch):
    (tmp_path / "logbook.py").write_text("history = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    logbook = importlib.import_module("logbook")
    try:
        report = find_leaks(leaking_step(logbook.history.append))
    finally:
        sys.modules.pop("logbook", None)
    assert report.top.holder == "logbook.history[-1]", report
    assert "logbook.history" in report.top.fix


class SharedHistory:
    """A list in the class body: every instance appends to the same one."""

    history = []

    def __init__(self):
        self.model, self.optimizer, self.x, self.y = sgd_problem()

    def step(self):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        self.history.append(loss)


def test_a_list_in_the_class_body_is_named_as_the_instance_reaches_it():
    trainer = SharedHistory()
    try:
        report = find_leaks(trainer.step)
    finally:
        SharedHistory.history.clear()
    assert report.top.holder == "trainer.history[-1]", report


# ---------------------------------------------------------------- shapes an independent tester brought (each failed before)

class HistorySGD(torch.optim.Optimizer):
    """An optimizer of the learner's that keeps every gradient in its state, never trimmed."""

    def __init__(self, params):
        super().__init__(params, {"lr": 0.01})

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].setdefault("history", []).append(p.grad.clone())
                p.add_(p.grad, alpha=-group["lr"])


def test_state_that_a_learners_optimizer_keeps_growing_is_a_leak_not_bounded():
    model, _, x, y = sgd_problem()
    optimizer = HistorySGD(model.parameters())

    def step():
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    report = find_leaks(step)
    assert report.top is not None and not report.bounded, report
    assert report.top.holder.startswith("optimizer.state[...]['history']"), report
    assert "optimizer.state[...]['history'] gains entries" in report.top.fix and ".detach() keeps" in report.top.fix
    assert report.top.remedy.action == "clear it"  # tensors of many numbers: .item() would not do


class Stash:
    store = []


def test_a_list_on_a_class_reached_by_its_name_is_named():
    try:
        report = find_leaks(leaking_step(Stash.store.append))
    finally:
        Stash.store.clear()
    assert report.top.holder == "Stash.store[-1]", report


def test_a_tensor_kept_as_a_dict_key_is_named_and_its_graph_counted():
    seen = {}
    report = find_leaks(leaking_step(lambda loss: seen.__setitem__(loss, 1)))
    assert report.top.holder == "seen (a key)" and report.top.nodes_per_step > 0, report
    assert report.top.fix.startswith("seen gains entries")


def test_a_cache_a_paused_generator_fills_is_named_by_its_variable():
    def batches(cache):
        while True:
            batch = torch.randn(4, 4)
            cache.append(batch * 2)
            yield batch
    stream = batches([])
    report = find_leaks(lambda: next(stream))
    assert report.top.holder == "cache[-1]" and "generator batches()" in report.top.holder_note, report
    stream.close()


def test_a_leaf_that_only_a_kept_graph_keeps_is_named_through_that_graph():
    """A PINN step makes its collocation points as a leaf each step; keeping du/dx keeps them and their .grad."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-3)
    residuals = []

    def step():
        x = torch.rand(32, 1, requires_grad=True)
        du = torch.autograd.grad(net(x).sum(), x, create_graph=True)[0]
        loss = (du - x.cos()).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        residuals.append(du)
    report = find_leaks(step)
    holders = {row.code.split("=")[0].strip(): row.holder for row in report.rows}
    assert holders["x"] == "residuals[-1] (a leaf its graph keeps)", report
    assert holders["loss.backward()"] == "residuals[-1] (the .grad of a leaf its graph keeps)", report


def test_a_running_sum_in_a_dict_entry_chains_graphs_and_says_so():
    metrics = {"loss": 0.0}
    report = find_leaks(leaking_step(lambda loss: metrics.__setitem__("loss", metrics["loss"] + loss)))
    assert report.top.holder == "metrics['loss']", report
    assert report.top.fix.startswith("metrics['loss'] chains each step's graph"), report.top.fix


class Context(typing.NamedTuple):
    name: str
    metrics: dict


def test_a_named_tuple_is_read_by_its_field_names():
    context = Context("run", collections.defaultdict(list))
    report = find_leaks(leaking_step(lambda loss: context.metrics["loss"].append(loss)))
    assert report.top.holder == "context.metrics['loss'][-1]", report
    assert report.top.fix.startswith("context.metrics['loss'] gains entries"), report.top.fix


def test_tensors_that_keep_no_graph_are_not_told_to_detach():
    preds = []

    def keep(loss):
        with torch.no_grad():
            preds.append(torch.ones(64) * loss)
    report = find_leaks(leaking_step(keep))
    assert report.top.holder == "preds[-1]" and report.top.nodes_per_step == 0, report
    assert ".detach() keeps the same bytes" in report.top.fix, report.top.fix


def test_a_class_the_search_met_can_die_with_what_its_body_keeps():
    """The search remembers per class whether to search it; a notebook that redefines the class must still free
    the old one, and the tensors its body kept."""
    class Keeper:
        store = [torch.ones(10)]
    keeper = Keeper()
    found = search([Root("keeper", keeper), Root("Keeper", Keeper)])
    assert found.holders["keeper.store"].path == "keeper.store[-1]"
    kept = weakref.ref(Keeper.store[0])
    del keeper, Keeper, found
    gc.collect()
    assert kept() is None, "a cache of the search kept the class alive"


def test_a_notebook_full_of_data_does_not_hide_the_holder_behind_the_search_cap():
    records = [{"id": [i]} for i in range(60_000)]  # more plain data than the search visits: named first, searched first
    history = []
    report = find_leaks(lambda: history.append(torch.ones(10) * 2))
    assert len(records) == 60_000
    assert report.top.holder == "history[-1]", report


def test_a_tensor_among_plain_data_is_still_found_at_its_path():
    records = [{"id": i, "tags": ["a"]} for i in range(1000)]
    weight = torch.ones(3)
    records[700]["weight"] = weight
    found = search([Root("records", records)])
    assert found.storages[id(weight.untyped_storage())] == "records[-300]['weight']"


def test_an_id_in_a_dict_key_reads_as_the_code_writes_it_not_as_an_address():
    """A cache keyed by ``(id(y), id(x))`` (notebook 07's derivative cache): the holder names ``x`` where the step
    reaches it, and shows ``id(…)`` for the item's own; never the raw address."""
    weight = torch.ones(4, requires_grad=True)
    cache = {}

    def step():
        y = weight * 2
        cache[(id(y), id(weight))] = (y,)

    holder = find_leaks(step).top.holder
    assert holder.startswith("cache[(id(…), id(weight))]"), holder


def test_a_capped_search_reaches_what_follows_many_repeats_of_one_object():
    """Each object is queued once: a thousand references to one tensor cost one visit, and the cap counts visits."""
    history = [torch.ones(3)]
    many = [torch.zeros(2)] * 1000 + [history]
    found = search([Root("many", many)], max_objects=4)
    assert found.storages[id(history[0].untyped_storage())] == "many[-1][-1]"
    assert (found.visited, found.exhausted) == (4, False)


@dataclass
class Sample:
    label: int
    features: list


class Labelled(Sample):
    counts = {}  # class data: read for each object, so objects of this class are visited one by one


def test_the_learners_objects_of_plain_data_are_read_in_bulk_and_one_that_holds_a_tensor_is_found():
    samples = [Sample(i, [float(i), 1.0]) for i in range(2000)]
    samples[1500].features = [torch.ones(3)]
    found = search([Root("samples", samples)])
    assert found.storages[id(samples[1500].features[0].untyped_storage())] == "samples[-500].features[-1]"
    assert found.visited < 600, "only the run of 256 samples with the tensor is visited, each sample and its list"
    assert search([Root("samples", [Labelled(i, [1.0]) for i in range(2000)])]).visited > 2000
