"""docs/gpu.md's record of the last GPU run claims no more than data/*_cuda.json hold (tests/test_generated.py holds it fresh)."""
import json

from tools import gpu_record


def test_a_failed_check_and_a_missing_file_are_said(tmp_path):
    provenance = {"gpu": "Some GPU", "torch": "9.9.9+cu999", "date": "2030-01-02T00:00:00+00:00", "commit": "abc1234"}
    (tmp_path / "meters_cuda.json").write_text(json.dumps({"provenance": provenance, "checks": {
        "a meter == the allocator": {"ok": True, "meter": 512, "allocator": 512},
        "another == the allocator": {"ok": False, "meter": 0, "allocator": 4096}}}))
    text = gpu_record.record_text(tmp_path)
    assert "1 of 2 checks hold; failed: another == the allocator (0 against 4096)" in text
    assert "Some GPU, torch 9.9.9+cu999, 2030-01-02, commit abc1234" in text
    assert "Not recorded yet: `data/selftest_cuda.json`" in text and "`data/notebooks_cuda.json`" in text


def test_without_any_file_the_record_says_no_run_was_recorded(tmp_path):
    assert gpu_record.record_text(tmp_path).startswith("No GPU run has been recorded yet")
