import gc
import pathlib

import pytest

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
