"""The checkers of notebook 03 (course_utils.checks.nb03_trapezoid_integration) reject the classic mistakes
with the right explanation."""
import pytest
import torch

from course_utils.checks import ExerciseFailed
from course_utils.checks import nb03_trapezoid_integration as checks
from course_utils.problems.integrate import trapezoid_in_chunks


def test_scenario_checker_explains_a_wrong_choice():
    with pytest.raises(ExerciseFailed, match="density: the normaliser depends on theta"):
        checks.check_scenarios(lambda: {"report": "no_grad", "density": "no_grad", "teacher": "no_grad"})
    with pytest.raises(ExerciseFailed, match="'no_grad' or 'grad'"):
        checks.check_scenarios(lambda: {"report": "off", "density": "grad", "teacher": "no_grad"})


def _chunked(chunk):
    def integral(net, x, budget_bytes):
        with torch.no_grad():
            return trapezoid_in_chunks(net, x, chunk)
    return integral


def _split_without_overlap(net, x, budget_bytes):
    with torch.no_grad():
        return sum(torch.trapezoid(net(nodes), nodes) for nodes in x.split(300))


@pytest.mark.parametrize("answer,complaint", [
    (lambda net, x, budget: trapezoid_in_chunks(net, x, 100), "saved .* for backward"),        # no no_grad
    (_chunked(20_000), "> budget"),                                                            # one big chunk
    (_chunked(10), "network calls"),                                                           # tiny chunks
    (_split_without_overlap, "trapezoid rule over all"),                                       # gaps between chunks
])
def test_budget_checker_rejects_wrong_answers(answer, complaint):
    with pytest.raises(ExerciseFailed, match=complaint):
        checks.check_budget(answer)


def _chunks_with_grad_on(net, x, budget_bytes):
    """chunked, but every chunk's graph is kept (no torch.no_grad())."""
    return trapezoid_in_chunks(net, x, 100)


def _chunked_rule(rule, chunk=None):
    """chunks that share their boundary node, each integrated by ``rule(net, nodes)``: ``chunk`` intervals, or as
    many as 90% of the budget holds (the worked solution's size)."""
    def integral(net, x, budget_bytes):
        size = chunk or int(0.9 * budget_bytes) // (2 * net.width * 4) - 1
        with torch.no_grad():
            return sum(rule(net, x[i:i + size + 1]) for i in range(0, x.numel() - 1, size))
    return integral


def _left_rectangles(net, nodes):
    """each interval's width times the value at its left end."""
    return (net(nodes)[:-1] * nodes.diff()).sum()


def _even_spacing(net, nodes):
    """the trapezoid rule with one spacing for every interval."""
    return torch.trapezoid(net(nodes), dx=(nodes[1] - nodes[0]).item())


def _trapezoid(net, nodes):
    return torch.trapezoid(net(nodes), nodes)


def _last_interval_dropped(net, x, budget_bytes):
    """the chunks stop one node short of the end (x[:-1]): the last interval is left out."""
    return _chunked_rule(_trapezoid)(net, x[:-1], budget_bytes)





# The floor that tests/checks/test_wrong_answers.py holds every exercise to: per checker, a plausible wrong answer
# (called with this notebook's checker module) and a fragment of the message that must explain it.
WRONG = [
    ("check_scenarios", "density: the normaliser depends on theta",
     lambda m: m.check_scenarios(lambda: {"report": "no_grad", "density": "no_grad", "teacher": "no_grad"})),
    ("check_budget", "evaluate under torch.no_grad()", lambda m: m.check_budget(_chunks_with_grad_on)),
    # a rule other than the trapezoid rule, close enough on a smooth integrand over 20,001 nodes
    ("check_budget", "rectangle", lambda m: m.check_budget(_chunked_rule(_left_rectangles))),
    ("check_budget", "its own nodes' spacing", lambda m: m.check_budget(_chunked_rule(_even_spacing))),
    ("check_budget", "last node", lambda m: m.check_budget(_last_interval_dropped)),
    # one chunk size for every budget: it fits the 250 kB budget in about as many calls as the 1 MB budget allows
    ("check_budget", "network calls", lambda m: m.check_budget(_chunked_rule(_trapezoid, 460))),
    # a near-miss spelling of an answer
    ("check_scenarios", "did you mean 'no_grad'", lambda m: m.check_scenarios(
        lambda: {"report": "no grad", "density": "grad", "teacher": "no_grad"})),
]
