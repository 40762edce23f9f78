"""What every instrument test shares: a clean garbage collector, and a check that nothing was left installed."""
import gc

import pytest

from autograd_memory.seams import torch_internals

# torch's import leaves ~200,000 objects for every gc.collect() to scan: freeze them, so that each test's collection
# scans only what tests made. Nothing a test makes is frozen.
gc.collect()
gc.freeze()


@pytest.fixture(autouse=True)
def _collect_between_tests():
    """Tests read exact byte counts: start each one without garbage from the last."""
    gc.collect()
    yield
    gc.collect()


@pytest.fixture
def nothing_installed():
    """A check that no meter left its dispatch mode or saved-tensor hooks behind."""
    return lambda: torch_internals.current_dispatch_mode() is None and torch_internals.top_saved_tensor_hooks() is None
