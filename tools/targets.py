"""Every generated file of the course, as targets: what each reads, :meth:`stale` and :meth:`write`. ``TARGETS`` is
in dependency order: a target reads only what the ones before it write (notebooks first, then what is made from
them), so one pass in order builds everything; :func:`build` runs passes until one writes nothing.

    >>> [target.name for target in TARGETS][:3]
    ['notebook run times', 'setup cells', 'notebook map cell']
"""
import dataclasses
import json
import pathlib
import subprocess
import sys
from collections.abc import Callable

from tools import course as model
from tools import (
    editions,
    fast_path,
    gpu_record,
    guide,
    lecturer_sheets,
    notebook_map,
    reading_model,
    setup_cell,
    slide_fit_record,
    torch_table,
)


@dataclasses.dataclass(frozen=True)
class Target:
    """Files made from the course: ``wanted(course)`` gives ``{path: text}`` (None: the file should not exist)."""
    name: str
    inputs: tuple[str, ...]
    wanted: Callable

    def stale(self, course):
        """The files (relative to the course's root) that differ from what this target makes."""
        return [_relative(course, path) for path, text in self.wanted(course).items()
                if (text is None and path.exists()) or (text is not None and (not path.exists() or path.read_text() != text))]

    def write(self, course):
        """Bring this target's files up to date; return those it changed."""
        changed = []
        for path, text in self.wanted(course).items():
            if text is None and path.exists():
                path.unlink()
            elif text is not None and (not path.exists() or path.read_text() != text):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            else:
                continue
            changed.append(_relative(course, path))
        return changed


@dataclasses.dataclass(frozen=True)
class Measured:
    """A record that a measurement makes (``command``): :meth:`stale` says what changed since it was measured;
    :meth:`write` runs ``command`` when ``by_build`` (quick enough for every build), and otherwise leaves it stale."""
    name: str
    inputs: tuple[str, ...]
    problems: Callable
    command: str
    by_build: bool = False

    def stale(self, course):
        return self.problems(course)

    def write(self, course):
        if not (self.by_build and self.stale(course)):
            return []
        subprocess.run([sys.executable, *self.command.split()[1:]], cwd=course.root, check=True)
        return [self.inputs[-1]]


def _class_sizing(course):
    done = subprocess.run([sys.executable, "deploy/sizing.py", "--check"], cwd=course.root, capture_output=True, text=True)
    return [done.stdout.strip() or done.stderr.strip()] if done.returncode else []


def _relative(course, path):
    return pathlib.Path(path).relative_to(course.root).as_posix()


def _slide_fit(course):
    record = course.root / slide_fit_record.RECORD
    return slide_fit_record.stale(slide_fit_record.load(course.root), course.root) if record.exists() else [
        f"{slide_fit_record.RECORD} is missing"]


def _unmeasured(course):
    record = json.loads((course.root / reading_model.RUN_TIMES).read_text())["notebooks"]
    return [f"{path.stem} has no measured run time" for path in course.paths if path.stem not in record]


NOTEBOOKS = "notebooks/*.ipynb"
TARGETS = [
    Measured("notebook run times", (NOTEBOOKS, reading_model.RUN_TIMES), _unmeasured,
             f"python benchmarks/notebooks.py --json {reading_model.RUN_TIMES} --add", by_build=True),
    Target("setup cells", ("pyproject.toml", NOTEBOOKS), setup_cell.setup_cells),
    Target("notebook map cell", ("course.toml", NOTEBOOKS), notebook_map.map_cell),
    Target("time lines", (NOTEBOOKS, "solutions/*.py", reading_model.RUN_TIMES), reading_model.time_lines),
    Target("fast-path cells", ("course.toml", NOTEBOOKS, reading_model.RUN_TIMES), fast_path.fast_path_cells),
    Target("learner edition", (NOTEBOOKS,), editions.learner),
    Target("instructor guide", ("course.toml", NOTEBOOKS, "solutions/*.py", "data/*.json", guide.GUIDE), guide.guide),
    Target("lecturer sheets", (NOTEBOOKS, "solutions/*.py"), lecturer_sheets.sheets),
    Target("README notebook map", ("course.toml", "README.md"), notebook_map.readme_map),
    Target("README links", ("course.toml", "pyproject.toml", "README.md"), setup_cell.readme_links),
    Target("GPU record", ("data/*_cuda.json", gpu_record.DOC), gpu_record.gpu_record),
    Target("README torch table", ("data/torch_versions.json", "README.md"), torch_table.readme_table),
    Target("README fast path", ("course.toml", NOTEBOOKS, reading_model.RUN_TIMES, "README.md"), fast_path.readme_fast_path),
    Measured("class sizing", ("data/notebooks_cpu.json", "docs/instructors.md", "deploy/z2jh/values.yaml"),
             _class_sizing, "python deploy/sizing.py --write", by_build=True),
    Measured("slide-fit record", (NOTEBOOKS, slide_fit_record.STYLESHEET, slide_fit_record.RECORD), _slide_fit,
             "python -m tools.slide_fit --record"),
]


def stale(root=model.ROOT):
    """``{target name: [stale files or what changed]}`` for every target that is not current."""
    course = model.load(root)
    return {target.name: found for target in TARGETS if (found := target.stale(course))}


def build(root=model.ROOT, log=print, passes=3):
    """Write every target in order until a pass changes nothing; return ``{target name: [what stays stale]}``, the
    measured records that only their command can renew."""
    for _ in range(passes):
        changed = False
        for target in TARGETS:
            written = target.write(model.load(root))
            for name in written:
                log(f"[{target.name}] wrote {name}")
            changed = changed or bool(written)
        if not changed:
            return stale(root)
    raise SystemExit(f"the targets still changed after {passes} passes: one of them undoes another's work")
