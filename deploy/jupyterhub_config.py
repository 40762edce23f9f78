"""JupyterHub for a class on one machine, students kept apart: `sudo make hub` runs `jupyterhub -f` this file.

As The Littlest JupyterHub does it: every student is a real Unix user, created by the hub at their first login
(``LocalAuthenticator.create_system_users``), and their server runs as that user (``LocalProcessSpawner``), in their
own home (mode 0700). The hub runs as root; everything it keeps is under ``AMLAB_CLASS_ROOT`` (default /srv/amlab):

- ``hub/`` (0700, root): the hub's database, cookie secret and trial password (0600), the proxy's pid;
- ``exchange/`` (root, 1777: anyone writes, nobody removes another's files): nbgrader's exchange, its documented
  layout, through which students fetch assignments and feedback and submit (nbgrader's own file permissions);
- ``course/`` (0700, root): the instructor's nbgrader course (``make assignments``): sources with the worked answers,
  submissions, the gradebook;
- ``student_config/`` (0755): the nbgrader settings every student's server reads (``JUPYTER_CONFIG_PATH``): the
  exchange, the course, nbgrader's *Assignments* tab and *Validate* button switched on (``make class-setup`` leaves
  nbgrader's extensions off in the environment, so that ``make lab`` stays the course's own).

The hub also closes ``solutions/`` of the checkout to everyone but root. A student's home holds ``my_notebooks/``
(their practice copies of the learner's edition, deploy.learner_copies) and, once fetched, the assignments under
``autograd-memory-lab/``; its README.md says which is graded.

Memory: every process of a student's server (the server and each kernel) runs under a data-size limit
(RLIMIT_DATA) from deploy.sizing. Idle kernels are shut down by the server, idle servers by jupyterhub-idle-culler.

Authentication: a shared password (AMLAB_HUB_PASSWORD, or one made up and kept in hub/), for the user names of
the roster only (``--Authenticator.allowed_users``, or ``students.txt`` in AMLAB_CLASS_ROOT, one name a line). NOT
FOR PRODUCTION: anyone with the password is any student. Replace it with your institution's authenticator in a config
of your own that loads this one (deploy/README.md).
"""
import json
import os
import pathlib
import pwd
import resource
import secrets
import shutil
import sys

from jupyterhub.auth import LocalAuthenticator
from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
from jupyterhub.spawner import LocalProcessSpawner

from deploy import assignments, sizing
from deploy.learner_copies import FOLDER, ROOT, copy_into
from deploy.z2jh_values import CULL_EVERY, CULL_TIMEOUT, KERNEL_CULL

c = get_config()  # noqa: F821 (JupyterHub's config loader defines it)

if os.getuid() != 0:
    sys.exit("[hub] run it as root (sudo make hub): it creates a Unix user per student and starts each server as them")

CLASS, COURSE, EXCHANGE = assignments.CLASS, assignments.COURSE, assignments.EXCHANGE
STATE, STUDENT_CONFIG = CLASS / "hub", CLASS / "student_config"
SIZING = sizing.Sizing.measured()
README = f"""# Your home on the course's hub

- `{FOLDER}/`: your own copies of the course's notebooks, to read, run and try things in. **Never graded.**
- `{assignments.COURSE_ID}/<assignment>/`: an assignment you fetched (the *Assignments* tab, or
  `nbgrader fetch_assignment <assignment>` in a terminal). **This is the notebook that is graded**: work in it, save
  it, and submit it from the same tab (or `nbgrader submit <assignment>`). Your feedback arrives in its `feedback/`
  folder once your instructor releases it (the tab's *Fetch feedback*, or `nbgrader fetch_feedback <assignment>`).
"""


STUDENT_EXTENSIONS = ("assignment_list", "validate_assignment")     # the Assignments tab, the Validate button
INSTRUCTOR_PLUGINS = ("formgrader", "create-assignment", "course-list")


def check_students_can_run_the_course():
    """Exit with what to do when a student could not run this environment's Python or read the course."""
    for path in (pathlib.Path(sys.executable).resolve(), pathlib.Path(sys.base_prefix) / "lib", ROOT / "course_utils"):
        closed = [str(p) for p in [path, *path.parents] if p.exists() and not p.stat().st_mode & 0o001]
        if closed:
            sys.exit(f"[hub] students could not reach {path}: {closed[-1]} is closed to other users. Build the "
                     "environment from a Python every user can run, in a folder they can enter: "
                     "rm -rf .venv && make class-setup PYTHON=/usr/bin/python3")


def make_folders():
    """The class's folders with their owners and modes (see the module's docstring); ``solutions/`` closed."""
    CLASS.mkdir(parents=True, exist_ok=True)
    CLASS.chmod(0o755)
    for folder, mode in ((STATE, 0o700), (COURSE, 0o700), (EXCHANGE, 0o1777), (STUDENT_CONFIG, 0o755)):
        folder.mkdir(exist_ok=True)
        os.chown(folder, 0, 0)
        folder.chmod(mode)
    (STUDENT_CONFIG / "nbgrader_config.py").write_text(
        f"c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {assignments.COURSE_ID!r}\n"
        f"c.Exchange.root = {str(EXCHANGE)!r}\n"
        "c.Exchange.path_includes_course = True   # fetched into ~/<course>/<assignment>/, beside my_notebooks/\n"
        "c.ExchangeSubmit.strict = True   # a submission that lacks the assignment's notebook is refused, not graded 0\n")
    (STUDENT_CONFIG / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {f"nbgrader.server_extensions.{name}": True for name in STUDENT_EXTENSIONS}},
         "MappingKernelManager": KERNEL_CULL}, indent=1))
    (STUDENT_CONFIG / "labconfig").mkdir(exist_ok=True)   # nbgrader's lab extension: its students' plugins only
    (STUDENT_CONFIG / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {
        "@jupyter/nbgrader": False, **{f"@jupyter/nbgrader:{name}": True for name in INSTRUCTOR_PLUGINS}}}, indent=1))
    (ROOT / "solutions").chmod(0o700)


class CourseAuthenticator(LocalAuthenticator, SharedPasswordAuthenticator):
    """The shared password, for the roster's names, each a Unix user the hub creates at need."""


class CourseSpawner(LocalProcessSpawner):
    """A student's server, as that student, in their home, under the course's memory limit (RLIMIT_DATA)."""

    def make_preexec_fn(self, name):
        become_student, limit = super().make_preexec_fn(name), int(self.mem_limit)

        def preexec():
            become_student()
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

        return preexec


def prepare_home(spawner):
    """Before each start: the home is the student's alone (0700), with README.md and the practice copies they lack."""
    user = pwd.getpwnam(spawner.user.name)
    home = pathlib.Path(user.pw_dir)
    home.mkdir(mode=0o700, exist_ok=True)
    home.chmod(0o700)
    copied = copy_into(home)
    if not (home / "README.md").exists():
        (home / "README.md").write_text(README)
    for path in [home, home / "README.md", home / FOLDER, *(home / FOLDER / name for name in copied)]:
        shutil.chown(path, user.pw_uid, user.pw_gid)
    spawner.log.info("%s: copied %d notebooks into %s/%s", user.pw_name, len(copied), home, FOLDER)


def trial_password():
    """The shared password: AMLAB_HUB_PASSWORD, else one made up once and kept in the hub's folder."""
    saved = STATE / "trial_password"
    if os.environ.get("AMLAB_HUB_PASSWORD"):
        return os.environ["AMLAB_HUB_PASSWORD"]
    if not saved.exists():
        saved.touch(mode=0o600)
        saved.write_text(secrets.token_urlsafe(12))
    print(f"[hub] trial password for every student (NOT FOR PRODUCTION): {saved.read_text()}  (kept in {saved})")
    return saved.read_text()


check_students_can_run_the_course()
make_folders()
c.JupyterHub.bind_url = "http://127.0.0.1:8000"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [str(ROOT / "deploy" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

c.JupyterHub.authenticator_class = CourseAuthenticator
c.SharedPasswordAuthenticator.user_password = trial_password()
c.LocalAuthenticator.create_system_users = True
c.Authenticator.username_pattern = r"^[a-z][a-z0-9_-]{0,30}$"   # a valid Unix user name
roster = CLASS / "students.txt"
if roster.exists():
    c.Authenticator.allowed_users = set(roster.read_text().split())

c.JupyterHub.spawner_class = CourseSpawner
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.environment = {"JUPYTER_CONFIG_PATH": str(STUDENT_CONFIG),
                         "PATH": os.pathsep.join([str(pathlib.Path(sys.executable).parent), "/usr/bin", "/bin"])}
c.Spawner.default_url = f"/lab/tree/{FOLDER}/00_start_here.ipynb"
c.Spawner.pre_spawn_hook = prepare_home
c.Spawner.mem_limit = SIZING.memory_limit
c.Spawner.cpu_limit = SIZING.cpu_limit   # passed to the server as CPU_LIMIT; only Kubernetes enforces it
c.Spawner.http_timeout = 120

c.JupyterHub.services = [{"name": "idle-culler", "command": [
    sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={CULL_TIMEOUT}", f"--cull-every={CULL_EVERY}"]}]
c.JupyterHub.load_roles = [{"name": "idle-culler", "services": ["idle-culler"],
                            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]}]
