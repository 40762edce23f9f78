"""What every instrument test shares: a clean garbage collector, a check that nothing was left installed, and the
devices a test runs on.

A test that takes ``device`` runs once per device here, the way PyTorch's device-generic tests do: on ``cpu`` always,
on ``cuda`` too where ``torch.cuda.is_available()`` (``make gpu-check`` runs them there). Where a check cannot hold on
CUDA it says why, in its skip reason or its tolerance (``block_rounding``).
"""
import gc

import pytest
import torch

from autograd_memory.seams import torch_internals
from autograd_memory.testing import allocated_bytes

DEVICES = ["cpu"] + ["cuda"] * torch.cuda.is_available()

# torch's import leaves ~200,000 objects for every gc.collect() to scan: freeze them, so that each test's collection
# scans only what tests made.
gc.collect()
gc.freeze()



def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: the test's CUDA case (its device is cuda); `make gpu-check` runs these")


def pytest_collection_modifyitems(items):
    """Mark each test's CUDA case, so that `pytest -m cuda instruments/tests` runs exactly those."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("device") == "cuda":
            item.add_marker("cuda")

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


@pytest.fixture(params=DEVICES)
def device(request):
    """The device a test's tensors live on: each test that takes it runs once per device in ``DEVICES``."""
    return torch.device(request.param)


@pytest.fixture
def allocated(device):
    """``allocated()``: the bytes of tensors alive on the test's device (``autograd_memory.testing.allocated_bytes``:
    the allocator on CUDA, a census of live tensors elsewhere): the truth a meter's net change is compared with."""
    return lambda: allocated_bytes(device)


@pytest.fixture
def block_rounding(device):
    """Bytes the allocator may add to each block it hands out: 512 on CUDA (the caching allocator rounds every block
    up to a multiple of 512 bytes), 0 elsewhere (the census counts logical bytes, as the meters do)."""
    return 512 if device.type == "cuda" else 0


@pytest.fixture
def adam_step(device):
    """``adam_step(set_to_none)``: a ``Linear(256, 256)`` on the test's device, Adam, and a step ``zero_grad(set_to_none);
    forward; backward; optimizer.step()`` run once, so that Adam's state exists. Every size is a multiple of 512 bytes:
    the CUDA allocator's rounding cannot tell it from the logical bytes."""
    def make(set_to_none=True):
        torch.manual_seed(0)
        model = torch.nn.Linear(256, 256).to(device)
        optimizer = torch.optim.Adam(model.parameters())
        data = torch.ones(64, 256, device=device)

        def step():
            optimizer.zero_grad(set_to_none=set_to_none)
            model(data).square().mean().backward()
            optimizer.step()
        step()
        return model, optimizer, step
    return make
