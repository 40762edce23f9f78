"""What the last GPU run verified, on which GPU and torch: read from the data/*_cuda.json files `make gpu-check` writes.

    python tools/gpu_record.py           # print the record
    python tools/gpu_record.py --write   # rewrite docs/gpu.md's record from the data files
    python tools/gpu_record.py --check   # exit 1 when docs/gpu.md's record differs from the data files

Each line names its file and the run that wrote it (GPU, torch, date, commit where the file has them); a file that is
missing says so ("not recorded yet"), so the record never claims more than the files hold.

    >>> print(where({"gpu": "NVIDIA H200", "torch": "2.11.0+cu130", "date": "2026-12-04T16:14:43+00:00", "commit": "0c4f881"}))
    NVIDIA H200, torch 2.11.0+cu130, 2026-12-04, commit 0c4f881
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "gpu.md"
BEGIN = "<!-- gpu record: written by tools/gpu_record.py --write from data/*_cuda.json -->"
END = "<!-- /gpu record -->"


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
        text = f"{len(results) - len(failed)} of {len(results)} pass under nbval" + (f"; failed: {', '.join(failed)}" if failed else "")
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


def record_text(data=ROOT / "data"):
    return "\n".join(lines(pathlib.Path(data)))


def block(text):
    """The record in a document's text, or None where its markers are missing."""
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def write(doc=DOC, data=ROOT / "data"):
    text = doc.read_text()
    if block(text) is None:
        raise SystemExit(f"{doc.name} lacks the markers {BEGIN!r} ... {END!r}: put them where the record goes")
    before, rest = text.split(BEGIN, 1)
    doc.write_text(f"{before}{BEGIN}\n{record_text(data)}\n{END}{rest.split(END, 1)[1]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite docs/gpu.md's record")
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/gpu.md's record is stale")
    args = parser.parse_args(argv)
    if args.write:
        write()
    elif args.check:
        if block(DOC.read_text()) != record_text():
            print("docs/gpu.md's GPU record is stale: run python tools/gpu_record.py --write", file=sys.stderr)
            return 1
    else:
        print(record_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
