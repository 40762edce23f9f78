"""What the last GPU run verified, on which GPU and torch: read from the data/*_cuda.json files `make gpu-check` writes.

docs/gpu.md's record is a target of `make generate` (``gpu_record``), so `python -m tools check` fails while it is stale.
Each line names its file and the run that wrote it (GPU, torch, date, commit where the file has them); a file that is
missing says so ("not recorded yet"), so the record never claims more than the files hold.

    >>> print(where({"gpu": "NVIDIA H200", "torch": "2.11.0+cu130", "date": "2026-12-04T16:14:43+00:00", "commit": "0c4f881"}))
    NVIDIA H200, torch 2.11.0+cu130, 2026-12-04, commit 0c4f881
"""
import json
import pathlib

from tools.blocks import filled

DOC = "docs/gpu.md"


def where(provenance):
    """The run a file came from, in words: GPU, torch, day, commit (what the file has of them)."""
    parts = [provenance.get("gpu") or provenance.get("device_name"),
             f"torch {provenance.get('torch') or provenance.get('torch_version')}", (provenance.get("date") or "")[:10]]
    if provenance.get("commit"):
        parts.append(f"commit {provenance['commit']}")
    return ", ".join(part for part in parts if part)


def _load(data, name):
    path = data / f"{name}_cuda.json"
    return json.loads(path.read_text()) if path.exists() else None


def _line(what, name, text, provenance):
    return f"- **{what}**: {text} (`data/{name}_cuda.json`: {where(provenance)})."


def lines(data):
    found = []
    selftest = _load(data, "selftest")
    if selftest:
        agree = sum(not scenario["problems"] for scenario in selftest["scenarios"])
        found.append(_line("Selftest", "selftest", f"{agree} of {len(selftest['scenarios'])} scenarios agree with "
                           "`torch.cuda.memory_allocated`", selftest.get("provenance", selftest)))
    meters = _load(data, "meters")
    if meters:
        checks = meters["checks"]
        failed = [f"{name} ({check['meter']} against {check['allocator']})" for name, check in checks.items()
                  if not check["ok"]]
        text = f"{len(checks) - len(failed)} of {len(checks)} checks hold" + (f"; failed: {'; '.join(failed)}" if failed else "")
        found.append(_line("Meters, find_leaks and timeline against the allocator", "meters", text, meters["provenance"]))
    instruments = _load(data, "instruments")
    if instruments:
        text = f"{instruments['passed']} passed, {len(instruments['failed'])} failed, {len(instruments['skipped'])} skipped"
        found.append(_line("The instruments' tests, their CUDA cases", "instruments", text, instruments["provenance"]))
    laplacian = _load(data, "laplacian")
    if laplacian:
        dims = ", ".join(str(result["d"]) for result in laplacian["results"])
        found.append(_line("Laplacian benchmark", "laplacian", f"{len(laplacian['results'][0]['rows'])} methods at d = {dims}",
                           laplacian.get("provenance", laplacian)))
    overhead = _load(data, "overhead")
    if overhead:
        found.append(_line("Cost of find_leaks and timeline", "overhead", "; ".join(
            _overhead(name, row) for name, row in overhead["models"].items()), overhead["provenance"]))
    notebooks = _load(data, "notebooks")
    if notebooks:
        results = notebooks["notebooks"]
        failed = [name for name, result in results.items() if not result["passed"]]
        text = f"{len(results) - len(failed)} of {len(results)} pass under nbval"
        text += f"; failed: {', '.join(failed)}" if failed else ""
        found.append(_line("Notebooks", "notebooks", text, notebooks["provenance"]))
    if not found:
        return ["No GPU run has been recorded yet: run `make gpu-check` on a machine with an NVIDIA GPU."]
    missing = [name for name in ("selftest", "meters", "instruments", "laplacian", "overhead", "notebooks")
               if not (data / f"{name}_cuda.json").exists()]
    if missing:
        found.append(f"- Not recorded yet: {', '.join(f'`data/{name}_cuda.json`' for name in missing)}.")
    return found


def _overhead(name, row):
    if "find_leaks_fixed_s" in row:  # benchmarks/leak_overhead.py: a fixed part per call and a part per step
        return (f"{name}: find_leaks {row['find_leaks_fixed_s']:.3f} s a call + {row['find_leaks_per_step_x_empty']:.2f}x "
                f"the empty mode a step, timeline {row['timeline_fixed_s']:.3f} s + {row['timeline_per_step_x_empty']:.2f}x")
    return (f"{name}: find_leaks(steps=5) {row['find_leaks_x_plain']:.1f}x six plain steps of {row['plain_step_ms']} ms, "
            f"timeline {row['timeline_x_plain']:.2f}x one")


def record_text(data):
    return "\n".join(lines(pathlib.Path(data)))


def gpu_record(course):
    """The target: docs/gpu.md with its "gpu record" block written from ``data/*_cuda.json``."""
    path = course.root / DOC
    return {path: filled(path.read_text(), "gpu record", record_text(course.root / "data"), DOC)}
