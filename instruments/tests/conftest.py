"""What every instrument test shares: a clean garbage collector, and a check that nothing was left installed."""
import gc

import pytest

from autograd_memory.seams import torch_internals

# torch's import leaves ~200,000 objects for every gc.collect() to scan: freeze them, so that each test's collection
# scans only what tests made.
gc.collect()
gc.freeze()


@pytest.fixture(autouse=True)
def _collect_between_tests():
    """Tests read exact byte counts: start each one without garbage from the last."""
    gc.collect()
    yield
    gc.collect()
    # What outlives a test (modules it imported, caches, module-scoped fixtures) is frozen too: in a whole run a worker
    # gathers so many such objects that scanning them made each test's setup and teardown 0.12-0.16 s (test_layout's
    # 264 cases: 67 s in `make test`, 1 s alone). Frozen objects are still freed when their last reference goes; only
    # a cycle among them would wait.
    gc.freeze()


@pytest.fixture
def nothing_installed():
    """A check that no meter left its dispatch mode or saved-tensor hooks behind."""
    return lambda: torch_internals.current_dispatch_mode() is None and torch_internals.top_saved_tensor_hooks() is None
