"""A memory budget that stops a runaway demo at the op that crosses it, before the kernel dies.

>>> import torch
>>> history = []
>>> try:
...     with memory_budget(10_000):
...         for step in range(100):
...             history.append(torch.zeros(1000))     # 4 kB a step, never freed
... except MemoryBudgetExceeded as stop:
...     print(step, stop.reached > stop.budget)
2 True
"""
from ..formats.units import format_bytes
from .meters import LiveTensors
from .trace import LEAK_HINT as DEFAULT_HINT

__all__ = ["memory_budget", "MemoryBudgetExceeded", "DEFAULT_HINT"]


class MemoryBudgetExceeded(RuntimeError):
    """The live tensors created inside a :func:`memory_budget` block went over its budget.

    ``reached`` and ``budget`` are in bytes, ``op`` names the operation that crossed the line.
    """

    def __init__(self, reached: int, budget: int, op: object, hint: str = DEFAULT_HINT):
        self.reached, self.budget, self.op, self.hint = reached, budget, str(op), hint
        super().__init__(
            f"Memory budget exceeded: {format_bytes(reached)} of live tensors > budget {format_bytes(budget)} "
            f"(at {self.op}). The demo stopped itself before the kernel ran out of memory. {hint}"
        )


class memory_budget(LiveTensors):
    """Context manager: raise :class:`MemoryBudgetExceeded` at the first op that takes the live
    tensors created inside the block over ``max_bytes``. Nothing stays installed after it exits.

    It is a :class:`LiveTensors` meter too: ``.bytes`` and ``.peak`` read the same way, and
    ``.track(...)`` adds tensors that existed before (they count against the budget). Memory shared
    with NumPy (``torch.from_numpy``) is no new memory and does not count.
    """

    _what = "budget"

    def __init__(self, max_bytes: int, hint: str = DEFAULT_HINT):
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, float)):
            raise TypeError(f"memory_budget needs the budget as a number of bytes, got {max_bytes!r}; "
                            "e.g. memory_budget(1e9) for 1 GB or memory_budget(2**30) for 1 GiB")
        if not max_bytes > 0:
            raise ValueError(f"memory_budget needs a positive number of bytes, got {max_bytes!r}; e.g. memory_budget(1e9)")
        super().__init__()
        self.budget = int(max_bytes)
        self.hint = hint

    def _after_op(self, func):
        """Raise once the live bytes are over the budget (the op's tensors are dropped with the error)."""
        reached = self.bytes
        if reached > self.budget:
            raise MemoryBudgetExceeded(reached, self.budget, func, self.hint)
