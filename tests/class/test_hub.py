"""A real class on one machine: JupyterHub and configurable-http-proxy from deploy/, three students who are real
Unix users, nbgrader's exchange between them and the instructor.

The hub runs `deploy/jupyterhub_config.py` as root on 127.0.0.1 with free ports, its class folder (hub state,
exchange, course) in a temporary folder. It creates the three students' Unix users (fresh names) at start; they log
in, their servers spawn as themselves, and each runs notebook 00's set-up check in its own kernel (the course's,
through the server's kernel websocket). Then the whole graded path: the instructor releases assignment 05; ada, in
chromium, logs in through the hub's page, fetches it from nbgrader's *Assignments* service, answers right and submits;
grace (wrong answer) and alan (an answer that rebinds the checker) do the same with nbgrader's command line in their
kernels; the instructor collects, autogrades, releases feedback; each fetches their own. From a student's kernel,
nobody else's home, the solutions, the course or the hub's secrets can be read. Every process the hub started is
stopped at the end, and every Unix user it made removed, whatever happens; a teardown error says what was left.
"""
import asyncio
import json
import os
import pathlib
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import nbformat
import psutil
import pytest
import requests
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from deploy import assignments, sizing
from deploy.learner_copies import FOLDER

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = uuid.uuid4().hex[:4]          # fresh user names: nothing of this machine's is touched
ADA, GRACE, ALAN = STUDENTS = tuple(f"amlab{RUN}{name}" for name in ("ada", "grace", "alan"))
ASSIGNMENT = "05_laplacian_pinn"
PASSWORD = "a-trial-password-for-the-test"
KERNEL = "autograd-memory-lab"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def setup_check_source():
    """Notebook 00's set-up check, as the learner's edition has it: the cell that runs it and its assert."""
    cells = nbformat.read(ROOT / "learner" / "00_start_here.ipynb", as_version=4).cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "cu.check_env()" in c.source)
    return cells[at].source + "\n" + cells[at + 1].source


class Hub:
    """The hub's process, its URL, and what it started (remembered so that all of it can be stopped)."""

    def __init__(self, root):
        self.root, self.state, self.url = root, root / "hub", f"http://127.0.0.1:{free_port()}"
        env = dict(os.environ, AMLAB_CLASS_ROOT=str(root), AMLAB_HUB_PASSWORD=PASSWORD)
        self.log = open(root / "hub.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(ROOT / "deploy" / "jupyterhub_config.py"),
             f"--JupyterHub.bind_url={self.url}", f"--JupyterHub.hub_bind_url=http://127.0.0.1:{free_port()}",
             f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
             *(f"--Authenticator.allowed_users={name}" for name in STUDENTS)],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, cwd=root)
        self.started = {}  # pid -> (create time, command line): every process the hub started, seen so far
        self.tokens = {}

    def remember_children(self):
        try:
            for p in psutil.Process(self.process.pid).children(recursive=True):
                self.started.setdefault(p.pid, (p.create_time(), " ".join(p.cmdline())[:120]))
        except psutil.Error:
            pass

    def api(self, method, path, token=None, **kwargs):
        headers = {"Authorization": f"token {token}"} if token else {}
        return requests.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def wait_up(self, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the hub exited: {self.tail()}"
            try:
                if self.api("GET", "/hub/api/").ok:
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        raise AssertionError(f"the hub did not answer within {seconds} s: {self.tail()}")

    def log_in(self, name):
        """A token for ``name``, asked for with the shared password through the REST API."""
        reply = self.api("POST", f"/hub/api/users/{name}/tokens", json={"auth": {"username": name, "password": PASSWORD}})
        assert reply.status_code == 201, f"{name} could not log in: {reply.status_code} {reply.text}"
        self.tokens[name] = reply.json()["token"]
        return self.tokens[name]

    def spawn(self, name, seconds=180):
        token = self.tokens[name]
        reply = self.api("POST", f"/hub/api/users/{name}/server", token)
        assert reply.status_code in (201, 202), (
            f"{name}'s server did not start: {reply.status_code} {reply.text}\n{self.tail()}")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            server = self.api("GET", f"/hub/api/users/{name}", token).json()["servers"].get("", {})
            if server.get("ready"):
                self.remember_children()
                return server
            time.sleep(0.5)
        raise AssertionError(f"{name}'s server was not ready within {seconds} s: {self.tail()}")

    def server(self, name, method, path, as_user=None, **kwargs):
        """A request to ``name``'s server through the proxy, with ``as_user``'s token (``name``'s by default)."""
        return self.api(method, f"/user/{name}/api/{path}", self.tokens[as_user or name], **kwargs)

    def tail(self, lines=40):
        self.log.flush()
        return "\n".join((self.root / "hub.log").read_text().splitlines()[-lines:])

    def stop(self):
        """Stop the hub (it stops the servers and the proxy), then kill whatever it left; return what was left."""
        self.remember_children()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        left = []
        for pid, (created, command) in self.started.items():
            try:
                p = psutil.Process(pid)
                if p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE:
                    left.append(command)
                    p.kill()
            except psutil.NoSuchProcess:
                pass
        self.log.close()
        return left


class Kernel:
    """A kernel of a student's server, driven through the server's kernel websocket (Jupyter's messaging protocol)."""

    def __init__(self, hub, name):
        self.hub, self.name = hub, name
        reply = hub.server(name, "POST", "kernels", json={"name": KERNEL})
        assert reply.status_code == 201, f"{name}'s server could not start the course's kernel: {reply.text}"
        self.id = reply.json()["id"]
        hub.remember_children()

    def run(self, code, seconds=120):
        """Run ``code``; return (stdout, error) where error is (ename, evalue) or None."""
        return asyncio.run(self._run(code, seconds))

    async def _run(self, code, seconds):
        url = f"{self.hub.url.replace('http', 'ws')}/user/{self.name}/api/kernels/{self.id}/channels"
        ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {self.hub.tokens[self.name]}"}))
        msg_id = uuid.uuid4().hex
        ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "username": self.name, "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        out, error, idle, replied = [], None, False, False
        try:
            while not (idle and replied):
                msg = json.loads(await asyncio.wait_for(ws.read_message(), seconds))
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["header"]["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(content["text"])
                elif kind == "error":
                    error = (content["ename"], content["evalue"])
                elif kind == "status" and content["execution_state"] == "idle":
                    idle = True
                elif kind == "execute_reply":
                    replied = True
        finally:
            ws.close()
        return "".join(out), error


def remove_students():
    """Remove the students' Unix users and homes; return the processes any of them still ran (killed now)."""
    left = []
    for p in psutil.process_iter(["username", "cmdline"]):
        if p.info["username"] in STUDENTS:
            left.append(f"{p.info['username']}: {' '.join(p.info['cmdline'] or [])[:100]}")
            p.kill()
    for name in STUDENTS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        subprocess.run(["userdel", "--remove", name], capture_output=True)
    return left


@pytest.fixture(scope="module")
def hub():
    root = pathlib.Path(tempfile.mkdtemp(prefix="amlab-class-"))  # not under pytest's 0700 folder: students read it
    root.chmod(0o755)
    hub = Hub(root)
    try:
        hub.wait_up()
        for name in STUDENTS:
            hub.log_in(name)
        for name in STUDENTS:
            hub.spawn(name)
        yield hub
    finally:
        left = hub.stop()
        left += remove_students()
        users = [name for name in STUDENTS if name in {u.pw_name for u in pwd.getpwall()}]
        shutil.rmtree(root, ignore_errors=True)
        assert not left and not users, f"still running after the hub stopped (now killed): {left}; users left: {users}"


@pytest.fixture(scope="module")
def kernels(hub):
    return {name: Kernel(hub, name) for name in STUDENTS}


def test_each_student_runs_the_setup_check_in_their_own_kernel(hub, kernels):
    check = setup_check_source()
    for name, kernel in kernels.items():
        out, error = kernel.run(check + "\nimport os; print('HOME', os.environ['HOME'])")
        assert error is None, f"{name}'s set-up check failed: {error}\n{out}"
        assert "[FAIL]" not in out and out.count("[OK]") >= 2, f"{name}'s set-up check did not pass:\n{out}"
        assert f"HOME {pwd.getpwnam(name).pw_dir}\n" in out, f"{name}'s kernel does not run in their own home:\n{out}"


def test_each_student_finds_their_own_copies_of_the_learners_edition(hub):
    edition = sorted(p.name for p in (ROOT / "learner").glob("*.ipynb"))
    for name in STUDENTS:
        listing = hub.server(name, "GET", f"contents/{FOLDER}").json()
        assert sorted(item["name"] for item in listing["content"]) == edition, f"{name}'s {FOLDER}: {listing}"
        copy = hub.server(name, "GET", f"contents/{FOLDER}/00_start_here.ipynb").json()["content"]
        edition_cells = nbformat.read(ROOT / "learner" / "00_start_here.ipynb", as_version=4).cells
        assert [c["source"] for c in copy["cells"]] == [c.source for c in edition_cells], (
            f"{name}'s copy of notebook 00 should be the learner's edition")


def test_a_students_change_stays_theirs_and_survives_a_restart(hub, kernels):
    path = f"contents/{FOLDER}/01_graph_lifecycle.ipynb"
    mine = hub.server(ADA, "GET", path).json()
    mine["content"]["cells"][0]["source"] = "# ada's own note"
    saved = hub.server(ADA, "PUT", path, json={"type": "notebook", "content": mine["content"]})
    assert saved.status_code == 200, saved.text
    for name in (GRACE, ALAN):
        theirs = hub.server(name, "GET", path).json()["content"]
        assert theirs["cells"][0]["source"] != "# ada's own note", f"ada's change reached {name}'s copy"
    assert hub.server(GRACE, "GET", path, as_user=ADA).status_code == 403, "ada could read grace's files"
    assert hub.api("DELETE", f"/hub/api/users/{ADA}/server", hub.tokens[ADA]).status_code in (202, 204)
    deadline = time.monotonic() + 60
    while hub.api("GET", f"/hub/api/users/{ADA}", hub.tokens[ADA]).json()["servers"] and time.monotonic() < deadline:
        time.sleep(0.5)
    hub.spawn(ADA)
    kernels[ADA] = Kernel(hub, ADA)
    again = hub.server(ADA, "GET", path).json()["content"]
    assert again["cells"][0]["source"] == "# ada's own note", "a restart overwrote ada's copy"


def test_the_heaviest_notebook_runs_under_the_memory_limit(hub, kernels):
    heaviest = sizing.Sizing.measured().heaviest
    kernel = kernels[GRACE]
    kernel.run(f"import os; os.chdir(os.path.expanduser('~/{FOLDER}'))")
    cells = nbformat.read(ROOT / "learner" / f"{heaviest}.ipynb", as_version=4).cells
    for number, cell in enumerate(c for c in cells if c.cell_type == "code"):
        out, error = kernel.run(cell.source, seconds=300)
        assert error is None, f"{heaviest}, code cell {number}, under the limit in grace's server: {error}\n{out[-500:]}"


def test_a_kernel_past_the_memory_limit_is_stopped_and_the_class_goes_on(hub, kernels):
    limit = sizing.Sizing.measured().memory_limit
    out, error = kernels[ALAN].run(
        "import resource\nprint(resource.getrlimit(resource.RLIMIT_DATA)[0])\n"
        f"import torch\nx = torch.ones({limit // 4 + 1})")
    assert out.split() == [str(limit)], f"alan's kernel should run under the {limit}-byte limit: {out}"
    assert error is not None and "allocate" in error[1].lower() + error[0].lower(), (
        f"allocating past the limit should fail in alan's kernel with an allocation error, got {error}")
    for name in STUDENTS:
        out, error = kernels[name].run("print(6 * 7)")
        assert (out, error) == ("42\n", None), f"{name}'s kernel stopped working after alan's allocation: {out} {error}"
    assert hub.process.poll() is None and hub.api("GET", "/hub/api/").ok, "the hub went down"


def test_the_idle_culler_runs_as_a_hub_service(hub):
    culler = [p for p in psutil.Process(hub.process.pid).children() if "jupyterhub_idle_culler" in " ".join(p.cmdline())]
    assert culler and culler[0].is_running(), "the idle culler should run as a service of the hub"
    assert re.search(r"200 GET /hub/api/users\S* \(idle-culler@", hub.tail(10_000)), (
        "the culler should read the hub's users with its own token")


def test_each_students_server_runs_as_that_student_in_a_home_of_their_own(hub):
    for p in psutil.Process(hub.process.pid).children(recursive=True):
        if "jupyterhub.singleuser" in " ".join(p.cmdline()):
            assert p.username() in STUDENTS, f"a student's server runs as {p.username()}: {p.cmdline()}"
    servers = {p.username() for p in psutil.Process(hub.process.pid).children(recursive=True)
               if "jupyterhub.singleuser" in " ".join(p.cmdline())}
    assert servers == set(STUDENTS), f"each student's server should run as them: {servers}"
    for name in STUDENTS:
        home = pathlib.Path(pwd.getpwnam(name).pw_dir)
        assert home.stat().st_mode & 0o777 == 0o700 and home.owner() == name, f"{home} should be {name}'s alone"
        assert "graded" in (home / "README.md").read_text(), f"{name}'s home should say which notebook is graded"
    for secret in ("jupyterhub_cookie_secret", "trial_password"):
        if (hub.state / secret).exists():
            assert (hub.state / secret).stat().st_mode & 0o777 == 0o600, f"the hub's {secret} should be 0600"
    assert hub.state.stat().st_mode & 0o777 == 0o700 and (hub.root / "course").stat().st_mode & 0o777 == 0o700
    assert (hub.root / "exchange").stat().st_mode & 0o7777 == 0o1777, "nbgrader's exchange: root's, sticky, open"


# ---- the graded path: release, fetch, submit, collect, autograde, feedback ----

COURSE_ID = assignments.COURSE_ID
STUDENT_SIDE = '''
import json, os, subprocess, nbformat
os.chdir(os.path.expanduser("~"))
def nbgrader(*args):
    done = subprocess.run(["nbgrader", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
'''
SUBMIT = STUDENT_SIDE + '''
nbgrader("fetch_assignment", {assignment!r})
path = os.path.expanduser("~/{course}/{assignment}/{assignment}.ipynb")
nb = nbformat.read(path, as_version=4)
answers = json.loads({answers!r})
for cell in nb.cells:
    meta = cell.metadata.get("nbgrader", {{}})
    if meta.get("solution") and meta["grade_id"].removeprefix("answer_") in answers:
        cell.source = answers[meta["grade_id"].removeprefix("answer_")]
nbformat.write(nb, path)
nbgrader("submit", {assignment!r})
print("submitted")
'''
FETCH_FEEDBACK = STUDENT_SIDE + '''
nbgrader("fetch_feedback", {assignment!r})
print("fetched")
'''
BROWSER_FETCH = """async ([method, url, body]) => {
  const xsrf = decodeURIComponent((document.cookie.match(/_xsrf=([^;]+)/) || ["", ""])[1]);
  const reply = await fetch(url, {method, credentials: "same-origin", body: body ? JSON.stringify(body) : undefined,
                                  headers: {"X-XSRFToken": xsrf, "Content-Type": "application/json"}});
  return [reply.status, await reply.text()];
}"""
WRONG_DIAGNOSIS = 'def diagnose(step, steps=6):\n    return ("graph", 0)'
CHEAT = ('def diagnose(step, steps=6):\n    return ("nothing", 0)\n\n\nclass Passed:\n    passed = True\n\n\n'
         'checks.check_diagnosis = checks.check_leak_bytes = lambda *a, **k: Passed()')


def worked_answers(course):
    from test_grading import MARKERS, answer_cells
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    return {f: MARKERS.sub("", c.source) for f, c in answer_cells(source).items()}


def in_browser(hub, name, steps):
    """Log ``name`` in through the hub's login page in chromium, then run ``steps(page, call)`` on their JupyterLab,
    where ``call(method, path, body)`` asks their server as the page does (its cookie and XSRF token)."""
    from playwright.sync_api import sync_playwright
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from test_live_gauge import CHROMIUM, CHROMIUM_FLAGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.goto(f"{hub.url}/hub/login")
            page.fill("#username_input", name)
            page.fill("#password_input", PASSWORD)
            page.click("#login_submit")
            page.wait_for_url(f"**/user/{name}/lab/**", timeout=120_000)

            def call(method, path, body=None):
                status, text = page.evaluate(BROWSER_FETCH, [method, f"/user/{name}/{path}", body])
                assert status == 200, f"{name}'s {method} {path} from the browser: {status} {text[:500]}"
                return json.loads(text)
            return steps(page, call)
        finally:
            browser.close()


@pytest.fixture(scope="module")
def graded(hub, kernels):
    course, exchange = hub.root / "course", hub.root / "exchange"
    assignments.write_course(course, exchange)
    assignments.nbgrader(course, "generate_assignment", ASSIGNMENT)
    assignments.nbgrader(course, "release_assignment", ASSIGNMENT)
    worked = worked_answers(course)
    action = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}

    def ada_fetches_answers_and_submits(page, call):
        listed = call("GET", f"assignments?course_id={COURSE_ID}")
        assert [a["assignment_id"] for a in listed["value"]] == [ASSIGNMENT], f"ada's Assignments list: {listed}"
        call("POST", "assignments/fetch", action)
        path = f"{COURSE_ID}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        page.goto(f"{hub.url}/user/{ADA}/lab/tree/{path}")
        page.locator(".jp-RenderedMarkdown strong", has_text="This notebook is graded.").first.wait_for(timeout=120_000)
        nb = call("GET", f"api/contents/{path}")["content"]
        for cell in nb["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "").removeprefix("answer_")
            if cell["metadata"].get("nbgrader", {}).get("solution") and grade_id in worked:
                cell["source"] = worked[grade_id]
        call("PUT", f"api/contents/{path}", {"type": "notebook", "format": "json", "content": nb})
        submitted = call("POST", "assignments/submit", action)
        assert submitted.get("success", True) is not False, f"ada's submission was refused: {submitted}"

    in_browser(hub, ADA, ada_fetches_answers_and_submits)
    for name, answers in ((GRACE, {**worked, "diagnose": WRONG_DIAGNOSIS}), (ALAN, {"diagnose": CHEAT})):
        out, error = kernels[name].run(SUBMIT.format(assignment=ASSIGNMENT, course=COURSE_ID,
                                                     answers=json.dumps(answers)), seconds=300)
        assert error is None and "submitted" in out, f"{name} could not fetch and submit: {error} {out}"
    for step in ("collect", "autograde", "generate_feedback", "release_feedback"):
        assignments.nbgrader(course, step, ASSIGNMENT)
    in_browser(hub, ADA, lambda page, call: call("POST", "assignments/fetch_feedback", action))
    for name in (GRACE, ALAN):
        out, error = kernels[name].run(FETCH_FEEDBACK.format(assignment=ASSIGNMENT), seconds=300)
        assert error is None and "fetched" in out, f"{name} could not fetch their feedback: {error} {out}"
    return course


def test_grades_are_full_partial_and_zero_for_the_answer_that_rebinds_the_checker(graded):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gb:
        got = {name: gb.find_submission(ASSIGNMENT, name).score for name in STUDENTS}
    most = 2 * assignments.POINTS
    assert got == {ADA: most, GRACE: most / 2, ALAN: 0}, f"grades (right, wrong, cheat): {got}"


def test_each_student_fetches_their_own_feedback_with_the_checkers_message(graded):
    for name, says in ((ADA, "[PASS] Diagnose"), (GRACE, "[FAIL] Diagnose"), (ALAN, "did not pass")):
        home = pathlib.Path(pwd.getpwnam(name).pw_dir)
        found = sorted((home / COURSE_ID / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert found and found[-1].owner() == name, f"{name} should have their feedback in their home: {found}"
        text = re.sub(r"<(style|script)\b.*?</\1>", "", found[-1].read_text(), flags=re.S)  # what the page shows
        assert says in text, f"{name}'s feedback should say {says!r}"
        assert "Traceback (most recent call last)" not in text and "File \"" not in text and str(ROOT) not in text \
            and str(hub_root(graded)) not in text, (
            f"{name}'s feedback shows a traceback or a path of the grading machine")


def hub_root(course):
    return course.parent


def test_no_student_reaches_another_students_home_the_solutions_the_course_or_the_hubs_secrets(graded, kernels):
    root = hub_root(graded)
    private = {
        "ada's home": pwd.getpwnam(ADA).pw_dir,
        "ada's assignment": f"{pwd.getpwnam(ADA).pw_dir}/{COURSE_ID}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
        "the worked solutions": str(ROOT / "solutions" / f"{ASSIGNMENT}.py"),
        "the course's sources": str(graded / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"),
        "the gradebook": str(graded / "gradebook.db"),
        "the hub's cookie secret": str(root / "hub" / "jupyterhub_cookie_secret"),
        "the hub's database": str(root / "hub" / "jupyterhub.sqlite"),
        "the submissions in the exchange": str(root / "exchange" / COURSE_ID / "inbound"),
    }
    probe = f'''
import json, os
found = {{}}
for what, path in json.loads({json.dumps(json.dumps(private))}).items():
    try:
        (os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1))
        found[what] = "read"
    except PermissionError:
        found[what] = "denied"
try:
    open(os.path.join({pwd.getpwnam(ADA).pw_dir!r}, "from_grace.txt"), "w").write("x")
    found["write into ada's home"] = "written"
except PermissionError:
    found["write into ada's home"] = "denied"
print(json.dumps(found))
'''
    out, error = kernels[GRACE].run(probe)
    assert error is None, error
    reached = {what: how for what, how in json.loads(out.splitlines()[-1]).items() if how != "denied"}
    assert not reached, f"grace's kernel reached: {reached}"
