"""python -m autograd_memory lint: a static check of the patterns that keep autograd graphs alive, on files and notebooks.

First the user's path (the command on a script, its exit codes, JSON, a notebook's cells, ``# noqa``), then each rule
on a leaky example and its fix, then the measured precision and recall on the course itself: every clinic mystery and
every leak a notebook builds on purpose is flagged, and nothing in the worked solutions, the fixed mysteries or the
course's own code is (the course's deliberate leaks say so in a ``# noqa`` with their reason). The corpus tests read
the course beside the instruments and skip where the instruments are tested alone.
"""
import importlib.util
import json
import pathlib
import re
import subprocess
import sys
import tokenize
from importlib import metadata

import pytest

from autograd_memory import cli
from autograd_memory.diagnosing.lint import check_file, check_notebook, check_paths, check_source
from autograd_memory.diagnosing.lint_rules import LINT_RULES

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLINIC = ROOT / "notebooks" / "clinic"
course = pytest.mark.skipif(not CLINIC.is_dir(), reason="the course (notebooks/, solutions/) is not beside the instruments")

LEAKY = """\
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for x in torch.randn(10, 8, 4):
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    total += loss
print(total / 10)
"""


def codes(source):
    return [(finding.line, finding.code) for finding in check_source(source)]


# ---- the user's path ---------------------------------------------------------------------------------------------
def test_the_command_names_the_line_and_the_fix_and_exits_1_then_0_once_fixed(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(LEAKY)
    assert cli.main(["lint", str(script)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{script}:11:5: AGM001 total accumulates a tensor with its graph across steps"), out
    rule = LINT_RULES["AGM001"]
    assert f"Fix: {rule.fix}" in out and rule.link in out, "the legend says the fix and where the course measures it"

    script.write_text(LEAKY.replace("total += loss", "total += loss.item()"))
    assert cli.main(["lint", str(script)]) == 0
    assert capsys.readouterr().out == ""


def test_json_for_ci_lists_each_finding_and_the_rules_it_breaks(tmp_path, capsys):
    (tmp_path / "train.py").write_text(LEAKY)
    assert cli.main(["lint", "--format", "json", str(tmp_path)]) == 1  # a folder: every .py and .ipynb in it
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == [{"path": str(tmp_path / "train.py"), "line": 11, "col": 5, "code": "AGM001",
                                   "message": report["findings"][0]["message"], "cell": None}]
    assert report["rules"]["AGM001"]["link"] == LINT_RULES["AGM001"].link
    (tmp_path / "train.py").write_text("print('flat')\n")
    assert cli.main(["lint", "--format", "json", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == {"findings": [], "rules": {}}


@pytest.mark.parametrize("name, content, says", [
    ("missing.py", None, "no such file or folder: "),
    ("broken.py", "def f(:\n", "broken.py:1: cannot parse it as Python"),
    ("latin1.py", b"x = '\xe9'\n", "cannot read "),
    ("notes.ipynb", "not json", "not a notebook"),
])
def test_bad_input_exits_2_with_what_to_do(tmp_path, capsys, name, content, says):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert cli.main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.startswith("python -m autograd_memory lint: "), err


def test_a_notebook_is_reported_by_cell_and_line_across_cells_and_magics():
    cells = [{"cell_type": "markdown", "source": "# A notebook"},
             {"cell_type": "code", "source": "%matplotlib inline\nimport torch\nnet = torch.nn.Linear(2, 1)\nkept = []"},
             {"cell_type": "code", "source": "!pip list\nfor x in torch.randn(5, 3, 2):\n    out = net(x)\n"
                                             "    kept.append(out)\nnet?"},
             {"cell_type": "code", "source": "%%timeit\nkept.append(net(x))"}]
    findings = check_notebook(json.dumps({"cells": cells}), "nb.ipynb")
    assert [str(f)[:27] for f in findings] == ["nb.ipynb:cell 3:4:5: AGM001"], findings


def test_noqa_silences_one_line_for_its_codes_or_for_all():
    leak = "for x in data:\n    loss = model(x).sum()\n    losses.append(loss){}\n"
    assert codes(leak.format("")) == [(3, "AGM001")]
    assert codes(leak.format("  # noqa: AGM001 (kept for a plot of three steps)")) == []
    assert codes(leak.format("  # noqa")) == []
    assert codes(leak.format("  # noqa: AGM004")) == [(3, "AGM001")], "another code's noqa does not silence it"


@pytest.mark.slow  # a new Python
def test_it_never_runs_or_imports_the_code_it_reads(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "train.py").write_text(f"import not_installed_anywhere\nopen({str(marker)!r}, 'w')\n" + LEAKY)
    probe = ("import sys; from autograd_memory.cli import main; code = main(['lint', sys.argv[1]]); "
             "print(code, 'torch' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "train.py")], capture_output=True, text=True)
    assert run.stdout.splitlines()[-1] == "1 False", run.stdout + run.stderr
    assert not marker.exists(), "the script was not run"


# ---- each rule, on a leak and on its fix -----------------------------------------------------------------------------
STEP = "import torch\nmodel = torch.nn.Linear(3, 1)\n{}"
RULE_CASES = {  # case: (code, the lines it flags, the code fixed; None where the code is right as it is)
    'a running total in a loop': ("""\
total = 0
for x in data:
    loss = model(x).sum()
    total += loss
""", [(4, 'AGM001')], """\
total = 0
for x in data:
    loss = model(x).sum()
    total += loss.item()
"""),
    'a total rebuilt from itself': ("""\
total = 0
for x in data:
    total = total + model(x).sum()
""", [(3, 'AGM001')], """\
total = 0
for x in data:
    total = total + float(model(x).sum())
"""),
    'an eval loop without no_grad': ("""\
outs = []
for x in data:
    outs.append(model(x))
""", [(3, 'AGM001')], """\
outs = []
with torch.no_grad():
    for x in data:
        outs.append(model(x))
"""),
    'a list made anew each iteration': ("""\
for x in data:
    parts = []
    parts.append(model(x))
""", [], None),
    'losses stacked for one backward': ("""\
losses = []
for x in data:
    losses.append(model(x).sum())
torch.stack(losses).sum().backward()
""", [], None),
    'a method keeps its loss': ("""\
class Trainer:
    def step(self, x):
        loss = self.model(x).sum()
        loss.backward()
        self.history.append(loss)
""", [(5, 'AGM001')], """\
class Trainer:
    def step(self, x):
        loss = self.model(x).sum()
        loss.backward()
        self.history.append(loss.item())
"""),
    "a dataclass's list in an L-BFGS closure": ("""\
def closure():
    loss = model(x).sum()
    loss.backward()
    state.losses.append(loss)
    return loss
optimizer.step(closure)
""", [(4, 'AGM001')], """\
def closure():
    loss = model(x).sum()
    loss.backward()
    state.losses.append(loss.detach())
    return loss
optimizer.step(closure)
"""),
    'a forward hook that logs its output': ("""\
log = []
def hook(module, args, output):
    log.append(output.std())
model.register_forward_hook(hook)
""", [(3, 'AGM001')], """\
log = []
def hook(module, args, output):
    log.append(output.std().item())
model.register_forward_hook(hook)
"""),
    'RNN outputs stacked within one call': ("""\
def forward(xs, h):
    outs = []
    for x in xs:
        h = torch.tanh(model(x) + h)
        outs.append(h)
    return torch.stack(outs)
""", [], None),
    'retain_graph on a graph the loop extends': ("""\
h = h0
for x in data:
    h = torch.tanh(model(x) + h)
    h.sum().backward(retain_graph=True)
""", [(3, 'AGM007'), (4, 'AGM002')], """\
h = h0
for x in data:
    h = torch.tanh(model(x) + h.detach())
    h.sum().backward()
"""),
    'retain_graph through one graph, as notebook 01 measures it flat': ("""\
loss = model(x).sum()
for _ in range(5):
    loss.backward(retain_graph=True)
""", [], None),
    'a hook registered every step': ("""\
for x in data:
    model.register_forward_hook(show)
    model(x).sum().backward()
""", [(2, 'AGM003')], """\
model.register_forward_hook(show)
for x in data:
    model(x).sum().backward()
"""),
    'a hook registered in forward': ("""\
class Net(torch.nn.Module):
    def forward(self, x):
        self.layer.register_forward_hook(show)
        return self.layer(x)
""", [(3, 'AGM003')], """\
class Net(torch.nn.Module):
    def forward(self, x):
        return self.layer(x)
"""),
    'hooks registered on every layer, in forward': ("""\
class Net(torch.nn.Module):
    def forward(self, x):
        for layer in self.layers:
            layer.register_forward_hook(show)
        return self.body(x)
""", [(4, 'AGM003')], None),
    'hooks registered once per layer': ("""\
for name, layer in model.named_children():
    layer.register_forward_hook(show)
""", [], None),
    'backward(create_graph=True)': ("""\
loss = model(x).pow(2).sum()
loss.backward(create_graph=True)
""", [(2, 'AGM004')], """\
loss = model(x).pow(2).sum()
grads = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
"""),
    'autograd.grad(create_graph=True) under no_grad': ("""\
u = model(x)
with torch.no_grad():
    du, = torch.autograd.grad(u.sum(), x, create_graph=True)
""", [(3, 'AGM005')], """\
u = model(x)
du, = torch.autograd.grad(u.sum(), x, create_graph=True)
"""),
    'the same, from an imported grad in a no_grad function': ("""\
from torch.autograd import grad
@torch.no_grad()
def slope(u, x):
    return grad(u, x, create_graph=True)
""", [(4, 'AGM005')], """\
from torch.autograd import grad
def slope(u, x):
    return grad(u, x, create_graph=True)
"""),
    'a derivative detached, then made to require grad': ("""\
u = model(x)
u_x, = torch.autograd.grad(u.sum(), x, create_graph=True)
u_x = u_x.detach().clone().requires_grad_(True)
loss = u_x.pow(2).mean()
""", [(3, 'AGM006')], """\
u = model(x)
u_x, = torch.autograd.grad(u.sum(), x, create_graph=True)
loss = u_x.pow(2).mean()
"""),
    'the same with requires_grad = True': ("""\
u_x, = torch.autograd.grad(model(x).sum(), x, create_graph=True)
d = u_x.detach()
d.requires_grad = True
""", [(3, 'AGM006')], """\
x = points.detach().requires_grad_(True)
u_x, = torch.autograd.grad(model(x).sum(), x)
"""),
    'a state carried and differentiated each step': ("""\
x = x0
for target in targets:
    x = x + dt * model(x)
    (x - target).pow(2).sum().backward()
""", [(3, 'AGM007')], """\
x = x0
for target in targets:
    x = x.detach()
    x = x + dt * model(x)
    (x - target).pow(2).sum().backward()
"""),
    'a value set at the end of a step and differentiated at the start of the next': ("""\
previous = None
for x in data:
    if previous is not None:
        (model(x) - previous).pow(2).mean().backward()
    previous = model(x)
""", [(5, 'AGM007')], """\
previous = None
for x in data:
    if previous is not None:
        (model(x) - previous).pow(2).mean().backward()
    previous = model(x).detach()
"""),
    'full backpropagation, once after the loop': ("""\
x, total = x0, 0.0
for target in targets:
    x = x + dt * model(x)
    total = total + (x - target).pow(2).sum()
total.backward()
""", [], None),
    'truncated windows: backward, then reset': ("""\
x, total = x0, 0.0
for k, target in enumerate(targets):
    x = x + dt * model(x)
    total = total + (x - target).pow(2).sum()
    if k % 5 == 0:
        total.backward()
        x, total = x.detach(), 0.0
""", [], None),
    'a global state carried across calls of the step': ("""\
def step():
    global h
    h = torch.tanh(model(inputs) + h)
    h.sum().backward()
""", [(3, 'AGM007')], """\
def step():
    global h
    h = torch.tanh(model(inputs) + h.detach())
    h.sum().backward()
"""),
    "a module's hidden state": ("""\
class RNN(torch.nn.Module):
    def forward(self, x):
        self.hidden = self.cell(x, self.hidden)
        return self.hidden
""", [(3, 'AGM007')], """\
class RNN(torch.nn.Module):
    def forward(self, x):
        self.hidden = self.cell(x, self.hidden.detach())
        return self.hidden
"""),
    'a pack hook that returns the tensor itself': ("""\
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    y = model(x)
""", [(1, 'AGM008')], """\
with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
    y = model(x)
"""),
}


@pytest.mark.parametrize("case", RULE_CASES)
def test_each_rule_flags_the_leak_and_not_its_fix(case):
    leaky, expected, fixed = RULE_CASES[case]
    offset = STEP.count("\n")
    assert codes(STEP.format(leaky)) == [(line + offset, code) for line, code in expected]
    assert fixed is None or codes(STEP.format(fixed)) == []


def test_every_rule_has_a_case():
    flagged = {code for _, expected, _ in RULE_CASES.values() for _, code in expected}
    assert flagged == set(LINT_RULES), f"rules without a case: {set(LINT_RULES) - flagged}"


SHAPES = {  # training code as people write it: (code, the lines flagged)
    "a Trainer's epochs and batches, summing numbers": ("""\
class Trainer:
    def fit(self, loader, epochs):
        for epoch in range(epochs):
            running = 0.0
            for x, y in loader:
                loss = self.criterion(self.model(x), y)
                loss.backward()
                running += loss.item()
""", []),
    "the same, summing tensors": ("""\
def fit(model, loader, optimizer, criterion):
    for epoch in range(3):
        running = 0.0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss
""", [(8, "AGM001")]),
    "a Lightning-style training_step that logs to a list": ("""\
class Module:
    def training_step(self, batch, index):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.train_losses.append(loss)
        return loss
""", [(5, "AGM001")]),
    "a step that returns the loss and the output": ("""\
def step(x):
    out = model(x)
    loss = out.pow(2).mean()
    loss.backward()
    return loss, out
logs = {"loss": []}
for x in data:
    loss, out = step(x)
    logs["loss"].append(loss)
""", [(9, "AGM001")]),
    "a step that returns a number": ("""\
def step(x):
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss.item()
logs = [step(x) for x in data]
for x in data:
    logs.append(step(x))
""", []),
    "a moving average of the loss": ("""\
average = None
for x in data:
    loss = model(x).mean()
    loss.backward()
    average = loss if average is None else 0.9 * average + 0.1 * loss
""", [(5, "AGM001")]),
    "an evaluation under a no_grad decorator": ("""\
@torch.no_grad()
def evaluate(model, loader):
    predictions = []
    for x, _ in loader:
        predictions.append(model(x))
    return predictions
""", []),
    "gradient accumulation and a GAN's detached fake": ("""\
for i, real in enumerate(loader):
    fake = generator(noise)
    d_loss = criterion(discriminator(real), ones) + criterion(discriminator(fake.detach()), zeros)
    (d_loss / 4).backward()
    if i % 4 == 0:
        optimizer.step()
""", []),
}


@pytest.mark.parametrize("case", SHAPES)
def test_training_code_as_people_write_it(case):
    source, expected = SHAPES[case]
    assert codes(source) == expected


@course
def test_every_rule_links_a_section_its_notebook_has():
    for rule in LINT_RULES.values():
        cells = json.loads((ROOT / "notebooks" / rule.notebook).read_text())["cells"]
        headings = {line.lstrip("#").strip() for cell in cells if cell["cell_type"] == "markdown"
                    for line in "".join(cell["source"]).splitlines() if line.startswith("#")}
        assert rule.section in headings, f"{rule.code}: no heading {rule.section!r} in {rule.notebook}"


# ---- precision and recall on the course ------------------------------------------------------------------------------
# Every clinic mystery: the code and the line find_leaks names (notebook 07's check cells).
MYSTERIES = {
    "loss_history": [("AGM001", "losses.append(loss)")],
    "input_gradient": [("AGM004", "loss.backward(create_graph=True)")],
    "activation_hook": [("AGM001", "history.append(output.std())")],
    "derivative_cache": [("AGM001", "jacobians[key] = (y, torch.autograd.grad(")],
    "recurrent_state": [("AGM007", 'memory = torch.tanh(0.9 * memory + model["encoder"](readings))'),
                        ("AGM002", "loss.backward(retain_graph=True)")],
    "running_loss": [("AGM001", "running_loss = running_loss + loss")],
    "trainer_class": [("AGM001", "self.total_loss += loss")],
    "fit_state": [("AGM001", "state.worst_residuals.append(residual.abs().max())")],
}
# Every leak a notebook builds on purpose: (notebook, code, a fragment of the flagged line)
DEMOS = {
    "01: total_loss += loss in an evaluation loop": [("01_graph_lifecycle", "AGM001", "total_loss += loss.item() if")],
    "01: total_loss += loss in a training loop": [("01_graph_lifecycle", "AGM001", "        total_loss += loss")],
    "01: backward(create_graph=True), del and gc": [("01_graph_lifecycle", "AGM004", "    loss.backward(create_graph=True)")],
    "01: the deleted parameter the cycle keeps": [("01_graph_lifecycle", "AGM004", "throwaway.exp().sum().backward(")],
    "02: no_grad around autograd.grad": [("02_no_grad_vs_detach", "AGM005", "(dy_dw,) = torch.autograd.grad(y, w, create")],
    "04: per-step backward without detach": [("04_euler_ode_truncation", "AGM007", "no detach: x hangs on the previous")],
    "04: per-step retain_graph=True, no detach": [
        ("04_euler_ode_truncation", "AGM007", "    x = x + dt * field(x)"),
        ("04_euler_ode_truncation", "AGM002", "step_loss(x, targets[step % len(targets)]).backward(retain_graph=True)")],
    "04: the same, against full backpropagation": [
        ("04_euler_ode_truncation", "AGM007", "    x = x + dt * probe(x)"),
        ("04_euler_ode_truncation", "AGM002", "step_loss(x, targets[step]).backward(retain_graph=True)")],
    "04: the same, with optimizer.step()": [
        ("04_euler_ode_truncation", "AGM007", "x = x + dt * probe(x)"),
        ("04_euler_ode_truncation", "AGM002", "        step_loss(x, target).backward(retain_graph=True)")],
    "04: a rollout kept for a plot, grad on": [("04_euler_ode_truncation", "AGM001", "trajectory.append(x)"),
                                               ("04_euler_ode_truncation", "AGM001", "        x = x + dt * field(x)")],
    "05: no_grad around autograd.grad": [("05_laplacian_pinn", "AGM005", "first, = torch.autograd.grad(u_sum, xyt")],
    "05: the kept loss tensor": [("05_laplacian_pinn", "AGM001", "history.append(loss if keep.startswith(")],
    "05: u kept for plotting": [("05_laplacian_pinn", "AGM001", "pictures.append(net(grid))")],
    "05: backward(create_graph=True) in the loop": [("05_laplacian_pinn", "AGM004", "loss.backward(create_graph=(keep")],
    "07: identity saved-tensor hooks": [("07_find_the_leak", "AGM008", "saved_tensors_hooks(lambda t: t, lambda t: t)")],
    "08: the gradient penalty logged as a tensor": [("08_graph_inside_the_step", "AGM001", "penalties.append(critic_step())")],
}
# The deliberate leaks out of a static check's sight (each pinned by a test below): find_leaks sees them, it runs the step.
MISSED = ["01: create_graph=True passed through **backward_options",
          "08: a rollout's states, whose graph comes from the notebook's own integrator function"]
CLEAN = ["solutions", "course_utils", "tools", "instruments/src"]


def _flagged_lines(path):
    """(code, the flagged line's text) for every finding in a file or notebook."""
    findings = check_file(str(path))
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        text = {f: "".join(cells[f.cell - 1]["source"]).splitlines()[f.line - 1] for f in findings}
    else:
        lines = path.read_text().splitlines()
        text = {f: lines[f.line - 1] for f in findings}
    return [(f.code, text[f]) for f in findings]


@course
def test_recall_every_clinic_mystery_is_flagged_on_the_line_find_leaks_names():
    missed = [(name, code, fragment) for name, expected in MYSTERIES.items() for code, fragment in expected
              if not any(c == code and fragment in line for c, line in _flagged_lines(CLINIC / f"{name}.py"))]
    assert not missed, f"recall {len(MYSTERIES) - len({m[0] for m in missed})}/{len(MYSTERIES)} mysteries; missed {missed}"
    assert sorted(p.stem for p in CLINIC.glob("*.py")) == sorted(MYSTERIES), "a new mystery needs its row here"


@course
def test_recall_every_leaky_demo_of_the_notebooks_is_flagged_and_precision_nothing_else_is():
    flagged = {nb: _flagged_lines(nb) for nb in sorted((ROOT / "notebooks").glob("*.ipynb"))}
    by_name = {nb.stem: lines for nb, lines in flagged.items()}
    missed = [demo for demo, expected in DEMOS.items()
              if not all(any(c == code and fragment in line for c, line in by_name[notebook])
                         for notebook, code, fragment in expected)]
    assert not missed, f"recall {len(DEMOS) - len(missed)}/{len(DEMOS)} demos; missed {missed}"
    expected = [(notebook, code, fragment) for rows in DEMOS.values() for notebook, code, fragment in rows]
    unexpected = [(nb.name, code, line.strip()) for nb, lines in flagged.items() for code, line in lines
                  if not any(nb.stem == n and c == code and f in line for n, c, f in expected)]
    assert not unexpected, f"flagged outside the demos (false positives): {unexpected}"


@course
def test_a_leak_passed_through_keyword_arguments_is_out_of_sight():
    """The one deliberate leak the lint misses: notebook 01 §5 runs its five backward passes through
    ``saved_over_calls(create_graph=True)``, whose body calls ``loss.backward(retain_graph=True, **backward_options)``:
    the option arrives at run time, which no static check reads. ``find_leaks`` sees it (it runs the step)."""
    lines = _flagged_lines(ROOT / "notebooks" / "01_graph_lifecycle.ipynb")
    assert not any("**backward_options" in line for _, line in lines)


@course
def test_a_graph_made_inside_the_notebooks_own_function_is_out_of_sight():
    """Notebook 08's rollout leak keeps ``(q, p)`` from ``leapfrog_step(...)``, a function of the notebook's own whose
    graph (``create_graph=True`` inside a lambda it is given) no static reading follows; ``find_leaks`` names the line."""
    lines = _flagged_lines(ROOT / "notebooks" / "08_graph_inside_the_step.ipynb")
    assert not any("trajectory.append((q, p))" in line for _, line in lines)


@course
def test_precision_nothing_in_the_solutions_the_fixed_mysteries_or_the_course_code_is_flagged():
    findings = check_paths([str(ROOT / folder) for folder in CLEAN])
    assert findings == [], "\n".join(map(str, findings))
    sys.path.insert(0, str(ROOT))
    try:
        spec = importlib.util.spec_from_file_location("worked_07", ROOT / "solutions" / "07_find_the_leak.py")
        worked = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(worked)
    finally:
        sys.path.remove(str(ROOT))
    for name in MYSTERIES:
        fix = getattr(worked, name)()
        source = (CLINIC / f"{name}.py").read_text()
        for old, new in fix if isinstance(fix, list) else [fix]:
            assert old in source, f"{name}: the worked fix's line {old!r} is not in the script"
            source = source.replace(old, new, 1)
        assert check_source(source, f"{name}.py, fixed") == [], f"{name}: the fixed script is still flagged"


@course
def test_the_course_code_silences_only_its_deliberate_leaks_each_with_a_reason():
    """Without their noqa comments, the course's own deliberate leaks are flagged: the source article's posted
    PINN "fixes" (no_grad around autograd.grad, the Laplacian detached and made to require grad), and the leaky steps
    of the checkers, explorers, self-test and handouts that measure a leak on purpose."""
    silenced = []
    for folder in CLEAN:
        for path in sorted((ROOT / folder).rglob("*.py")):
            with path.open() as source:
                for token in tokenize.generate_tokens(source.readline):
                    if token.type == tokenize.COMMENT and re.search(r"noqa: AGM\d+", token.string):
                        assert re.search(r"noqa: AGM\d+ \(.+\)", token.string), (
                            f"{path}:{token.start[0]}: a noqa: AGM needs its reason")
                        silenced.append((path, token.start[0]))
    pinn = (ROOT / "course_utils" / "problems" / "pinn.py").read_text()
    unsilenced = re.sub(r"  # noqa: AGM\d+ \([^)]*\)", "", pinn)
    posted = [f.code for f in check_source(unsilenced) if f.code in ("AGM005", "AGM006")]
    assert posted == ["AGM005"] * 5 + ["AGM006"] * 2, posted
    assert len(silenced) >= 7


# ---- the lint next to find_leaks, on the same code -------------------------------------------------------------------
def test_where_the_lint_and_find_leaks_disagree():
    """instruments/tests/leak_cases, which test_leak_cases.py runs under find_leaks. ``first_and_last`` keeps two
    losses and the latest one with their graphs: the lint flags both stores, find_leaks calls it bounded (nothing grows
    after the first steps): both are right, the lint about the pattern and find_leaks about the growth.
    ``cached_features`` keeps graphs in an ``lru_cache``, which no assignment shows: the lint misses it, find_leaks
    measures it. ``smoothed_late`` keeps one more step's loss in an attribute replaced every step: both call it no
    leak."""
    cases = pathlib.Path(__file__).parent / "leak_cases"
    assert {f.code for f in check_file(str(cases / "first_and_last.py"))} == {"AGM001"}
    assert check_file(str(cases / "smoothed_late.py")) == []
    assert check_file(str(cases / "cached_features.py")) == []


# ---- flake8 ----------------------------------------------------------------------------------------------------------
@pytest.mark.slow  # a new Python
def test_flake8_loads_the_plugin_and_reports_its_codes(tmp_path):
    plugins = {entry.name: entry.value for entry in metadata.entry_points(group="flake8.extension")}
    assert plugins.get("AGM") == "autograd_memory.flake8_plugin:Checker"
    script = tmp_path / "train.py"
    script.write_text(LEAKY.replace("    optimizer.step()\n", "    optimizer.step()\n    losses = [loss]  # noqa: AGM001\n"))
    run = subprocess.run([sys.executable, "-m", "flake8", "--select", "AGM", str(script)], capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.splitlines() == [f"{script}:12:5: AGM001 {check_source(LEAKY)[0].message}"], run.stdout


# ---- the README says what the rules and the measurements say ---------------------------------------------------------
README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.skipif(not README.exists(), reason="the instruments' README is not beside its tests")
def test_the_readme_lists_every_rule_and_the_measured_recall():
    text = README.read_text()
    for rule in LINT_RULES.values():
        row = (f"| `{rule.code}` | {rule.title} | {rule.keeps} | {rule.fix} | "
               f"[{rule.notebook[:2]}](../{rule.link}) |")
        assert row in text, f"instruments/README.md's rules table: {row}"
    assert f"recall {len(MYSTERIES)} of {len(MYSTERIES)} clinic mysteries" in text
    assert f"{len(DEMOS)} of {len(DEMOS) + len(MISSED)} leaks the notebooks build on purpose" in text  # the misses: above
