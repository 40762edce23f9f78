"""Each student's own copies of the learner's edition, made when their server starts and never overwritten.

    python -m deploy.learner_copies HOME       copy into HOME/my_notebooks/ the notebooks it lacks

The hub runs this before every start (deploy/jupyterhub_config.py; on Kubernetes, values.yaml's postStart hook),
with the same rule as `make lab`: a notebook the student has is kept as it is, one the course added since is
copied. The copies are the learner's edition as ``learner/`` holds it (``make generate`` writes it).

>>> import tempfile
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> first = copy_into(home)
>>> "00_start_here.ipynb" in first and copy_into(home) == []
True
"""
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDER = "my_notebooks"


def copy_into(home):
    """Copy the learner's edition of every notebook that ``home``/my_notebooks lacks; return the names copied."""
    mine = pathlib.Path(home) / FOLDER
    mine.mkdir(parents=True, exist_ok=True)
    missing = [n for n in sorted((ROOT / "learner").glob("*.ipynb")) if not (mine / n.name).exists()]
    for notebook in missing:
        shutil.copyfile(notebook, mine / notebook.name)
    return [n.name for n in missing]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    copied = copy_into(sys.argv[1])
    print(f"[learner_copies] {len(copied)} new: {', '.join(copied) or 'none'}")
