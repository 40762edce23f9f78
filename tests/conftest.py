import gc
import pathlib
import socket

import pytest
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def root():
    return ROOT


@pytest.fixture(autouse=True)
def _collect_between_tests():
    """Tests read exact byte counts: start each one without garbage from the last."""
    gc.collect()
    yield
    gc.collect()


@pytest.fixture(scope="module")
def one_torch_thread():
    """Small tensors: one thread is as fast and keeps a shared machine from thrashing."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def free_port():
    """A localhost TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def nothing_installed():
    """A check that no meter left its dispatch mode or saved-tensor hooks behind."""
    return lambda: (_get_current_dispatch_mode() is None
                    and torch._C._autograd._top_saved_tensors_default_hooks(False) is None)
