"""The drift guard: one warning on import outside the tested range or when a probe fails; never a traceback."""
import subprocess
import sys
import warnings

import pytest

from autograd_memory.seams import drift


def test_every_probe_passes_on_this_torch():
    report = drift.check()
    assert [probe for probe in report.probes if not probe.ok] == []


def test_the_tested_range_is_one_constant_holding_this_torch():
    low, high = drift.TESTED
    assert low <= drift._major_minor(__import__("torch").__version__) <= high


def test_outside_the_range_one_warning_names_the_version():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        drift.warn_if_untested("2.99.0")
    assert len(caught) == 1 and caught[0].category is drift.UntestedTorchWarning
    assert "this is torch 2.99.0, outside that range" in str(caught[0].message)


def test_a_failing_probe_is_named_with_what_will_not_work_and_never_raises():
    def broken():
        raise AttributeError("'SavedTensor' object has no attribute 'data'")

    probes = (*drift.PROBES, drift.ProbeSpec("saved slots", "SavedTensor.data", "graph_table, show_graph", broken))
    with pytest.warns(drift.UntestedTorchWarning) as caught:
        report = drift.warn_if_untested(probes=probes)
    assert len(caught) == 1 and not report.ok
    assert ("saved slots failed (AttributeError: 'SavedTensor' object has no attribute 'data'): "
            "graph_table, show_graph will not work") in str(caught[0].message)
    assert str(report).splitlines()[-1].startswith("[FAIL] saved slots: SavedTensor.data -- AttributeError")


@pytest.mark.slow  # starts a Python
def test_importing_an_instrument_on_an_untested_torch_warns_once():
    code = ("import warnings, torch; warnings.simplefilter('always'); torch.__version__ = '2.99.0'\n"
            "with torch.no_grad():\n"
            "    import autograd_memory.measuring.meters, autograd_memory.views.graphs, autograd_memory.diagnosing.leaks")
    stderr = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stderr
    assert stderr.count("UntestedTorchWarning") == 1, stderr
    assert "Every probe passed" in stderr, "under no_grad the probes still build their graphs"


@pytest.mark.slow  # starts a Python
def test_importing_the_instruments_runs_no_probe_that_imports_dynamo():
    # torch.utils.checkpoint's first call imports torch._dynamo (seconds): only `check` runs that probe
    code = ("import sys, torch, autograd_memory.measuring.meters, autograd_memory.views.graphs, "
            "autograd_memory.diagnosing.leaks, autograd_memory.diagnosing.memory_timeline\n"
            "print('torch._dynamo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stdout + out.stderr
    assert [spec.name for spec in drift.PROBES if not spec.on_import] == ["checkpointed slots"]
