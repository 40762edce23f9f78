"""The lint's rules: each one's code, what the pattern keeps alive, the fix, and the notebook section that measures it.

>>> LINT_RULES["AGM001"].fix
'keep a number (loss.item()) or a detached tensor (loss.detach()), not the tensor with its graph'
>>> LINT_RULES["AGM004"].link
'notebooks/01_graph_lifecycle.ipynb#5-·-create_graph=True:-a-graph-of-the-graph,-and-a-cycle-through-param.grad'
"""
from dataclasses import dataclass

__all__ = ["Rule", "LINT_RULES"]


@dataclass(frozen=True)
class Rule:
    """One pattern the lint flags: ``keeps`` says what it keeps alive, ``fix`` what to write instead, and
    ``notebook`` / ``section`` the heading of the course's section that measures it."""

    code: str
    title: str
    keeps: str
    fix: str
    notebook: str
    section: str

    @property
    def link(self) -> str:
        """The measuring section, as JupyterLab anchors a heading: its text with spaces as hyphens, no backticks."""
        anchor = self.section.replace("`", "").replace(" ", "-")
        return f"notebooks/{self.notebook}#{anchor}"


LINT_RULES = {rule.code: rule for rule in (
    Rule("AGM001", "a graph tensor kept across steps",
         "each step's loss or output stays alive with its whole graph (activations, graph nodes), one more per step",
         "keep a number (loss.item()) or a detached tensor (loss.detach()), not the tensor with its graph",
         "01_graph_lifecycle.ipynb", "Accumulating a loss: `total_loss += loss`"),
    Rule("AGM002", "backward(retain_graph=True) on a graph the next step extends",
         "the retained graph is never freed and every step adds its own to it, so memory and step time grow",
         "detach the carried state at the start of each step and drop retain_graph=True",
         "04_euler_ode_truncation.ipynb",
         "4 · Myth vs measured: \"without `detach()`, a per-step `backward()` loop runs normally but memory grows "
         "linearly\""),
    Rule("AGM003", "a hook registered every step",
         "each registration adds one more hook, which keeps what it captures and runs again on every later step",
         "register the hook once, outside the loop (or keep its handle and call handle.remove())",
         "07_find_the_leak.ipynb", "Mystery 3 · Forward hooks that log (`clinic/activation_hook.py`)"),
    Rule("AGM004", "backward(create_graph=True)",
         "param.grad holds the graph of the backward pass, and that graph refers back to param: a cycle in C++ that "
         "neither del nor gc.collect() frees",
         "take the gradients with torch.autograd.grad(loss, params, create_graph=True), which stores nothing in .grad",
         "01_graph_lifecycle.ipynb", "5 · `create_graph=True`: a graph of the graph, and a cycle through `param.grad`"),
    Rule("AGM005", "autograd.grad(create_graph=True) inside torch.no_grad()",
         "no_grad() does not stop it: create_graph=True records the backward pass's graph anyway",
         "drop the no_grad() block; pass create_graph=False where the derivative is not differentiated again",
         "05_laplacian_pinn.ipynb", "Myth 1 · \"`torch.no_grad()` around `autograd.grad` stops the graph\""),
    Rule("AGM006", "a derivative detached, then made to require grad",
         "the derivative is cut off the network: the loss built on it gives no parameter a gradient, so training "
         "stops while memory looks fixed",
         "keep the derivative's graph (autograd.grad(..., create_graph=True)) and let the loss's backward() free it",
         "05_laplacian_pinn.ipynb", "Myth 3 · \"Detach the Laplacian, then `requires_grad_(True)`\""),
    Rule("AGM007", "state carried to the next step without detach()",
         "the state's graph reaches back through every earlier step, so each step's graph stays alive (and a "
         "second backward() through it raises)",
         "detach the state where a step starts (state = state.detach()), or backpropagate in windows",
         "04_euler_ode_truncation.ipynb", "3 · Per-step `detach()`: memory flat"),
    Rule("AGM008", "a saved-tensor hook that packs the tensor itself",
         "the graph's node then holds the tensor that holds the node: a cycle in C++ that no del or gc.collect() "
         "frees (and autograd's check for in-place changes is skipped)",
         "pack a detached alias (return tensor.detach()), or the data the unpack hook needs to rebuild it",
         "07_find_the_leak.ipynb", "The hazards of identity hooks"),
)}
