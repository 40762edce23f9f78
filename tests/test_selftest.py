"""The selftest's scenarios on the CPU: the leaky one leaks, the others leave nothing behind."""
import json

import torch

from course_utils.__main__ import main
from course_utils.setup.selftest import MiB, _agree, run_selftest


def test_selftest_on_cpu_passes_and_records_every_scenario(tmp_path):
    path = tmp_path / "selftest.json"
    result = run_selftest("cpu", n=256, json_path=path, verbose=False)
    assert result.ok, [s.problems for s in result.scenarios]
    data = json.loads(path.read_text())
    rows = {row["name"]: row for row in data["scenarios"]}
    assert set(rows) == {"pinn_nested", "pinn_torch_func", "training_keeps_loss_tensors",
                         "euler_full_graph", "euler_detach", "big_no_grad_forward"}
    assert rows["training_keeps_loss_tensors"]["leftover"] == 5 * 4, "five kept float32 losses"
    assert rows["pinn_torch_func"]["saved"] is None, "torch.func refuses the graph meter"
    assert rows["euler_full_graph"]["saved"] > 0 and rows["euler_detach"]["saved"] == 0
    assert data["torch_version"] == torch.__version__


def test_agreement_tolerance_is_one_percent_or_one_mebibyte():
    assert _agree(100 * MiB, 100 * MiB + MiB) and not _agree(100 * MiB, 100 * MiB + 2 * MiB)
    assert _agree(500 * MiB, 504 * MiB) and not _agree(500 * MiB, 506 * MiB)


def test_asking_for_cuda_without_it_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # as on a machine without a GPU (this one's may have one)
    code = main(["selftest", "--device", "cuda"])  # what `python -m course_utils selftest --device cuda` runs
    stderr = capsys.readouterr().err
    assert code == 2 and "no usable CUDA device" in stderr and "Traceback" not in stderr
