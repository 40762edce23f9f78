"""Real shapes of training code, each a script in ``leak_cases/``: find_leaks calls a step that only grows for a
while bounded, names what keeps a leak wherever it is (a Parameter's attribute, a functools cache, a module's hook
dict, a class's list), and every fix its report suggests, applied to the script as the report words it (the
``remedy``: the line's old and new text), ends the growth."""
import gc
import pathlib
import runpy

from autograd_memory import find_leaks
from autograd_memory.diagnosing.fixes import REGISTER_ONCE
from autograd_memory.testing import assert_no_leak

CASES = pathlib.Path(__file__).parent / "leak_cases"


def load(tmp_path, name, text=None):
    """The script's namespace, run from a copy in ``tmp_path`` (its lines are what the report shows and edits)."""
    path = tmp_path / f"{name}.py"
    path.write_text(text if text is not None else (CASES / f"{name}.py").read_text())
    return runpy.run_path(str(path), run_name=f"case_{name}")


def report_of(namespace, **options):
    report = find_leaks(namespace["step"], **options)
    gc.collect()
    return report


def applied(text, remedy):
    """``text`` with one row's fix made, mechanically: the line edit, or, to register a hook once, its line moved
    out of the step to run once after the script's set-up."""
    assert remedy.old and text.count(remedy.old) == 1, f"the fix names no line that the script has once: {remedy}"
    if remedy.action == REGISTER_ONCE:
        line = next(line for line in text.splitlines(True) if remedy.old in line)
        return text.replace(line, "", 1) + "\n" + remedy.old + "\n"
    for old, new in remedy.edits:
        assert text.count(old) == 1, f"the fix names a line that the script does not have once: {remedy}"
        text = text.replace(old, new)
    return text


def fixed_by_the_report(tmp_path, name):
    """Apply every distinct fix of the report's leak rows to the script; the report, the fixed script's report, and
    the fixes."""
    text = (CASES / f"{name}.py").read_text()
    report = report_of(load(tmp_path, name))
    assert report.rows, f"{name}: find_leaks finds no leak:\n{report}"
    remedies = list(dict.fromkeys(row.remedy for row in report.rows))
    for remedy in remedies:
        text = applied(text, remedy)
    return report, report_of(load(tmp_path, f"{name}_fixed", text)), remedies


# ------------------------------------------------------------------ growth that is bounded reads bounded


def test_a_layer_unfrozen_after_the_warm_up_makes_its_grad_once_and_reads_bounded(tmp_path):
    report = report_of(load(tmp_path, "late_unfrozen"))
    assert report.rows == [], f"a .grad made once, late, is not a leak:\n{report}"
    row = next(row for row in report.bounded if "head2.weight.grad" in row.holder)
    assert row.bounded.startswith("made once, in step 5 of 5"), report
    assert report_of(load(tmp_path, "late_unfrozen"), steps=10).rows == []
    assert_no_leak(load(tmp_path, "late_unfrozen")["step"])  # what a test suite calls: it passes too


def test_a_detached_lbfgs_history_in_deques_and_its_two_force_graphs_read_bounded(tmp_path):
    namespace = load(tmp_path, "lbfgs_history")
    report = report_of(namespace)
    assert report.rows == [], f"the history is a window of fixed length, the force graphs two:\n{report}"
    assert namespace["state"].y_history[-1].grad_fn is None, "the history keeps no graph"
    windows = [row for row in report.bounded if "deque(maxlen=20)" in row.bounded]
    assert {row.holder for row in windows} == {"state.s_history[-1]", "state.y_history[-1]"}, report
    for row in report.bounded:
        if row.nodes_per_step:  # a graph row names a holder that reaches that graph
            assert "history" not in row.holder and "forces" in row.holder, report


def test_a_graph_kept_from_one_step_to_two_late_in_the_steps_reads_bounded_and_kept_every_step_a_leak(tmp_path):
    report = report_of(load(tmp_path, "smoothed_late"))
    assert report.rows == [], f"the average keeps one more step's graph, once:\n{report}"
    row = next(row for row in report.bounded if row.kept_in == "self.smoothed")
    assert row.nodes_per_step and not row.bytes_per_step, f"a graph row with no bytes beside it:\n{report}"
    assert row.bounded.startswith("keeps only what the steps after step 3 of 5 made"), report
    assert row.fix.startswith("nothing to fix"), report
    assert report_of(load(tmp_path, "smoothed_late"), steps=10).rows == []
    assert_no_leak(load(tmp_path, "smoothed_late")["step"])
    text = (CASES / "smoothed_late.py").read_text()
    # what those graphs saved kept too (retain_graph=True): the bytes beside the graph read bounded, in one voice
    retained = report_of(load(tmp_path, "smoothed_retained", text.replace("loss.backward()",
                                                                          "loss.backward(retain_graph=True)")))
    assert retained.rows == [] and any(row.bytes_per_step for row in retained.bounded), retained
    # the average kept with its graph and chained every step (each one keeps the last) is a leak
    chained = report_of(load(tmp_path, "smoothed_chained", text.replace(
        "previous = self.loss if self.calls >= SMOOTH_FROM else loss.detach()",
        "previous = self.smoothed if self.smoothed is not None else loss.detach()")))
    assert [row.kept_in for row in chained.rows] == ["self.smoothed"] and chained.top.nodes_per_step, chained


def test_a_list_filled_in_the_first_steps_beside_a_loss_replaced_every_step_reads_bounded(tmp_path):
    """One holder (a dict of state, or an object) keeps graphs in two places: the first two losses, and the latest.
    Each is bounded; read together as one holder they kept graphs made in both halves of the steps, a false leak."""
    text = (CASES / "first_and_last.py").read_text()
    as_attributes = text.replace('self.state = {"first_losses": [], "latest": None}',
                                 "self.first_losses, self.latest = [], None")
    as_attributes = as_attributes.replace('self.state["first_losses"]', "self.first_losses")
    as_attributes = as_attributes.replace('self.state["latest"]', "self.latest")
    assert "self.state" not in as_attributes
    for name, script in (("first_and_last", text), ("first_and_last_attributes", as_attributes)):
        for steps in (5, 6):
            report = report_of(load(tmp_path, name, script), steps=steps)
            assert report.rows == [] and report.bounded, f"{name}, steps={steps}:\n{report}"
    # kept every step, every other step, or as a dict per step in a list, the same losses are a leak
    every_other = text.replace('if len(self.state["first_losses"]) < 2:',
                               'self.calls = getattr(self, "calls", 0) + 1\n        if self.calls % 2 == 0:')
    as_records = text.replace('self.state["latest"] = loss', 'self.state.setdefault("log", []).append({"loss": loss})')
    every_step = text.replace('if len(self.state["first_losses"]) < 2:\n            ', "")
    for name, script in (("every_step", every_step), ("every_other", every_other), ("as_records", as_records)):
        assert script != text, f"{name}: the script should change"
        report = report_of(load(tmp_path, name, script), steps=6)
        assert [row.kept_in for row in report.rows] == ["self.state"] and report.top.nodes_per_step, f"{name}:\n{report}"


# ------------------------------------------------------------------ holders found, and each fix ends the growth


def test_fast_weights_on_parameters_are_named_with_their_graph_growth_and_detaching_them_ends_it(tmp_path):
    report, fixed, remedies = fixed_by_the_report(tmp_path, "maml_fast")
    graph = next(row for row in report.rows if row.nodes_per_step)
    assert graph.holder == "net.weight.fast", report
    assert graph.nodes_per_step == report.nodes_per_step == 13, report  # checked against a walk of both graphs below
    assert [r.new.split("\n")[0] for r in remedies] == ["net.weight.fast = net.weight; net.bias.fast = net.bias"]
    assert fixed.rows == [], fixed


def test_a_functools_cache_on_a_method_is_named_and_clearing_it_ends_the_growth(tmp_path):
    report, fixed, remedies = fixed_by_the_report(tmp_path, "cached_features")
    assert all(row.holder.startswith("Model.features (a functools cache") for row in report.rows), report
    assert [r.new.split("\n")[0] for r in remedies] == ["Model.features.cache_clear()"], report
    assert fixed.rows == [], fixed


def test_hooks_registered_every_step_name_the_growing_hook_dict_and_registering_once_ends_it(tmp_path):
    report, fixed, remedies = fixed_by_the_report(tmp_path, "hooks_every_step")
    hooks = next(row for row in report.rows if row.hooks_per_step)
    assert hooks.holder.startswith("model[1]._forward_hooks") and hooks.hooks_per_step == 1, report
    assert hooks.remedy.action == REGISTER_ONCE and "register_forward_hook" in hooks.remedy.old, report
    assert {r.action for r in remedies} == {REGISTER_ONCE, "clear it"}, report
    assert fixed.rows == [], fixed


def test_a_graph_row_names_the_holder_that_keeps_the_graph_not_the_one_that_keeps_the_bytes(tmp_path):
    report, fixed, remedies = fixed_by_the_report(tmp_path, "two_holders")
    by_holder = {row.holder: row for row in report.rows}
    assert by_holder["predictions[-1]"].nodes_per_step == 0, "the detached predictions keep no graph"
    assert by_holder["outputs[-1]"].nodes_per_step == 2, report
    assert by_holder["outputs[-1]"].remedy.new == "outputs.append(out.detach())", report
    # the lists keep what the epoch collects (their entries' bytes), no graph
    assert fixed.nodes_per_step == 0 and fixed.rows and all(not row.nodes_per_step for row in fixed.rows), fixed


def test_losses_kept_by_a_trainer_class_are_kept_as_numbers_not_detached_tensors(tmp_path):
    report, fixed, remedies = fixed_by_the_report(tmp_path, "losses_list")
    assert report.top.holder == "self.losses[-1]" and "Trainer" in report.top.holder_note, report
    assert [(r.action, r.old, r.new) for r in remedies] == [
        ("keep a number", "self.losses.append(loss)", "self.losses.append(loss.item())")], report
    assert fixed.rows == [], fixed
    detached = load(tmp_path, "losses_detached", (CASES / "losses_list.py").read_text().replace(
        "self.losses.append(loss)", "self.losses.append(loss.detach())"))
    assert report_of(detached).rows, "a .detach()-ed loss still keeps its bytes every step: the advice must not be it"


def test_the_fast_weights_graph_count_is_the_graph_walked_by_hand(tmp_path):
    namespace = load(tmp_path, "maml_fast")
    net = namespace["net"]

    def nodes():
        seen, stack = set(), [p.fast.grad_fn for p in net.parameters()]
        while stack:
            node = stack.pop()
            if node is not None and node not in seen:
                seen.add(node)
                stack.extend(next_node for next_node, _ in node.next_functions)
        return len(seen)
    namespace["step"]()
    before = nodes()
    for _ in range(5):
        namespace["step"]()
    assert (nodes() - before) / 5 == 13


# ------------------------------------------------------------------ nothing missed silently


def census_growth_per_step(step, steps=3):
    """What a step keeps, by an independent census of every tensor's storages (sparse parts included)."""
    from autograd_memory.testing import allocated_bytes

    step()
    before = allocated_bytes()
    for _ in range(steps):
        step()
    grown = allocated_bytes() - before
    assert grown % steps == 0, "the same bytes every step"
    return grown // steps


def test_a_sparse_momentum_buffer_grown_in_place_is_found_with_the_census_bytes(tmp_path):
    truth = census_growth_per_step(load(tmp_path, "sparse_momentum")["step"])
    assert truth == 12 * (8 + 16 * 4), "12 rows a step: an int64 row index and a row of 16 float32 values each"
    namespace = load(tmp_path, "sparse_momentum")
    report = report_of(namespace)
    assert report.top is not None and report.top.bytes_per_step == truth, report
    assert report.top.holder.startswith("state['momentum']"), report
    assert report.bytes_per_step == truth, report
    try:
        assert_no_leak(load(tmp_path, "sparse_momentum")["step"])
    except AssertionError as error:
        assert "state['momentum']" in str(error)
    else:
        raise AssertionError("assert_no_leak passed a sparse buffer that grows every step")


# ------------------------------------------------------------------ advice tried before it is given


def verified_and_applied(tmp_path, name):
    """The report of ``name`` with its fixes tried (verify=True); every edit it offers must be verified; the script
    with them applied, run again: (report, its distinct remedies, the fixed script's namespace, its report)."""
    report = report_of(load(tmp_path, name), verify=True)
    assert report.rows, f"{name}: find_leaks finds no leak:\n{report}"
    remedies = list(dict.fromkeys(row.remedy for row in report.rows))
    assert all(remedy.verified is not None for remedy in remedies), remedies
    assert all(remedy.verified for remedy in remedies if remedy.edits), f"an edit offered unverified: {remedies}"
    text = (CASES / f"{name}.py").read_text()
    for remedy in remedies:
        if remedy.edits:
            text = applied(text, remedy)
    fixed = load(tmp_path, f"{name}_fixed", text)
    return report, remedies, fixed, report_of(fixed)


def test_a_verified_edit_says_so_and_ends_the_growth(tmp_path):
    report, remedies, fixed, after = verified_and_applied(tmp_path, "losses_list")
    assert [r.verified for r in remedies] == [True] and "this edit ends the growth (verified)" in report.top.fix
    assert after.rows == [], after
    assert len(fixed["trainer"].losses) == 6, "every step's loss is still kept, as a number"


def test_a_dict_of_outputs_is_kept_as_numbers_per_value_and_keeps_every_entry(tmp_path):
    report, remedies, fixed, after = verified_and_applied(tmp_path, "dict_outputs")
    assert report.top.remedy.new == 'outputs.append({"loss": loss.item(), "mae": (prediction - y).abs().mean().item()})'
    assert after.rows == [], after
    assert len(fixed["outputs"]) == 6 and set(fixed["outputs"][0]) == {"loss", "mae"}, "the program's data survives"


def test_an_edit_that_would_raise_is_given_as_words_saying_it_is_unverified(tmp_path):
    text = (CASES / "dict_outputs.py").read_text().replace(
        'outputs.append({"loss": loss, "mae": (prediction - y).abs().mean()})',
        'record = {"loss": loss, "mae": (prediction - y).abs().mean()}\n    outputs.append(record)')
    report = report_of(load(tmp_path, "dict_record", text), verify=True)
    remedy = report.top.remedy
    assert remedy.verified is False and remedy.edits == [], remedy
    assert "unverified" in remedy.text, remedy.text


def test_the_sparse_buffer_gets_no_edit_that_does_not_end_its_growth(tmp_path):
    """Its rows are real state (the momentum of every row the batches touched): clearing it, or coalescing it, does
    not end the growth while the batches touch new rows; tried first, no such edit is offered."""
    report, remedies, _, _ = verified_and_applied(tmp_path, "sparse_momentum")
    assert [r.verified for r in remedies] == [False] and all(r.edits == [] for r in remedies), remedies
    assert "unverified" in report.top.fix, report.top.fix


def test_a_rollout_keeps_its_entries_and_every_field_loses_its_graph_where_it_goes_in(tmp_path):
    report, remedies, fixed, after = verified_and_applied(tmp_path, "rollout")
    edits = [edit for remedy in remedies for edit in remedy.edits]
    assert sorted(new for _, new in edits) == ['rollout["log_probs"].append(log_prob.detach())',
                                               'rollout["values"].append(value.detach())'], remedies
    assert report.nodes_per_step > 0 and after.nodes_per_step == 0, after
    assert len(fixed["rollout"]["log_probs"]) == len(fixed["rollout"]["values"]) == 6, "the rollout keeps its data"
    # what still grows is the entries themselves: a value (16 float32) and a log-probability, a view of the 16 x 2
    # log-softmax it keeps whole
    assert sorted(row.bytes_per_step for row in after.rows) == [16 * 4, 16 * 2 * 4], after
    assert "this edit ends the graph's growth (verified)" in report.top.fix, report.top.fix


def test_hooks_registered_on_a_parameter_every_step_are_counted_and_registering_once_ends_it(tmp_path):
    report, fixed, remedies = fixed_by_the_report(tmp_path, "parameter_hooks")
    assert report.top.hooks_per_step == 1 and report.top.holder.startswith("model.weight._backward_hooks"), report
    assert [r.action for r in remedies] == [REGISTER_ONCE] and "register_hook" in remedies[0].old, remedies
    assert fixed.rows == [], fixed
