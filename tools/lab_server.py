"""A JupyterLab server for a browser to measure or test, and Debian's chromium to drive (Playwright): what
tools/slide_fit.py measures the lecture with and tests/browser/ test the course's pages with.

    lab = Lab(folder, port)        # serves folder/notebooks on 127.0.0.1:port, with a random token
    lab.wait_until_up(); ...; lab.stop()
"""
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request

from tools.course import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
# JupyterLab's settings for this throw-away server: the ones `make` gives the course's environment (no news to ask
# about, no update checks), as user settings files ("@org/plugin:id" -> "@org/plugin/id.jupyterlab-settings").
# Autosave is off here: a test that opens one notebook in JupyterLab and again as a RISE slideshow (two documents on
# one file) otherwise meets "File Changed" when one autosaves after the other, and that dialog swallows the keys the
# test presses on the slide (seen on a loaded machine, where running the cells takes longer than autosave's 120 s).
LAB_SETTINGS = {plugin.replace(":", "/") + ".jupyterlab-settings": values for plugin, values in
                {**json.loads((ROOT / "tools" / "jupyterlab_overrides.json").read_text()),
                 "@jupyterlab/docmanager-extension:plugin": {"autosave": False}}.items()}


def api(url, token, method="GET"):
    request = urllib.request.Request(url, method=method, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None


class Lab:
    """A JupyterLab server on ``folder / "notebooks"`` (a temporary folder), with ``lab_settings`` (default
    :data:`LAB_SETTINGS`); ``stop()`` shuts its kernels and itself down."""

    def __init__(self, folder, port, env=None, args=(), lab_settings=None):
        self.port, self.token = port, secrets.token_hex(24)
        self.base = f"http://127.0.0.1:{self.port}"
        settings = folder / "lab-settings"
        for name, values in (LAB_SETTINGS if lab_settings is None else lab_settings).items():
            (settings / name).parent.mkdir(parents=True, exist_ok=True)
            (settings / name).write_text(json.dumps(values))
        (folder / "runtime").mkdir()
        (folder / "workspaces").mkdir()
        self.log = open(folder / "jupyter.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
             "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={self.token}", *(["--allow-root"] if os.geteuid() == 0 else []),
             f"--ServerApp.root_dir={folder / 'notebooks'}",
             f"--LabServerApp.user_settings_dir={settings}", f"--LabServerApp.workspaces_dir={folder / 'workspaces'}",
             *args],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=folder,
            env={**os.environ, "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), **(env or {})},
        )

    def wait_until_up(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"jupyter lab exited early; see {self.log.name}"
            try:
                api(f"{self.base}/api/status", self.token)
                return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"jupyter lab did not answer within {timeout} s; see {self.log.name}")

    def stop(self):
        try:
            if self.process.poll() is None:
                for kernel in api(f"{self.base}/api/kernels", self.token):
                    api(f"{self.base}/api/kernels/{kernel['id']}", self.token, method="DELETE")
                api(f"{self.base}/api/shutdown", self.token, method="POST")
        except OSError:
            pass
        finally:
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=10)
            self.log.close()
