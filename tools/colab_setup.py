"""Install what the course needs on Google Colab, keeping Colab's own torch (every notebook's setup cell runs this).

    python -m tools.colab_setup [--dry-run]      (--dry-run, or COLAB_SETUP_DRY_RUN=1: print the commands only)

It installs the course and its instruments (``instruments/``, editable, without dependencies), then the course's
dependencies except the ones Colab brings its own of (course.toml's ``[colab] own``: torch, built for Colab's CUDA;
jupyterlab, ipykernel: Colab's front end and kernel), the extras ``[colab] extras`` names (torchviz: notebook 01's
optional section), and the system packages of ``[colab] system`` (graphviz's `dot`) when they are missing. pip leaves what is already new enough alone, so a second run is quick.
Last it says whether Colab's torch is inside the instruments' tested range (``python -m autograd_memory check
--brief``: one line, or what will not work on this torch); that check never stops the set-up.
"""
import argparse
import os
import subprocess
import sys

from tools.project import ROOT, manifest, pyproject, requirement_name


def commands(root=ROOT):
    """The commands that install the course found at ``root`` on Colab, in order."""
    project, colab = pyproject(root)["project"], manifest(root)["colab"]
    dependencies = project["dependencies"] + [r for extra in colab["extras"] for r in project["optional-dependencies"][extra]]
    wanted = [r for r in dependencies if requirement_name(r) not in colab["own"]]
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    return [pip + ["--no-deps", "-e", str(root), "-e", str(root / "instruments")],
            pip + wanted,
            *(["bash", str(root / "tools" / "system_deps.sh"), package] for package in colab["system"]),
            [sys.executable, "-m", "autograd_memory", "check", "--brief"]]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry-run", action="store_true", help="print the commands instead of running them")
    dry_run = parser.parse_args(argv).dry_run or os.environ.get("COLAB_SETUP_DRY_RUN") == "1"
    for command in commands():
        print(("[colab setup] would run: " if dry_run else "[colab setup] ") + " ".join(command), flush=True)
        if not dry_run:
            subprocess.run(command, check=command[-1] != "--brief")  # an untested torch warns; the course still installs
    return 0


if __name__ == "__main__":
    sys.exit(main())
