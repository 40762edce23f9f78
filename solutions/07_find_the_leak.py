"""Worked solutions for notebook 07, find the leak (for instructors).

Run ``python solutions/07_find_the_leak.py`` to see the checkers' verdicts. Each fix keeps what the
script logs or carries, without its autograd graph.
"""
from course_utils.checks.nb07_find_the_leak import check_fix


def loss_history():
    """A loss kept as a tensor keeps its graph's nodes: keep the number."""
    return "losses.append(loss)", "losses.append(loss.item())"


def input_gradient():
    """create_graph=True makes points.grad a graph that points back to points: a cycle each step."""
    return "loss.backward(create_graph=True)", "loss.backward()"


def activation_hook():
    """The hook's std() saves the layer's output for a backward that never comes: log a float
    (``.detach()`` alone still keeps a tensor a step; the checker says so)."""
    return "history.append(output.std())", "history.append(output.std().item())"


def derivative_cache():
    """Keyed by id(), entries never hit again after their step: empty the cache once the step is done."""
    return "    optimizer.step()\n    return", "    optimizer.step()\n    jacobians.clear()\n    return"


def recurrent_state():
    """Truncate back-propagation through time: carry the memory's value, not its history. Then each backward() runs
    through its own step's graph only, and retain_graph=True, which silenced the error the history caused, would
    only keep that graph alive until the next step: remove it too (two lines: a list of pairs)."""
    return [("memory = torch.tanh(0.9 * memory +", "memory = torch.tanh(0.9 * memory.detach() +"),
            ("loss.backward(retain_graph=True)", "loss.backward()")]


def running_loss():
    """Summing tensors chains every step's graph: sum the numbers."""
    return "running_loss = running_loss + loss", "running_loss = running_loss + loss.item()"


def trainer_class():
    """self.total_loss is a tensor after the first +=: each step's graph hangs on it. Sum the numbers."""
    return "self.total_loss += loss", "self.total_loss += loss.item()"


def fit_state():
    """The dataclass keeps each evaluation's worst residual with its graph (which saved abs's output):
    keep the number. L-BFGS's own history is bounded by history_size and is not the leak."""
    return "state.worst_residuals.append(residual.abs().max())", "state.worst_residuals.append(residual.abs().max().item())"


def run_checks():
    return [check_fix(fix.__name__, fix) for fix in (loss_history, input_gradient, activation_hook, derivative_cache,
                                                      recurrent_state, running_loss, trainer_class, fit_state)]


if __name__ == "__main__":
    for result in run_checks():
        print(result)
