"""Every generated file is what `make generate` (``python -m tools build``) makes from course.toml and the notebooks:
one test per target of tools/targets.py. A measured record (the slide fit) is checked against what it measured."""
import subprocess
import sys

import pytest

from tools import targets
from tools.course import load


@pytest.mark.parametrize("target", targets.TARGETS, ids=[target.name for target in targets.TARGETS])
def test_the_target_is_current(target, root):
    found = target.stale(load(root))
    renew = f"`{target.command}`" if isinstance(target, targets.Measured) else "`make generate`"
    assert not found, f"{target.name} is stale: {'; '.join(found)}. Run {renew} and commit what it changes"


def test_check_exits_1_listing_a_stale_target(tmp_path, root):
    """`python -m tools check` on a copy with one hand-edited generated file names it and exits 1."""
    copy = _copy(root, tmp_path)
    learner = copy / "learner" / load(root).notebooks[1].file
    learner.write_text(learner.read_text().replace("Objectives", "Goals", 1))
    done = subprocess.run([sys.executable, "-m", "tools", "check"], cwd=copy, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "[learner edition] stale" in done.stdout and learner.name in done.stdout, done.stdout


def _copy(root, to):
    """What the build reads and writes, copied (the files git tracks or would: no .venv, no build/)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (root / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            (to / name).write_bytes((root / name).read_bytes())
    return to
