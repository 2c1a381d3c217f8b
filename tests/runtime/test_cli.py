"""The `kernellab` command: `info`, and `lab` (the README's main job) really serving JupyterLab
on the notebooks folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_info_lists_targets():
    done = subprocess.run([sys.executable, "-m", "kernellab", "info"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "interpret" in done.stdout and "cpu" in done.stdout


@pytest.mark.skipif(subprocess.run([sys.executable, "-c", "import jupyterlab"], capture_output=True).returncode,
                    reason="JupyterLab is not installed in this interpreter (./dev installs it)")
def test_lab_serves_the_notebooks(tmp_path):
    port = _free_port()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    server = subprocess.Popen([sys.executable, "-m", "kernellab", "lab", "--no-browser", f"--port={port}",
                               "--ip=127.0.0.1", "--IdentityProvider.token=kltest"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        listing = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            try:
                url = f"http://127.0.0.1:{port}/api/contents?token=kltest"
                with urllib.request.urlopen(url, timeout=2) as response:
                    listing = response.read().decode()
                break
            except OSError:
                time.sleep(0.5)
        assert server.poll() is None, server.stdout.read()
        assert listing is not None, "JupyterLab did not answer within 60 s"
        assert "01_vector_add.ipynb" in listing, listing[:500]
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
