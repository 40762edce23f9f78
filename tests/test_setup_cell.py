"""Every notebook starts with the Colab setup cell; badges and links use the one repository URL; the cell works
on a simulated Colab (a `google.colab` module, git and apt-get stand-ins: no network) and does nothing elsewhere."""
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import nbformat
import pytest

from tools import colab_setup, setup_cell
from tools.course import load
from tools.project import github_path, repository

NOTEBOOKS = load().paths


def test_every_badge_and_link_uses_the_repository_url(root):
    hosted = re.compile(r"https?://(?:github\.com|colab\.research\.google\.com|mybinder\.org)/[^\s)\"'\\]*")
    files = [root / "README.md", *NOTEBOOKS]
    links = [(f.name, url) for f in files for url in hosted.findall(f.read_text())]
    assert links, "the README has badges"
    repo, path = repository(root), github_path(root)
    foreign = [(name, url) for name, url in links
               if not (url.startswith(repo) or f"/{path}/" in url or url.endswith(("badge_logo.svg", "colab-badge.svg")))]
    assert not foreign, f"links that do not use pyproject.toml's repository {repo}: {foreign}"


def test_a_new_notebook_gets_the_setup_cell_first():
    fresh = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 09 · new")])
    once = setup_cell.with_setup_cell(fresh, setup_cell.setup_source())
    twice = setup_cell.with_setup_cell(once, setup_cell.setup_source())
    assert [c.cell_type for c in twice.cells] == ["code", "markdown"] and setup_cell.is_setup_cell(twice.cells[0])


def _stub(folder, name, script):
    path = folder / name
    path.write_text("#!/bin/bash\n" + textwrap.dedent(script))
    path.chmod(0o755)


def _run_cell(cwd, env, times=1):
    """Run the setup cell ``times`` in one Python process (as a kernel would); report where course_utils came from."""
    code = "\n".join([setup_cell.setup_source()] * times) + textwrap.dedent("""
        import course_utils, torch
        print("course_utils from", course_utils.__file__)
        print("torch", torch.__version__)""")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_setup_cell_on_a_simulated_colab(tmp_path, root):
    import torch

    fake = tmp_path / "fake_colab"  # what Colab's kernel has: google.colab imported at start-up
    (fake / "google" / "colab").mkdir(parents=True)
    (fake / "google" / "__init__.py").write_text("")
    (fake / "google" / "colab" / "__init__.py").write_text("")
    (fake / "sitecustomize.py").write_text("import google.colab\n")
    stubs, log = tmp_path / "bin", tmp_path / "calls.log"
    stubs.mkdir()
    # git clone <url> <dest>: log it, and lay out the course as a clone would (from this checkout: no network)
    _stub(stubs, "git", f"""\
        echo "git $*" >> {log}
        dest="${{@: -1}}"; mkdir -p "$dest"
        cp -r {root}/course_utils {root}/instruments {root}/tools {root}/data {root}/pyproject.toml {root}/course.toml "$dest"/
        """)
    content = tmp_path / "content"
    content.mkdir()
    env = {**os.environ, "PYTHONPATH": str(fake), "PATH": f"{stubs}:{os.environ['PATH']}", "COLAB_SETUP_DRY_RUN": "1"}

    result = _run_cell(content, env, times=2)
    assert result.returncode == 0, result.stderr
    course = content / repository(root).rsplit("/", 1)[1]
    assert log.read_text().splitlines() == [f"git clone --depth=1 {repository(root)} {course}"], "one clone, from the one URL"
    assert f"course_utils from {course}/course_utils/__init__.py" in result.stdout, result.stdout
    assert f"torch {torch.__version__}" in result.stdout, "Colab's torch stays"
    planned = [line.split("would run: ", 1)[1] for line in result.stdout.splitlines() if "would run: " in line]
    first_run = planned[:len(planned) // 2]
    assert first_run == [" ".join(c) for c in colab_setup.commands(course)]
    installs = first_run[1].split()
    assert not any(re.match(r"(torch|jupyterlab|ipykernel)\b(?!viz)", word) for word in installs), (
        f"the setup installs none of Colab's own packages: {first_run[1]}")
    assert "torchviz==0.0.3" in installs and first_run[2].endswith("system_deps.sh graphviz")
    assert first_run[3].endswith("-m autograd_memory check --brief"), "last, Colab's torch against the tested range"


def test_setup_cell_is_a_no_op_elsewhere(tmp_path):
    code = setup_cell.setup_source() + "\nprint(sorted(k for k in dir() if not k.startswith('_')), len(sys.path))"
    before = subprocess.run([sys.executable, "-c", "import sys; print(len(sys.path))"], capture_output=True, text=True)
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["['sys']", before.stdout.strip()], "outside Colab the cell only imports sys"
    assert list(tmp_path.iterdir()) == [], "and fetches nothing"


def test_system_deps_installs_dot_with_apt_when_missing(tmp_path, root):
    """What the setup cell asks for on Colab (root, apt, no `dot`): apt-get installs graphviz."""
    stubs, log = tmp_path / "bin", tmp_path / "apt.log"
    stubs.mkdir()
    _stub(stubs, "id", "echo 0\n")
    _stub(stubs, "apt-get", f'echo "apt-get $*" >> {log}\nprintf "#!/bin/bash\\n" > {stubs}/dot; /bin/chmod +x {stubs}/dot\n')
    result = subprocess.run(["/bin/bash", str(root / "tools" / "system_deps.sh"), "graphviz"],
                            env={"PATH": str(stubs)}, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and (stubs / "dot").exists(), result.stdout + result.stderr
    assert log.read_text().split() == ["apt-get", "install", "-y", "-qq", "graphviz"]
