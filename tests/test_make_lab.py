"""`make lab` (the README's first command) serves JupyterLab headless on the learner's own copies in my_notebooks/
and prints a URL that answers 200; `make present` serves the same with RISE and the lecture switch."""
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request

import psutil
import pytest


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["lab", "present"])
def test_make_lab_prints_a_url_that_answers(root, free_port, target):
    port = free_port
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}  # headless
    # port_retries=0: if the port was taken meanwhile, fail loudly instead of moving to another one
    server = subprocess.Popen(["make", target, f"PORT={port}", "LAB_ARGS=--ServerApp.port_retries=0"], cwd=root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline, seen = time.monotonic() + 240, []
        url = None
        while url is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line and server.poll() is not None:
                break
            seen.append(line)
            match = re.search(rf"(http://127\.0\.0\.1:{port}/lab\S*token=\w+)", line)
            url = match.group(1) if match else None
        assert url, f"make {target} printed no URL with a token:\n" + "".join(seen[-30:])
        folder = "lecture_notebooks" if target == "present" else "my_notebooks"
        assert (root / folder / "00_start_here.ipynb").exists(), f"make {target} copies the notebooks to {folder}/"
        page = None
        while page is None and time.monotonic() < deadline:  # the URL can be printed a moment before it answers
            try:
                with urllib.request.urlopen(url, timeout=30) as response:
                    page = (response.status, response.read().decode())
            except urllib.error.URLError:
                assert server.poll() is None, f"make {target} exited:\n" + "".join(seen[-30:])
                time.sleep(0.5)
        assert page is not None and page[0] == 200, f"{url} did not answer 200"
        assert "JupyterLab" in page[1]
        if target == "present":
            assert "jupyterlab-rise" in page[1], "make present serves JupyterLab with the RISE extension (the teach extra)"
            lab = [p for p in psutil.Process(server.pid).children(recursive=True) if p.name().startswith("jupyter")]
            assert lab and all(p.environ().get("AMLAB_LECTURE") == "1" for p in lab), (
                "make present runs JupyterLab with AMLAB_LECTURE=1, so that every kernel it starts is lecture-styled")
        token = url.rsplit("token=", 1)[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/{folder}/00_start_here.ipynb?token={token}",
                                    timeout=30) as response:
            assert response.status == 200, f"the server serves the copy in {folder}/"
        if target == "present":
            assert "amlab-rise-speaker" in page[1], "make present loads the speaker view's patch (tools/labextensions/)"
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/files/lecture_notebooks/rise.css?token={token}",
                                        timeout=30) as response:
                assert response.read() == (root / "tools" / "rise.css").read_bytes(), (
                    "RISE loads rise.css from the notebooks' folder: make present copies tools/rise.css there")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
