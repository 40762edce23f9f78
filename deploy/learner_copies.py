"""Each student's own copies of the learner's edition, made when their server starts and never overwritten.

    python deploy/learner_copies.py HOME       copy into HOME/my_notebooks/ the notebooks it lacks

The hub runs this before every start (deploy/jupyterhub_config.py; on Kubernetes, values.yaml's postStart hook),
with the same rule as `make lab` (tools/my_notebooks.py): a notebook the student has is kept as it is, one the
course added since is copied.

>>> import tempfile
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> first = copy_into(home)
>>> "00_start_here.ipynb" in first and copy_into(home) == []
True
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDER = "my_notebooks"
sys.path.insert(0, str(ROOT))  # run as a script in a student's home: the course's build tools are the package `tools`

from tools.my_notebooks import copy_missing  # noqa: E402


def copy_into(home):
    """Copy the learner's edition of every notebook that ``home``/my_notebooks lacks; return the names copied."""
    pathlib.Path(home).mkdir(parents=True, exist_ok=True)
    return copy_missing(course=ROOT / "notebooks", mine=pathlib.Path(home) / FOLDER)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    copied = copy_into(sys.argv[1])
    print(f"[learner_copies] {len(copied)} new: {', '.join(copied) or 'none'}")
