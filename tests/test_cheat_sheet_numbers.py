"""The cheat sheet's per-step numbers (tools/student_handouts.py) are growth per step: the slope of the bytes held over
two step counts, so that what is kept once (the batch, the parameters) is not spread over the steps; and each names
the model it measured."""
from autograd_memory import format_bytes
from tools import student_handouts

RULES = {good: measure for _, _, good, measure in student_handouts.RULES}
FLOAT = 4


def test_total_loss_keeps_one_forwards_activations_per_step_of_the_named_mlp():
    text = RULES["total_loss += loss.item()"]()
    per_step = 32 * 64 * FLOAT + 32 * 1 * FLOAT  # tanh's output (Linear's input too), pow's input: batch 32
    assert f"{format_bytes(per_step)} kept per step with the tensor" in text, text
    assert "8 → 64 → 1 tanh MLP, batch 32" in text, text


def test_the_rollout_keeps_one_state_and_one_hidden_layer_per_step_of_the_named_field():
    text = RULES["x = x + dt * f(x)\nloss.backward()\nx = x.detach()"]()
    per_step = 16 * 4 * FLOAT + 16 * 32 * FLOAT  # the new state (pow's and the next Linear's input), tanh's output
    assert f"{format_bytes(per_step)} per step stays with `retain_graph=True`" in text, text
    assert "4 → 32 → 4 tanh field, 16 states" in text, text
