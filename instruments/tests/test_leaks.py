"""find_leaks names the line that leaks, exactly in bytes per step, for each kind of leak the clinic
teaches; is flat once fixed; attributes notebook cells; keeps nothing alive or installed."""
import gc
import inspect
import weakref

import pytest
import torch

from autograd_memory import LiveTensors, NotFlatError, find_leaks
from autograd_memory.formats import display_settings
from autograd_memory.seams.torch_internals import current_dispatch_mode, top_saved_tensor_hooks

N = 500  # elements: 2,000 bytes in float32


def line_of(function, marker):
    """The line number of the source line of ``function`` that contains ``marker``."""
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def growth_per_step(step, steps=3):
    """What the live tensors grow by per step after a warm-up step, read by a plain LiveTensors:
    the independent answer (the warm-up runs inside the meter too, so what a step frees of the
    previous step's tensors is subtracted)."""
    with LiveTensors() as live:
        step()
        gc.collect()
        start = live.bytes
        for _ in range(steps):
            step()
        gc.collect()
        grown = live.bytes - start
    assert grown % steps == 0, "the same bytes every step"
    return grown // steps


def test_a_kept_tensor_is_attributed_to_the_line_that_made_it_exactly():
    kept = []

    def step():
        x = torch.ones(N)
        kept.append(x * 2)  # leaks
    report = find_leaks(step)
    assert report.top.where.endswith(f"test_leaks.py, line {line_of(step, '# leaks')}")
    assert report.top.code == "kept.append(x * 2)  # leaks"
    assert (report.top.bytes_per_step, report.top.tensors_per_step) == (4 * N, 1)
    assert not report.top.during_backward
    assert report.bytes_per_step == 4 * N == growth_per_step(step)


def test_a_loss_history_keeps_the_loss_and_its_graph_nodes():
    w = torch.ones(N, requires_grad=True)
    losses = []

    def step():
        loss = (w * 3).sum()  # made here
        loss.backward()
        losses.append(loss)
    report = find_leaks(step)
    line = report.rows[0]
    assert line.where.endswith(f"line {line_of(step, '# made here')}")
    assert line.bytes_per_step == growth_per_step(step) == torch.ones(()).untyped_storage().nbytes()
    assert line.holder == "losses[-1]", report  # one row: the loss's bytes and its graph, kept by the list
    assert line.nodes_per_step == 2, report  # SumBackward0 and MulBackward0 per step


def test_storages_made_inside_backward_with_create_graph_are_marked_and_attributed_to_the_backward_line():
    x = torch.rand(N, requires_grad=True)

    def step():
        y = x.exp().sum()
        y.backward(create_graph=True)  # x.grad keeps a graph that points back to x
    report = find_leaks(step)
    backward = [row for row in report.rows if row.during_backward]
    assert backward and all(row.where.endswith(f"line {line_of(step, 'create_graph=True')}") for row in backward)
    assert sum(row.bytes_per_step for row in report.rows) == report.bytes_per_step == growth_per_step(step)
    x.grad = None


def test_a_derivative_cache_that_is_never_cleared_leaks_inside_autograd_grad():
    x = torch.rand(N, requires_grad=True)
    cache = {}

    def step():
        y = (x * x).sum()
        cache[len(cache)] = torch.autograd.grad(y, x, create_graph=True)[0]  # cached
    report = find_leaks(step)
    assert report.top.during_backward and report.top.where.endswith(f"line {line_of(step, '# cached')}")
    assert sum(row.bytes_per_step for row in report.rows) == growth_per_step(step)


def test_a_forward_hook_that_keeps_outputs_leaks_at_the_forward_line():
    torch.manual_seed(0)
    layer = torch.nn.Linear(20, 50)
    kept = []
    handle = layer.register_forward_hook(lambda module, args, output: kept.append(output))
    batch = torch.randn(10, 20)
    try:
        def step():
            layer(batch).sum().backward()  # forward
        report = find_leaks(step)
    finally:
        handle.remove()
    assert report.top.where.endswith(f"line {line_of(step, '# forward')}")
    assert report.top.bytes_per_step == 10 * 50 * 4  # the layer's output, one per step


def test_carrying_state_with_retain_graph_keeps_every_step_saved_tensors():
    w = torch.rand(N, requires_grad=True)
    state = [torch.zeros(N)]

    def step():
        state[0] = torch.tanh(state[0] + w)  # carried
        state[0].sum().backward(retain_graph=True)
    report = find_leaks(step)
    assert report.top.where.endswith(f"line {line_of(step, '# carried')}")
    assert report.top.bytes_per_step == 4 * N == growth_per_step(step)  # tanh's output, saved for backward
    w.grad = None


def test_a_running_loss_kept_as_a_tensor_grows_graph_nodes_not_bytes_and_the_variable_is_named():
    w = torch.rand(N, requires_grad=True)
    namespace = {"w": w, "torch": torch}
    exec("running_loss = 0.0\n"
         "def step():\n"
         "    global running_loss\n"
         "    loss = (w * w).sum()\n"
         "    loss.backward()\n"
         "    running_loss = running_loss + loss\n", namespace)
    report = find_leaks(namespace["step"])
    assert report.bytes_per_step == 0 and all(row.bytes_per_step == 0 for row in report.rows)
    assert report.top.where == "<string>, line 6" and report.top.holder == "running_loss"
    assert report.top.nodes_per_step == 3, report  # add, sum, mul
    with pytest.raises(NotFlatError, match="running_loss"):
        report.assert_flat()


def test_the_variable_is_found_in_the_callers_namespace_too():
    history = []
    w = torch.rand(3, requires_grad=True)
    report = find_leaks(lambda: history.append(w * 2))
    assert [row.holder for row in report.rows] == ["history[-1]"]


@pytest.mark.parametrize("fixed", ["item", "detach", "no_grad"])
def test_fixed_steps_are_flat(fixed):
    w = torch.rand(N, requires_grad=True)
    losses = []

    def step():
        if fixed == "no_grad":
            with torch.no_grad():
                losses.clear()
                losses.append((w * 3).sum())
            return
        loss = (w * 3).sum()
        loss.backward()
        losses.append(loss.item() if fixed == "item" else None)
    report = find_leaks(step)
    assert report.rows == [] and report.top is None, report
    report.assert_flat()
    assert "flat" in str(report) and "flat" in report._repr_html_()


def test_the_report_reads_as_a_table():
    kept = []
    report = find_leaks(lambda: kept.append(torch.ones(N)), steps=3)
    text, page = str(report), report._repr_html_()
    assert "+2.00 kB/step in 1 tensor/step" in text and "kept.append(torch.ones(N))" in text
    assert text.splitlines()[1:5] == ["  +2.00 kB/step in 1 tensor/step", f"      made at {report.top.where}: {report.top.code}",
                                      "      kept by kept[-1]",
                                      "      fix: kept gains entries every step: clear it at the start of each "
                                      "step, or keep a number or a smaller summary in it (.detach() keeps the same bytes)"], text
    assert "<table>" in page and "kept.append(torch.ones(N))" in page
    with pytest.raises(NotFlatError, match=r"kept.append\(torch.ones\(N\)\)"):
        report.assert_flat()


def test_on_a_slide_the_report_shows_its_largest_rows_at_full_size():
    kept_small, kept_large, kept_third = [], [], []

    def step():
        kept_small.append(torch.ones(N))
        kept_large.append(torch.ones(4 * N))
        kept_third.append(torch.ones(2 * N))
    report = find_leaks(step, steps=3)
    display_settings.use_large()
    try:
        slide = report._repr_html_()
    finally:
        display_settings.use_large(False)
    page = report._repr_html_()
    assert len(report.rows) == 3 and page.count("<tr><td") == 3 and "<small>" in page
    assert slide.count("<tr><td style='text-align:left'>+") == display_settings.REPORT_ROWS == 2, slide
    assert "kept_large" in slide and "kept_small" not in slide and "1 more row(s)" in slide
    assert "<small>" not in slide, "the OS's view is text on a slide too: at the slide's size"


def test_find_leaks_keeps_no_tensor_alive():
    kept = []
    report = find_leaks(lambda: kept.append(torch.ones(N) + 1))
    probe = weakref.ref(kept[0])
    kept.clear()
    gc.collect()
    assert probe() is None, "find_leaks (or its report) still holds a tensor the step made"
    assert report.top.bytes_per_step == 4 * N


def test_find_leaks_leaves_no_reference_in_the_callers_frame():
    def caller():
        kept_by_caller = torch.ones(N)
        report = find_leaks(lambda: None, steps=3)
        probe = weakref.ref(kept_by_caller)
        del kept_by_caller
        gc.collect()
        return report, probe
    report, probe = caller()
    assert probe() is None, "find_leaks read the caller's locals and left them referenced from its frame"
    assert report.top is None


@pytest.mark.parametrize("error", [RuntimeError("bad step"), KeyboardInterrupt()])
def test_nothing_stays_installed_when_the_step_raises(error):
    calls = []

    def step():
        calls.append(torch.ones(3))
        if len(calls) == 3:
            raise error
    gc.unfreeze()  # conftest froze torch's objects; find_leaks freezes only when nothing is frozen yet
    try:
        with pytest.raises(type(error)):
            find_leaks(step)
        assert gc.get_freeze_count() == 0, "find_leaks freezes the garbage collector's old objects only while it runs"
    finally:
        gc.freeze()
    assert current_dispatch_mode() is None
    assert top_saved_tensor_hooks() is None
    calls.clear()
    assert find_leaks(lambda: None).top is None  # and it runs again


def test_one_line_that_makes_tensors_in_forward_and_in_backward_is_one_row_with_both_phases():
    x = torch.rand(N, requires_grad=True)
    kept = []

    def step():
        kept.append((x.exp(), torch.autograd.grad((x * x).sum(), x, create_graph=True)[0]))  # both
    report = find_leaks(step)
    rows = [row for row in report.rows if row.code.endswith("# both")]
    assert len(rows) == 1, report
    assert set(rows[0].phases) == {"", "backward"} and "backward +" in str(rows[0]), report
    assert rows[0].bytes_per_step == sum(rows[0].phases.values()) == growth_per_step(step)


def test_tensor_counts_are_whole_numbers_and_never_zero_for_growing_bytes():
    buffer = [torch.zeros(0)]
    every_other = []

    def step():
        buffer[0] = torch.cat([buffer[0], torch.ones(10)])  # replaced by a bigger one
        if len(buffer[0]) % 20 == 0:
            every_other.append(torch.ones(10))  # every other step
    text = str(find_leaks(step, steps=4))
    assert "in 0 tensor" not in text and "0.5 tensor" not in text, text
    assert "(no new tensors: tensors replaced by bigger ones)" in text and "in 2 tensors over 4 steps" in text, text


def test_process_rss_is_out_of_the_headline_and_shown_as_the_os_view_with_its_noise():
    kept = []
    text = str(find_leaks(lambda: kept.append(torch.ones(N))))
    assert "RSS" not in text.splitlines()[0]
    assert "the OS's view (used for no row): process RSS" in text and "step-to-step changes from" in text


def test_a_tensor_made_in_a_helper_shows_the_line_that_called_it():
    w = torch.ones(N, requires_grad=True)
    compute = lambda: (w * 3).sum()  # noqa: E731  the helper
    losses = []

    def step():
        losses.append(compute())  # the call site
    report = find_leaks(step)
    assert report.top.code.endswith("# noqa: E731  the helper")
    assert f"called from {report.top.where.rpartition(', line')[0]}, line {line_of(step, '# the call site')}" in str(report)


@pytest.mark.parametrize("kind", ["generator", "async", "returns a generator"])
def test_generator_and_async_steps_are_refused_with_what_to_pass(kind):
    def generator():
        yield torch.ones(3)

    async def coroutine():
        return torch.ones(3)
    step = {"generator": generator, "async": coroutine, "returns a generator": lambda: generator()}[kind]
    with pytest.raises(TypeError, match="plain function that runs one step"):
        find_leaks(step)
    assert current_dispatch_mode() is None


def test_bad_arguments_say_what_to_pass():
    with pytest.raises(TypeError, match="training step as a function"):
        find_leaks(42)
    with pytest.raises(ValueError, match="steps=3 or more"):
        find_leaks(lambda: None, steps=0)
    with pytest.raises(ValueError, match="steps=3 or more"):
        find_leaks(lambda: None, steps=True)  # a bool is an int to Python, not a number of steps
    with pytest.raises(TypeError, match=r"calls the step with no arguments, but it takes \(batch\).*lambda: train_step"):
        find_leaks(lambda batch: None)


@pytest.mark.slow  # starts a Python
def test_in_a_notebook_kernel_rows_name_the_cell_by_its_execution_count():
    """ipykernel compiles each cell under a file name of its own; the row says `cell [N], line L`."""
    start_new_kernel = pytest.importorskip("jupyter_client.manager", reason="needs ipykernel").start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    printed = []

    def run(code):
        reply = client.execute_interactive(code, timeout=120, output_hook=lambda msg: printed.append(
            msg["content"].get("text", msg["content"].get("evalue", ""))))
        assert reply["content"]["status"] == "ok", printed

    try:
        run("import torch, autograd_memory as am\nkept = []")
        run("def step():\n    x = torch.ones(10)\n    kept.append(x + 1)")
        run("top = am.find_leaks(step).top\nprint(top.where, '|', top.code, '|', top.bytes_per_step)")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert "".join(printed).strip() == "cell [2], line 3 | kept.append(x + 1) | 40"


def test_a_model_passed_as_the_step_is_refused_with_what_to_pass():
    model = torch.nn.Linear(3, 1)
    with pytest.raises(TypeError, match=r"got a model \(Linear\), not a training step.*find_leaks\(train_step\)"):
        find_leaks(model)
    assert current_dispatch_mode() is None


def test_a_bounded_row_kept_by_a_holder_that_leaks_shares_its_fix_instead_of_nothing_to_fix():
    """One voice: bytes made once but saved in a graph that grows every step are freed by that graph's fix."""
    w = torch.ones(N, requires_grad=True)
    calls = [0]
    chain = [torch.zeros(())]

    def step():
        calls[0] += 1
        scale = w.exp() if calls[0] == 4 else w  # made once, saved in the chain's graph
        chain[0] = chain[0] + (scale * w).sum()
    report = find_leaks(step)
    once = next(row for row in report.bounded if "made once" in row.code)
    leak = next(row for row in report.rows if row.kept_in == once.kept_in == "chain")
    assert once.remedy.action == leak.remedy.action != "nothing" and "nothing to fix" not in once.fix, report
    assert once.fix.startswith("kept by chain, which leaks above"), report


def test_the_python_number_a_graph_saves_is_a_tensor_no_meter_sees_made_as_the_readme_says():
    """The documented limit: ``x * 0.5`` saves the 0.5 as an 8-byte float64 tensor made outside the dispatcher."""
    x = torch.ones(N, requires_grad=True)
    with LiveTensors() as live:
        y = x * 0.5
    saved = y.grad_fn._saved_other
    assert (saved.dtype, saved.untyped_storage().nbytes()) == (torch.float64, 8)
    assert live.bytes == 4 * N, "only y's storage is counted: the saved 0.5 is not seen"


def test_a_hook_registered_once_late_in_the_steps_reads_bounded_and_one_registered_every_step_a_leak():
    model = torch.nn.Linear(4, 4)
    x = torch.ones(2, 4)
    calls = [0]

    def step(every=False):
        calls[0] += 1
        if every or calls[0] == 6:  # once: in the last of the 5 steps after the warm-up
            model.register_forward_hook(lambda module, args, output: None)
        model(x).sum().backward()
    report = find_leaks(step)
    assert report.rows == [], f"one hook registered once is not a hook a step:\n{report}"
    assert [row.hooks_per_step for row in report.bounded] == [0.2], report
    every = find_leaks(lambda: step(every=True))
    assert [row.hooks_per_step for row in every.rows] == [1], every


# ------------------------------------------------------------------ what cannot be answered is refused


@pytest.mark.parametrize("steps", [0, 1, 2])
def test_fewer_than_three_measured_steps_are_refused_saying_why(steps):
    with pytest.raises(ValueError, match=r"steps=3 or more.*a window of fixed size"):
        find_leaks(lambda: None, steps=steps)


def test_no_warm_up_on_a_fresh_model_is_refused_and_allowed_once_every_grad_exists():
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(3, 4)

    def step():
        optimizer.zero_grad(set_to_none=False)
        model(x).sum().backward()
        optimizer.step()
    with pytest.raises(ValueError, match=r"warmup=0.*no \.grad yet: model\.weight.*warmup=1"):
        find_leaks(step, warmup=0)
    assert model.weight.grad is None, "a refused call runs no step"
    step()
    assert find_leaks(step, warmup=0).rows == [], "every .grad exists: no warm-up is needed"


def test_a_step_that_exits_says_on_which_call_and_leaves_nothing_installed():
    calls = []

    def step():
        calls.append(1)
        if len(calls) == 4:
            raise SystemExit(0)
    with pytest.raises(SystemExit) as stopped:
        find_leaks(step)
    assert stopped.value.code == 0, "the step's own exit code is kept for a caller that wants it"
    assert "the step exited (SystemExit: 0) on call 4 of 6" in str(stopped.value.__notes__), stopped.value.__notes__
    assert current_dispatch_mode() is None and top_saved_tensor_hooks() is None
    calls.clear()

    def interrupted():
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt) as stopped:
        find_leaks(interrupted)
    assert "the step was interrupted (KeyboardInterrupt) on call 2 of 6" in str(stopped.value.__notes__)
    assert current_dispatch_mode() is None and top_saved_tensor_hooks() is None


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="this torch has no mkldnn tensors")
def test_tensors_the_meters_cannot_count_make_the_report_say_so_instead_of_flat():
    kept, passing = [], []

    def step():
        kept.append(torch.ones(1000).to_mkldnn())
        passing.clear()
        passing.append(torch.ones(10).to_mkldnn())  # one alive at a time: it cannot hide a leak
    report = find_leaks(step)
    text = str(report)
    assert report.rows == [] and report.uncounted == {"mkldnn": 5}, report.uncounted
    assert "flat" not in text and "cannot tell" in text, text
    assert "+1 mkldnn tensor/step that the meters cannot count" in text, text
    with pytest.raises(NotFlatError, match="cannot count"):
        report.assert_flat()
    report.assert_flat(allow_uncounted=True)


def test_what_a_subclass_keeps_inside_is_found_by_the_search_and_its_kind_named():
    from .test_meter_edge_cases import Opaque

    kept = []
    report = find_leaks(lambda: kept.append(Opaque(torch.ones(1000)) * 2))
    assert report.uncounted == {"Opaque": 5} and "cannot tell" in str(report), report
    assert report.top.holder == "kept[-1].inner" and report.top.bytes_per_step == 4000, report
    assert "made where the meters cannot see" in report.top.where, report.top.where


def test_a_leak_made_on_another_thread_is_found_and_says_on_which():
    import threading

    kept = []

    def load():
        kept.append(torch.ones(N) * 2)

    def step():
        worker = threading.Thread(target=load, name="loader")
        worker.start()
        worker.join()
    report = find_leaks(step)
    assert report.top is not None and report.top.bytes_per_step == 4 * N, report
    assert report.top.holder == "kept[-1]" and "made on thread loader" in report.top.where, report


def test_a_file_beside_the_working_folder_is_named_relative_to_it_not_by_its_machine_path(tmp_path, monkeypatch):
    """A notebook in a copy's folder (my_notebooks/, lecture_condensed/) examines a script in notebooks/clinic/: the
    report names it as ``../notebooks/clinic/x.py``, the same from whichever folder the course was cloned into."""
    from autograd_memory.diagnosing.sites import source_location

    script = tmp_path / "notebooks" / "clinic" / "step.py"
    script.parent.mkdir(parents=True)
    script.write_text("def step():\n    return 1\n")
    namespace = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    (tmp_path / "my_notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "my_notebooks")
    assert source_location(namespace["step"].__code__, 2) == "../notebooks/clinic/step.py, line 2"
    monkeypatch.chdir(script.parent)
    assert source_location(namespace["step"].__code__, 2) == "step.py, line 2"
