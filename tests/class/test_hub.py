"""A real class on one machine: JupyterHub and configurable-http-proxy from deploy/, three students.

The hub runs `deploy/jupyterhub_config.py` on 127.0.0.1 with free ports and its state, homes and database in a
temporary folder. The students log in through the hub's REST API (a token for their password), their servers
spawn, and each runs notebook 00's set-up check in its own kernel (the course's, through the server's kernel
websocket). Every process the hub started is stopped at the end, whatever happens, and a teardown error says
which one had to be killed.
"""
import asyncio
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
import uuid

import nbformat
import psutil
import pytest
import requests
import sizing
from learner_copies import FOLDER
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUDENTS = ("ada", "grace", "alan")
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

    def __init__(self, state):
        self.state, self.url = state, f"http://127.0.0.1:{free_port()}"
        env = dict(os.environ, AMLAB_HUB_STATE=str(state), AMLAB_HUB_PASSWORD=PASSWORD)
        self.log = open(state / "hub.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(ROOT / "deploy" / "jupyterhub_config.py"),
             f"--JupyterHub.bind_url={self.url}", f"--JupyterHub.hub_bind_url=http://127.0.0.1:{free_port()}",
             f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
             *(f"--Authenticator.allowed_users={name}" for name in STUDENTS)],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, cwd=state)
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
        assert reply.status_code in (201, 202), f"{name}'s server did not start: {reply.status_code} {reply.text}"
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
        return "\n".join((self.state / "hub.log").read_text().splitlines()[-lines:])

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


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    hub = Hub(tmp_path_factory.mktemp("hub"))
    try:
        hub.wait_up()
        for name in STUDENTS:
            hub.log_in(name)
        for name in STUDENTS:
            hub.spawn(name)
        yield hub
    finally:
        left = hub.stop()
        assert not left, f"still running after the hub stopped (now killed): {left}"


@pytest.fixture(scope="module")
def kernels(hub):
    return {name: Kernel(hub, name) for name in STUDENTS}


def test_each_student_runs_the_setup_check_in_their_own_kernel(hub, kernels):
    check = setup_check_source()
    for name, kernel in kernels.items():
        out, error = kernel.run(check + "\nimport os; print('HOME', os.environ['HOME'])")
        assert error is None, f"{name}'s set-up check failed: {error}\n{out}"
        assert "[FAIL]" not in out and out.count("[OK]") >= 2, f"{name}'s set-up check did not pass:\n{out}"
        assert f"HOME {hub.state / 'homes' / name}\n" in out, f"{name}'s kernel does not run in their own home:\n{out}"


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
    mine = hub.server("ada", "GET", path).json()
    mine["content"]["cells"][0]["source"] = "# ada's own note"
    saved = hub.server("ada", "PUT", path, json={"type": "notebook", "content": mine["content"]})
    assert saved.status_code == 200, saved.text
    for name in ("grace", "alan"):
        theirs = hub.server(name, "GET", path).json()["content"]
        assert theirs["cells"][0]["source"] != "# ada's own note", f"ada's change reached {name}'s copy"
    assert hub.server("grace", "GET", path, as_user="ada").status_code == 403, "ada could read grace's files"
    assert hub.api("DELETE", "/hub/api/users/ada/server", hub.tokens["ada"]).status_code in (202, 204)
    deadline = time.monotonic() + 60
    while hub.api("GET", "/hub/api/users/ada", hub.tokens["ada"]).json()["servers"] and time.monotonic() < deadline:
        time.sleep(0.5)
    hub.spawn("ada")
    kernels["ada"] = Kernel(hub, "ada")
    again = hub.server("ada", "GET", path).json()["content"]
    assert again["cells"][0]["source"] == "# ada's own note", "a restart overwrote ada's copy"


def test_the_heaviest_notebook_runs_under_the_memory_limit(hub, kernels):
    heaviest = sizing.Sizing.measured().heaviest
    kernel = kernels["grace"]
    kernel.run(f"import os; os.chdir(os.path.expanduser('~/{FOLDER}'))")
    cells = nbformat.read(ROOT / "learner" / f"{heaviest}.ipynb", as_version=4).cells
    for number, cell in enumerate(c for c in cells if c.cell_type == "code"):
        out, error = kernel.run(cell.source, seconds=300)
        assert error is None, f"{heaviest}, code cell {number}, under the limit in grace's server: {error}\n{out[-500:]}"


def test_a_kernel_past_the_memory_limit_is_stopped_and_the_class_goes_on(hub, kernels):
    limit = sizing.Sizing.measured().memory_limit
    out, error = kernels["alan"].run(
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
