"""What `docker build -f deploy/Dockerfile .` sends to the builder: `.dockerignore` applied to the checkout, the way
Docker applies it (the Docker SDK's own matcher, ``docker.utils.build.exclude_paths``).

The image is world-readable to whoever pulls it: no environment, build folder, repository, worked answer, hub or
class state, or secret may be in its context. First on a tree with one of each planted, then on this checkout."""
import pathlib

import pytest
from docker.utils.build import exclude_paths

ROOT = pathlib.Path(__file__).resolve().parents[2]
NEVER = (".venv/", "build/", ".git/", "solutions/", "node_modules/", "my_notebooks/", "lecture_notebooks/")
PLANTED = {  # path: whether the image needs it
    "course_utils/__init__.py": True, "learner/05_laplacian_pinn.ipynb": True, "deploy/learner_copies.py": True,
    "binder/environment.yml": True, "pyproject.toml": True, "data/notebooks_cpu.json": True,
    ".venv/bin/python": False, ".venv-torch-2.8.0/bin/python": False, "build/hub/jupyterhub_cookie_secret": False,
    "build/hub/trial_password": False, "build/hub/jupyterhub.sqlite": False, "build/nbgrader/gradebook.db": False,
    "build/nbgrader/source/05/05.ipynb": False, ".git/config": False, "solutions/05_laplacian_pinn.py": False,
    "deploy/node_modules/configurable-http-proxy/index.js": False, "my-secrets.yaml": False, "tls.key": False,
    "deploy/my-secrets.yaml": False, "my_notebooks/05_laplacian_pinn.ipynb": False, "notes.txt": False,
    "course_utils/__pycache__/x.cpython-311.pyc": False,
}


def context(root):
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    return {p for p in exclude_paths(str(root), patterns, dockerfile="deploy/Dockerfile")
            if (pathlib.Path(root) / p).is_file()}


def test_the_context_keeps_what_the_image_needs_and_nothing_else(tmp_path):
    for path in PLANTED:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    sent = context(tmp_path)
    assert sent == {p for p, needed in PLANTED.items() if needed}, (
        f"left out but needed: {sorted({p for p, n in PLANTED.items() if n} - sent)}; "
        f"sent but must not be: {sorted(sent - {p for p, n in PLANTED.items() if n})}")


@pytest.fixture(scope="module")
def checkout_context():
    return context(ROOT)


def test_this_checkouts_context_holds_no_environment_build_repository_solutions_or_secrets(checkout_context):
    leaked = sorted(p for p in checkout_context if p.startswith(NEVER) or "secret" in p or p.endswith(".sqlite"))
    assert not leaked, f"the image's build context holds: {leaked[:20]}"
    assert {"deploy/Dockerfile", "binder/environment.yml", "course_utils/checks/__init__.py"} <= checkout_context
    assert any(p.startswith("learner/") for p in checkout_context) and len(checkout_context) < 2000, (
        f"{len(checkout_context)} files: the context should be the course, not the checkout")
