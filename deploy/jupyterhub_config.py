"""JupyterHub for a class on one machine: `make hub` runs `jupyterhub -f deploy/jupyterhub_config.py`.

Each student's server runs the course's environment (this .venv, its kernel `autograd-memory-lab`), in its own
home under ``AMLAB_HUB_HOMES`` (default build/hub/homes/<name>), opening its own copies of the learner's edition
(deploy/learner_copies.py: made on first start, never overwritten). Servers idle for an hour are culled
(jupyterhub-idle-culler). The proxy is configurable-http-proxy from deploy/node_modules (`npm ci` in deploy/).

Memory: every process of a student's server (the server and each kernel) runs under a data-size limit
(RLIMIT_DATA) of the memory limit that deploy/sizing.py computes from data/notebooks_cpu.json; an allocation past
it fails in that kernel with a MemoryError and nothing else is touched. The limit is per process; on Kubernetes
(deploy/z2jh/values.yaml) the pod's cgroup holds the whole server to it instead.

Authentication: a shared password (AMLAB_HUB_PASSWORD, or one made up and saved in the state folder), any user
name. NOT FOR PRODUCTION: anyone with the password is any student. Replace it with your institution's
authenticator (c.JupyterHub.authenticator_class) in a config of your own that loads this one.

Users need not exist on the machine: the spawner is SimpleLocalProcessSpawner's kind, so a hub run as root (a
container) starts every server as root too, with no isolation between students beyond their home folders.
"""
import os
import pathlib
import resource
import secrets
import sys

from jupyterhub.spawner import SimpleLocalProcessSpawner

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import sizing  # noqa: E402
from learner_copies import FOLDER, copy_into  # noqa: E402
from z2jh_values import CULL_EVERY, CULL_TIMEOUT  # noqa: E402

c = get_config()  # noqa: F821 (JupyterHub's config loader defines it)

STATE = pathlib.Path(os.environ.get("AMLAB_HUB_STATE", ROOT / "build" / "hub"))
HOMES = pathlib.Path(os.environ.get("AMLAB_HUB_HOMES", STATE / "homes"))
STATE.mkdir(parents=True, exist_ok=True)
SIZING = sizing.Sizing.measured()


class CourseSpawner(SimpleLocalProcessSpawner):
    """A local server per student, in their own home, under the course's memory limit (RLIMIT_DATA)."""

    def make_preexec_fn(self, name):
        prepare_home, limit = super().make_preexec_fn(name), int(self.mem_limit)

        def preexec():
            prepare_home()
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

        return preexec


def copy_learner_edition(spawner):
    """Before each start: the student's copies of the notebooks they lack (theirs are never overwritten)."""
    copied = copy_into(spawner.home_dir)
    spawner.log.info("%s: copied %d notebooks into %s/%s", spawner.user.name, len(copied), spawner.home_dir, FOLDER)


def trial_password():
    """The shared password: AMLAB_HUB_PASSWORD, else one made up once and kept in the state folder."""
    saved = STATE / "trial_password"
    if os.environ.get("AMLAB_HUB_PASSWORD"):
        return os.environ["AMLAB_HUB_PASSWORD"]
    if not saved.exists():
        saved.write_text(secrets.token_urlsafe(12))
        saved.chmod(0o600)
    print(f"[hub] trial password for every student (NOT FOR PRODUCTION): {saved.read_text()}  (kept in {saved})")
    return saved.read_text()


c.JupyterHub.bind_url = "http://127.0.0.1:8000"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [str(ROOT / "deploy" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = trial_password()
c.Authenticator.allow_all = True

c.JupyterHub.spawner_class = CourseSpawner
c.CourseSpawner.home_dir_template = str(HOMES / "{username}")
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--allow-root"] if os.getuid() == 0 else []
c.Spawner.default_url = f"/lab/tree/{FOLDER}/00_start_here.ipynb"
c.Spawner.pre_spawn_hook = copy_learner_edition
c.Spawner.mem_limit = SIZING.memory_limit
c.Spawner.cpu_limit = SIZING.cpu_limit   # passed to the server as CPU_LIMIT; only Kubernetes enforces it
c.Spawner.http_timeout = 120

c.JupyterHub.services = [{"name": "idle-culler", "command": [
    sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={CULL_TIMEOUT}", f"--cull-every={CULL_EVERY}"]}]
c.JupyterHub.load_roles = [{"name": "idle-culler", "services": ["idle-culler"],
                            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]}]
