"""A class's per-student memory and CPU, computed from the measured notebooks (``data/notebooks_cpu.json``).

    python -m deploy.sizing            print the sizing table
    python -m deploy.sizing --write    rewrite the guide's sizing block and deploy/z2jh/values.yaml
    python -m deploy.sizing --check    exit 1 when either is stale

In a class everybody runs the same notebook at the same moment, so a student's *guarantee* is what the heaviest
notebook needs, and the *limit* adds a stated margin on top:

- memory guarantee: the largest per-notebook peak RSS, rounded up to ``ROUND_MEMORY``;
- memory limit: that peak times ``1 + MEMORY_MARGIN``, rounded up the same way (the hub enforces it);
- CPU limit: the cores the notebooks were measured with (``provenance.cores_used``);
- CPU guarantee: the share of a core that runs the slowest notebook within the course's own time budget
  (``budget.seconds``) while the whole room runs it at once: ``cores_used * slowest seconds / budget``.

Nodes are counted for one stated machine shape (``NODE``), less what Kubernetes and the hub's own pods keep.

>>> s = Sizing.measured()
>>> s.memory_limit > s.memory_guarantee >= max(s.peaks.values())
True
>>> s.nodes(200) >= s.nodes(50) >= 1
True
"""
import argparse
import json
import math
import pathlib
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUN_TIMES = ROOT / "data" / "notebooks_cpu.json"
GUIDE = ROOT / "docs" / "instructors.md"
VALUES = ROOT / "deploy" / "z2jh" / "values.yaml"

MEMORY_MARGIN = 0.5          # the limit's headroom over the largest measured peak (a learner's own experiments)
ROUND_MEMORY = 64 * 2**20    # memory sizes are whole multiples of 64 MiB
NODE = {"name": "16 vCPU, 64 GiB", "cpu": 16, "memory": 64 * 2**30}   # a common general-purpose cloud machine
NODE_RESERVED = {"cpu": 1, "memory": 4 * 2**30}   # kubelet, system pods, the image puller and user scheduler
CLASS_SIZES = (50, 200, 1000)
BLOCK = "class-sizing"


def round_up(n, step=ROUND_MEMORY):
    """``n`` rounded up to a multiple of ``step``.

    >>> round_up(1, 64) , round_up(128, 64)
    (64, 128)
    """
    return -(-int(n) // step) * step


def gib(n):
    return f"{n / 2**30:.2f} GiB"


@dataclass(frozen=True)
class Sizing:
    peaks: dict            # notebook -> peak RSS bytes
    seconds: dict          # notebook -> seconds top to bottom
    cores_used: int
    budget_seconds: float
    source: str

    def __post_init__(self):
        """Kubernetes refuses a pod whose guarantee is above its limit: so does this, saying which and why."""
        for what, guarantee, limit in (("CPU", self.cpu_guarantee, self.cpu_limit),
                                       ("memory", self.memory_guarantee, self.memory_limit)):
            if guarantee > limit:
                raise ValueError(f"the {what} guarantee ({guarantee}) is above its limit ({limit}), from {self.source}: "
                                 "the slowest or heaviest notebook's measurement does not fit the budget; measure again "
                                 "on an idle machine (python benchmarks/notebooks.py) or raise the budget")

    @classmethod
    def measured(cls, path=RUN_TIMES):
        path = pathlib.Path(path)
        data = json.loads(path.read_text())
        notebooks, p = data["notebooks"], data["provenance"]
        return cls({k: v["peak_rss_bytes"] for k, v in notebooks.items()}, {k: v["seconds"] for k, v in notebooks.items()},
                   p["cores_used"], data["budget"]["seconds"],
                   f"`{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}` ({p['command']}, {p['date'][:10]}, "
                   f"torch {p['torch']}, "
                   f"{p['cores_used']} of {p['machine_cores']} cores)")

    @property
    def heaviest(self):
        return max(self.peaks, key=self.peaks.get)

    @property
    def slowest(self):
        return max(self.seconds, key=self.seconds.get)

    @property
    def memory_guarantee(self):
        return round_up(self.peaks[self.heaviest])

    @property
    def memory_limit(self):
        return round_up(self.peaks[self.heaviest] * (1 + MEMORY_MARGIN))

    @property
    def cpu_limit(self):
        return float(self.cores_used)

    @property
    def cpu_guarantee(self):
        return math.ceil(100 * self.cores_used * self.seconds[self.slowest] / self.budget_seconds) / 100

    def per_node(self):
        """Students whose guarantees fit on one ``NODE``."""
        cpu = (NODE["cpu"] - NODE_RESERVED["cpu"]) / self.cpu_guarantee
        memory = (NODE["memory"] - NODE_RESERVED["memory"]) / self.memory_guarantee
        return int(min(cpu, memory))

    def nodes(self, students):
        return math.ceil(students / self.per_node())

    def table(self):
        """The guide's sizing table, in Markdown."""
        rows = [
            f"Computed from {self.source} by `python -m deploy.sizing`.",
            "",
            "| per student | guarantee | limit | from |",
            "|---|---:|---:|---|",
            f"| memory | {gib(self.memory_guarantee)} | {gib(self.memory_limit)} | guarantee: the largest peak "
            f"({self.heaviest}, {gib(self.peaks[self.heaviest])}); limit: that peak + {MEMORY_MARGIN:.0%} |",
            f"| CPU | {self.cpu_guarantee:.2f} cores | {self.cpu_limit:.0f} cores | guarantee: the slowest notebook "
            f"({self.slowest}, {self.seconds[self.slowest]:.1f} s on {self.cores_used} cores) within the "
            f"{self.budget_seconds:.0f} s budget while the whole room runs it; limit: the cores it was measured on |",
            "",
            f"| students | memory (guarantees) | CPU (guarantees) | user nodes of {NODE['name']} "
            f"({self.per_node()} students each) |",
            "|---:|---:|---:|---:|",
        ]
        for n in CLASS_SIZES:
            rows.append(f"| {n:,} | {gib(n * self.memory_guarantee)} | {n * self.cpu_guarantee:.0f} cores | {self.nodes(n)} |")
        rows += ["", f"Each node keeps {NODE_RESERVED['cpu']} CPU and {gib(NODE_RESERVED['memory'])} for Kubernetes "
                 "and the hub's own pods; the hub and proxy need one more small node (or share the first)."]
        return "\n".join(rows) + "\n"


def with_block(text, name, body, writer="python -m deploy.sizing --write"):
    """``text`` with the block ``<!-- name: written by ... -->`` ... ``<!-- /name -->`` holding ``body``."""
    start, end = f"<!-- {name}: written by {writer} -->", f"<!-- /{name} -->"
    head, found, rest = text.partition(start)
    if not found:
        raise SystemExit(f"{GUIDE.relative_to(ROOT)} has no {start} block: add the two marker lines where it goes")
    return head + start + "\n" + body + end + rest.partition(end)[2]


def generated(sizing=None):
    """{path: text} of every file this module writes."""
    from deploy import z2jh_values
    sizing = sizing or Sizing.measured()
    return {GUIDE: with_block(GUIDE.read_text(), BLOCK, sizing.table()), VALUES: z2jh_values.values_yaml(sizing)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="rewrite the guide's block and deploy/z2jh/values.yaml")
    group.add_argument("--check", action="store_true", help="exit 1 when they are stale")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(Sizing.measured().table(), end="")
        return 0
    stale = []
    for path, text in generated().items():
        if path.exists() and path.read_text() == text:
            continue
        stale.append(str(path.relative_to(ROOT)))
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print(("[sizing] wrote " if args.write else "[sizing] stale (run python -m deploy.sizing --write): ") + ", ".join(stale))
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
