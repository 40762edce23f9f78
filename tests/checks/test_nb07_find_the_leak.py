"""The clinic's checker: a fix passes only when the script is flat and trains as intended."""
import subprocess
import sys

import pytest

from autograd_memory import find_leaks
from course_utils.checks import ExerciseFailed
from course_utils.checks.nb07_find_the_leak import CLINIC as CLINIC_FOLDER
from course_utils.checks.nb07_find_the_leak import MYSTERIES, check_fix, mystery


def test_the_clinic_has_at_least_four_mysteries_and_each_one_leaks():
    assert len(MYSTERIES) >= 4
    for name in MYSTERIES:
        namespace = mystery(name)
        assert {"step", "model", "optimizer"} <= set(namespace), name
        assert find_leaks(namespace["step"], steps=3).top is not None, f"{name}.py should leak"


def test_an_unsolved_exercise_is_not_attempted():
    def fix():
        raise NotImplementedError
    assert check_fix("loss_history", fix).status == "not attempted"


def test_the_right_fix_passes():
    assert check_fix("loss_history", lambda: ("losses.append(loss)", "losses.append(float(loss))")).passed


def test_a_line_that_is_not_in_the_script_is_named():
    with pytest.raises(ExerciseFailed, match="appears 0 times in loss_history.py"):
        check_fix("loss_history", lambda: ("losses.append(los)", "pass"))


def test_a_fix_that_still_leaks_shows_what_still_grows():
    with pytest.raises(ExerciseFailed, match=r"still grows every step:(?s:.*)\+8 B/step(?s:.*)made at .*line 20"):
        check_fix("activation_hook", lambda: ("history.append(output.std())", "history.append(output.std().detach())"))


def test_a_fix_that_changes_the_training_is_caught():
    with pytest.raises(ExerciseFailed, match="gradient of encoder.weight differs"):
        check_fix("recurrent_state", lambda: ("model[\"encoder\"](readings))", "model[\"encoder\"](readings)).detach()"))


def test_an_answer_that_is_not_two_strings_says_what_to_return():
    with pytest.raises(ExerciseFailed, match="two strings"):
        check_fix("loss_history", lambda: "losses.append(loss.item())")


def test_an_unknown_script_lists_the_clinic():
    with pytest.raises(ValueError, match="loss_history"):
        mystery("no_such_script")


def test_the_clinic_has_a_trainer_class_and_a_dataclass_state_whose_holders_sit_on_objects():
    trainer = find_leaks(mystery("trainer_class")["step"], steps=3)
    assert trainer.bytes_per_step == 0 and trainer.top.holder == "self.total_loss", trainer
    assert "Trainer" in trainer.top.holder_note
    fit = find_leaks(mystery("fit_state")["step"], steps=3)
    assert fit.top.holder == "state.worst_residuals[-1]", fit
    assert fit.bounded and all("optimizer" in row.bounded for row in fit.bounded), "L-BFGS's own history is shown apart"


@pytest.mark.parametrize("name, fix", [
    ("trainer_class", ("self.total_loss += loss", "self.total_loss += loss.item()")),
    ("fit_state", ("append(residual.abs().max())", "append(float(residual.abs().max()))")),
])
def test_the_right_fixes_of_the_object_mysteries_pass(name, fix):
    assert check_fix(name, lambda: fix).passed


@pytest.mark.parametrize("name, fix", [
    # a number kept in another form than the reference's: still the number, no graph
    ("running_loss", ("running_loss + loss\n", "running_loss + loss.detach()\n")),
    ("trainer_class", ("self.total_loss += loss\n", "self.total_loss += float(loss)\n")),
    ("activation_hook", ("history.append(output.std())", "history.append(float(output.std()))")),
    ("input_gradient", ("loss.backward(create_graph=True)", "loss.backward(create_graph=False)")),
    # the truncation done on a line of its own, and retain_graph=True gone with the leak it silenced
    ("recurrent_state", [("    optimizer.zero_grad()\n", "    optimizer.zero_grad()\n    memory = memory.detach()\n"),
                         ("backward(retain_graph=True)", "backward()")]),
    # the cache emptied when the step is done rather than when the next one starts
    ("derivative_cache", ("    optimizer.step()\n    return", "    optimizer.step()\n    jacobians.clear()\n    return")),
])
def test_other_right_fixes_pass(name, fix):
    result = check_fix(name, lambda: fix)
    assert result.passed, result


def test_a_fix_of_several_lines_is_a_list_of_pairs_and_each_line_must_be_found():
    with pytest.raises(ExerciseFailed, match=r"'backward\(keep=True\)' appears 0 times in recurrent_state.py"):
        check_fix("recurrent_state", lambda: [("0.9 * memory +", "0.9 * memory.detach() +"),
                                              ("backward(keep=True)", "backward()")])
    with pytest.raises(ExerciseFailed, match="or a list of such pairs"):
        check_fix("recurrent_state", lambda: [("0.9 * memory +",)])


def test_a_detached_tensor_per_evaluation_still_grows_and_is_refused():
    with pytest.raises(ExerciseFailed, match=r"still grows every step:(?s:.*)kept by state.worst_residuals\[-1\]"):
        check_fix("fit_state", lambda: ("append(residual.abs().max())", "append(residual.abs().max().detach())"))


# The floor that tests/checks/test_wrong_answers.py holds every clinic script to: (script, the line it leaks on, a
# plausible wrong fix, a fragment of the message that must explain it).
CLINIC = [
    ("loss_history", "losses.append(loss)", "losses.append(loss.detach())", "still grows every step"),
    # W3: flat, and it trains the same, but it keeps the graph that backward() should free
    ("input_gradient", "loss.backward(create_graph=True)", "loss.backward(retain_graph=True)", "retain_graph=True keeps it"),
    ("activation_hook", "history.append(output.std())", "history.append(output.std().detach())", "still grows every step"),
    ("derivative_cache", "key = (id(y), id(x))", "key = (y, x)", "still grows every step"),
    ("recurrent_state", 'model["encoder"](readings))', 'model["encoder"](readings)).detach()',
     "gradient of encoder.weight differs"),
    ("running_loss", "running_loss = running_loss + loss\n", "running_loss += loss\n", "still grows every step"),
    ("trainer_class", "self.total_loss += loss\n", "self.total_loss = self.total_loss + loss\n", "still grows every step"),
    # a detached tensor per evaluation has no graph, but the list still gains a tensor every evaluation
    ("fit_state", "append(residual.abs().max())", "append(residual.abs().max().detach())", "still grows every step"),
    # the truncation that makes retain_graph=True unneeded, with retain_graph=True left in: every step's graph stays
    # until the next step replaces it
    ("recurrent_state", "0.9 * memory +", "0.9 * memory.detach() +", "retain_graph=True keeps"),
    # retain_graph=True removed alone: the memory still carries the previous step's (freed) graph, and backward raises
    ("recurrent_state", "loss.backward(retain_graph=True)", "loss.backward()", "carried from one step to the next"),
    # the logging deleted: flat, and it trains the same, but the script no longer records what it was written for
    ("loss_history", "    losses.append(loss)\n", "\n", "one loss per step"),
    ("activation_hook", "history.append(output.std())", "pass", "spread of each layer"),
    ("trainer_class", "self.total_loss += loss\n", "\n", "summed over the epoch"),
    ("running_loss", "running_loss = running_loss + loss\n", "running_loss = loss.item()\n", "summed over the epoch"),
    # the graph kept in another container: one element, replaced every step (flat, but never the number)
    ("loss_history", "losses.append(loss)", "losses[:] = [loss]", "with its graph"),
    ("fit_state", "state.worst_residuals.append(residual.abs().max())",
     "state.worst_residuals = [residual.abs().max()]", "with its graph"),
    ("activation_hook", "history.append(output.std())", "history[:] = [output.std()]", "with its graph"),
    # the cache deleted: each Jacobian the loss uses twice is computed twice
    ("derivative_cache", "jacobians[key] = (y, torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0])\n"
     "    return jacobians[key][1]", "return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]",
     "computed once"),
    # the leak's argument kept, its symptom cleared: create_graph=True still builds a graph of every gradient
    ("input_gradient", "optimizer.step()\n", "optimizer.step()\n    points.grad = None\n", "create_graph=True"),
    # a typo in the fix: the script's own error, with its line
    ("loss_history", "losses.append(loss)", "losses.append(loss.itme())", "AttributeError"),
]


# Runs a clinic script as `python script.py` does, in a fresh process (torch warns once per process), with every
# warning an error and its __main__ loops cut to 3 iterations (as written they run for minutes, leaking on purpose).
_RUN_MAIN = """
import pathlib, sys, warnings
warnings.filterwarnings("error")
# input_gradient's leak is backward(create_graph=True), which torch warns about: the mystery itself, not its main
warnings.filterwarnings("ignore", message="Using backward\\(\\) with create_graph=True")
path = sys.argv[1]
namespace = {"__name__": "__main__", "__file__": path, "range": lambda *bounds: range(*bounds)[:3]}
exec(compile(pathlib.Path(path).read_text(), path, "exec"), namespace)
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", MYSTERIES)
def test_each_script_s_main_runs_without_a_warning(name):
    script = CLINIC_FOLDER / f"{name}.py"
    assert 'if __name__ == "__main__":' in script.read_text(), f"{name}.py has no __main__ block"
    done = subprocess.run([sys.executable, "-c", _RUN_MAIN, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, f"{name}.py's main raised (a warning counts):\n{done.stderr[-2000:]}"
