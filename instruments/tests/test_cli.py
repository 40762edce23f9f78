"""python -m autograd_memory leaks|timeline|check: what a person sees in a terminal, and the exit codes CI reads.

One test runs the real command (``python -m autograd_memory`` in a new process); the others call the same
``cli.main(argv)`` in this process, which is what the command runs, without paying for a new process's
``import torch`` each time.
"""
import collections
import json
import os
import re
import subprocess
import sys

import pytest

from autograd_memory import cli

LEAKY = """\
import torch

w = torch.ones(100, requires_grad=True)
history = []


def step():
    doubled = w * 2
    history.append(doubled)


if __name__ == "__main__":
    raise SystemExit("the __main__ block ran")
"""
FLAT = """\
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(8, 4)


def step():
    optimizer.zero_grad()
    model(x).sum().backward()
    optimizer.step()


def train(model, batch):
    pass
"""


Result = collections.namedtuple("Result", "returncode stdout stderr")


@pytest.fixture
def run(monkeypatch, capsys):
    """``run(folder, *args)``: ``python -m autograd_memory *args`` in ``folder``, as ``cli.main`` in this process;
    the scripts it loads leave ``sys.path`` and ``sys.modules`` as they were."""
    folders = []

    def run(folder, *args):
        folders.append(os.path.realpath(folder))
        monkeypatch.chdir(folder)
        monkeypatch.setattr(sys, "path", list(sys.path))
        capsys.readouterr()
        code = cli.main(list(args))
        printed = capsys.readouterr()
        return Result(code, printed.out, printed.err)
    before = set(sys.modules)
    yield run
    for name in set(sys.modules) - before:  # the scripts, loaded as modules named for their files (not what torch
        if os.path.realpath(getattr(sys.modules[name], "__file__", None) or "/").startswith(tuple(folders)):  # imported:
            del sys.modules[name]  # torch._dynamo's second import fails, its first registered torch.library names)


@pytest.fixture
def scripts(tmp_path):
    (tmp_path / "leaky.py").write_text(LEAKY)
    (tmp_path / "flat.py").write_text(FLAT)
    (tmp_path / "broken.py").write_text("import torch\nraise ValueError('no data at /data/train')\n")
    return tmp_path


@pytest.mark.slow  # starts a Python
def test_a_leaking_step_is_named_by_its_line_and_exits_1(scripts):  # the real command, in its own process
    result = subprocess.run([sys.executable, "-m", "autograd_memory", "leaks", "leaky.py", "--steps", "3"],
                            cwd=scripts, capture_output=True, text=True, timeout=180)
    assert result.returncode == 1, result.stderr
    assert "+400 B/step in 1 tensor/step" in result.stdout, result.stdout
    assert "made at leaky.py, line 8: doubled = w * 2" in result.stdout, result.stdout
    assert "the __main__ block ran" not in result.stdout + result.stderr


def test_a_flat_step_exits_0(run, scripts):
    result = run(scripts, "leaks", "flat.py:step")
    assert result.returncode == 0, result.stderr
    assert "flat: nothing grows from step to step" in result.stdout


def test_json_carries_the_rows(run, scripts):
    result = run(scripts, "leaks", "leaky.py:step", "--json", "--warmup", "2")
    report = json.loads(result.stdout)
    assert result.returncode == 1 and report["leaks"] and report["warmup"] == 2
    assert report["rows"][0]["where"] == "leaky.py, line 8" and report["rows"][0]["bytes_per_step"] == 400
    assert report["rows"][0]["holder"], "the row says what keeps it"


@pytest.mark.parametrize("target, message", [
    ("missing.py", "no such file: missing.py"),
    ("flat.py:stepp", "flat.py has no function 'stepp'; it defines: step, train"),
    ("flat.py:train", "train(model, batch) needs arguments"),
    ("broken.py", "broken.py raised while it was loaded"),
])
def test_bad_input_exits_2_saying_what_to_do(run, scripts, target, message):
    result = run(scripts, "leaks", target)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr or target == "broken.py"


def test_a_script_that_raises_on_import_shows_its_own_traceback(run, scripts):
    stderr = run(scripts, "leaks", "broken.py").stderr
    assert 'broken.py", line 2, in <module>' in stderr and "ValueError: no data at /data/train" in stderr
    assert "importlib" not in stderr and "cli.py" not in stderr, "only the script's frames"


def test_timeline_finds_the_model_and_optimizer(run, scripts):
    result = run(scripts, "timeline", "flat.py")
    assert result.returncode == 0, result.stderr
    first, at_peak = result.stdout.splitlines()[:2]
    assert first.startswith("timeline of ") and "flat.py, line " in first
    assert "parameters 20 B" in at_peak and "(no model" not in result.stdout


def test_timeline_says_when_a_named_model_is_missing(run, scripts):
    result = run(scripts, "timeline", "flat.py", "--model", "net")
    assert result.returncode == 2 and "--model net: the script has no Module called 'net'" in result.stderr


def test_check_prints_one_probe_per_line_and_exits_0_here(run, tmp_path):
    from autograd_memory.seams.drift import PROBES

    result = run(tmp_path, "check")
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout
    assert "inside the tested range" in lines[0] and len(lines) == 1 + len(PROBES)
    assert all(line.startswith("[OK]") for line in lines[1:]), result.stdout


def test_check_brief_is_one_line_here_and_the_whole_report_on_an_untested_torch(run, tmp_path, monkeypatch):
    import torch

    from autograd_memory.seams.drift import TESTED

    low, high = (".".join(map(str, end)) for end in TESTED)
    result = run(tmp_path, "check", "--brief")
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines() == [f"torch {torch.__version__}: inside the tested range {low} to {high}"]
    monkeypatch.setattr(torch, "__version__", "2.99.0")  # as Colab's torch might be, newer than the range
    result = run(tmp_path, "check", "--brief")
    assert result.returncode == 1 and "torch 2.99.0: OUTSIDE the tested range" in result.stdout
    assert len(result.stdout.splitlines()) > 1, "outside the range, every probe is listed"


TRAINERS = """\
import torch


class Trainer:
    def __init__(self):
        self.w = torch.ones(100, requires_grad=True)
        self.losses = []

    def step(self):
        self.losses.append((self.w * 2).sum())


class NeedsModel:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def step(self):
        pass


def batches():
    yield torch.ones(3)


model = torch.nn.Linear(4, 1)
"""


@pytest.fixture
def trainers(tmp_path):
    (tmp_path / "trainers.py").write_text(TRAINERS)
    return tmp_path


def test_a_class_and_its_method_runs_on_a_new_instance_and_the_json_carries_the_fix(run, trainers):
    result = run(trainers, "leaks", "trainers.py:Trainer.step", "--json")
    assert result.returncode == 1, result
    report = json.loads(result.stdout)
    assert report["rows"][0]["holder"] == "self.losses[-1]", report
    assert report["rows"][0]["remedy"]["new"] == "self.losses.append((self.w * 2).sum().item())", report


def test_a_class_that_needs_arguments_says_why_it_cannot_be_made_and_what_to_write(run, trainers):
    result = run(trainers, "leaks", "trainers.py:NeedsModel.step")
    assert result.returncode == 2 and "no such file" not in result.stderr, result
    assert "NeedsModel(model, optimizer)" in result.stderr and "needs arguments" in result.stderr, result.stderr
    assert "needs_model = NeedsModel(" in result.stderr and "trainers.py:needs_model.step" in result.stderr, result.stderr


def test_a_generator_step_is_refused_without_a_traceback(run, trainers):
    result = run(trainers, "leaks", "trainers.py:batches")
    assert result.returncode == 2 and "generator function" in result.stderr, result
    assert "Traceback" not in result.stderr and "File " not in result.stderr, result.stderr


def test_a_model_as_the_step_is_refused_with_what_to_pass(run, trainers):
    result = run(trainers, "leaks", "trainers.py:model")
    assert result.returncode == 2 and "got a model (Linear), not a training step" in result.stderr, result
    assert "Traceback" not in result.stderr, result.stderr


# ------------------------------------------------------------------ exit codes the step cannot fake

STOPPING = """\
import sys

import torch

w = torch.ones(100, requires_grad=True)
calls = 0


def step():
    global calls
    calls += 1
    (w * 2).sum().backward()
    if calls == 3:
        {stop}
"""


@pytest.mark.parametrize("stop, words", [
    ("sys.exit(0)", "the step exited (SystemExit: 0) on call 3 of 6"),
    ("sys.exit(3)", "the step exited (SystemExit: 3) on call 3 of 6"),
    ("raise SystemExit", "the step exited (SystemExit) on call 3 of 6"),
    ("raise KeyboardInterrupt", "the step was interrupted (KeyboardInterrupt) on call 3 of 6"),
])
def test_a_step_that_exits_or_is_interrupted_exits_2_saying_on_which_call(run, tmp_path, stop, words):
    (tmp_path / "stopping.py").write_text(STOPPING.format(stop=stop))
    result = run(tmp_path, "leaks", "stopping.py")
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert words in result.stderr, result.stderr
    assert "no report" in result.stderr and result.stdout == "", "no report is printed: the steps did not all run"
    assert "Traceback" not in result.stderr, result.stderr


@pytest.mark.slow  # starts a Python and interrupts it
def test_ctrl_c_in_the_real_command_exits_2_without_a_traceback(tmp_path):
    import signal
    import time

    (tmp_path / "slow.py").write_text(
        "import pathlib, time\nimport torch\n\nw = torch.ones(10, requires_grad=True)\n\n\n"
        "def step():\n    pathlib.Path('started').touch()\n    (w * 2).sum().backward()\n    time.sleep(0.5)\n")
    process = subprocess.Popen([sys.executable, "-m", "autograd_memory", "leaks", "slow.py"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while not (tmp_path / "started").exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 2, (process.returncode, out, err)
    assert "the step was interrupted (KeyboardInterrupt) on call 1 of 6" in err, err
    assert "Traceback" not in err, err


@pytest.mark.parametrize("args, words", [
    (("--steps", "2"), "--steps 2 is too few: find_leaks needs --steps 3 or more measured steps"),
    (("--steps", "0"), "--steps 0 is too few"),
    (("--warmup", "-1"), "--warmup -1"),
])
def test_too_few_steps_exit_2_saying_what_to_pass(run, scripts, args, words):
    result = run(scripts, "leaks", "flat.py", *args)
    assert result.returncode == 2 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_no_warm_up_on_a_fresh_model_exits_2_saying_why_and_what_to_pass(run, scripts):
    result = run(scripts, "leaks", "flat.py", "--warmup", "0")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "--warmup 0" in result.stderr and "no .grad yet" in result.stderr and "--warmup 1" in result.stderr
    assert "Traceback" not in result.stderr and "the step raised" not in result.stderr, result.stderr


def test_the_help_lists_every_exit_code(capsys):
    with pytest.raises(SystemExit):
        cli.main(["leaks", "--help"])
    text = capsys.readouterr().out
    for code, meaning in ((0, "flat"), (1, "grows"), (2, "no answer"), (3, "cannot count")):
        assert re.search(rf"^ +{code} +.*{meaning}", text, re.M), f"exit {code} ({meaning}) is not in the help:\n{text}"


def test_tensors_the_meters_cannot_count_exit_3_unless_allowed(run, tmp_path):
    (tmp_path / "opaque.py").write_text(
        "import torch\n\nkept = []\n\n\ndef step():\n    kept.append(torch.ones(100).to_mkldnn())\n")
    if not __import__("torch").backends.mkldnn.is_available():
        pytest.skip("this torch has no mkldnn tensors")
    result = run(tmp_path, "leaks", "opaque.py")
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "cannot tell" in result.stdout and "mkldnn" in result.stdout, result.stdout
    result = run(tmp_path, "leaks", "opaque.py", "--json")
    assert result.returncode == 3 and json.loads(result.stdout)["uncounted"], result.stdout
    assert run(tmp_path, "leaks", "opaque.py", "--allow-uncounted").returncode == 0


def test_verify_tries_each_fix_on_a_copy_of_the_script(run, scripts):
    result = run(scripts, "leaks", "leaky.py", "--verify", "--json")
    row = json.loads(result.stdout)["rows"][0]
    assert result.returncode == 1 and row["remedy"]["verified"] is True, row
    assert "this edit ends the graph's growth (verified)" in row["fix"], row["fix"]
    assert (scripts / "leaky.py").read_text() == LEAKY, "the script on disk is not touched"
