"""The prebuilt JupyterLab extension and the wheel a user installs.

``extension/labextension/`` is committed with the hash of the sources it was built from, so a
fresh clone and a wheel need no Node.js; these tests fail when the committed build falls behind
its sources, when the JavaScript and Python hashes disagree, and when an installed wheel cannot
open the tutorials in JupyterLab without Node.js.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from .test_extension import free_port, stop

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "extension"


def stamp_module():
    spec = importlib.util.spec_from_file_location("extension_stamp", EXTENSION / "stamp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_build_matches_its_sources():
    reason = stamp_module().staleness()
    assert reason is None, (f"{reason}: rebuild with `cd extension && npm run build:if-stale` and commit "
                            "extension/labextension (a fresh clone installs that build without npm)")


def test_the_stamp_changes_with_a_source_and_not_with_a_jest_test(tmp_path):
    stamp = stamp_module()
    for name in ("src", "src/__tests__", "style"):
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "a.ts").write_text("export const a = 1;\n")
    (tmp_path / "package.json").write_text("{}")
    first = stamp.sources_hash(tmp_path)
    (tmp_path / "src" / "__tests__" / "a.spec.ts").write_text("test")
    assert stamp.sources_hash(tmp_path) == first
    (tmp_path / "style" / "base.css").write_text("a {}")
    assert stamp.sources_hash(tmp_path) != first
    assert stamp.staleness(tmp_path) == "no build in extension/labextension"


def test_node_computes_the_same_hash():
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (the build script's hash needs it)")
    done = subprocess.run([node, str(EXTENSION / "scripts" / "build-if-stale.js"), "--hash"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == stamp_module().sources_hash()


# ---------------------------------------------------------------------------------------------
# The wheel, installed in a fresh environment without Node.js
# ---------------------------------------------------------------------------------------------

def build_wheel(out: Path) -> Path:
    """kernellab's wheel (hatchling from this environment when it has it, else pip fetches it)."""
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-build-isolation"]
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])}
    env = {**env, "PATH": ":".join(p for p in env["PATH"].split(":") if not (Path(p) / "npm").exists())}
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w", str(out),
                           str(REPO)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, f"building the wheel failed:\n{done.stdout}\n{done.stderr}"
    return next(out.glob("kernellab-*.whl"))


def fresh_environment(folder: Path, wheel: Path) -> Path:
    """A new virtual environment holding the wheel; its other packages (JupyterLab, numpy...)
    are this environment's, seen through a .pth file (no download, and kernellab is the wheel's)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "_kernellab_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                           "-q", str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"installing the wheel failed:\n{done.stdout}\n{done.stderr}"
    return python


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.loads(answer.read())


def test_the_wheel_ships_the_tutorials_and_the_extension(tmp_path):
    wheel = build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    tutorials = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    assert tutorials and all(f"kernellab/notebooks/{name}" in names for name in tutorials)
    shared = "kernellab-0.1.0.data/data/share/jupyter/labextensions/kernellab-jupyterlab/"
    assert f"{shared}package.json" in names and f"{shared}static/style.js" in names
    assert "kernellab_as_triton.pth" in names  # at the wheel's root: site-packages (the alias in child processes)

    python = fresh_environment(tmp_path / "venv", wheel)
    work, port, token = tmp_path / "work", free_port(), secrets.token_hex(16)
    work.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUPYTER", "PYTHONPATH"))}
    # JupyterLab's application (its static assets) is where this environment installed it: a venv
    # with JupyterLab of its own has it under its own share/jupyter/lab, which here holds only the
    # settings the wheel ships, so JupyterLab would look for its assets there.
    env.update(PATH=str(python.parent), HOME=str(tmp_path / "home"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_DIR=str(Path(sys.prefix, "share", "jupyter", "lab")))
    assert shutil.which("node", path=env["PATH"]) is None and shutil.which("npm", path=env["PATH"]) is None
    log = (tmp_path / "lab.log").open("w")
    server = subprocess.Popen([str(python.parent / "kernellab"), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                               f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                               f"--IdentityProvider.token={token}"], cwd=work, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        listing = wait_for(lambda: get_json(f"{url}/api/contents/?token={token}"), server, tmp_path / "lab.log")
        served = sorted(item["name"] for item in listing["content"] if item["type"] == "notebook")
        assert served == tutorials
        extensions = get_json(f"{url}/lab/api/extensions?token={token}")
        assert any(item["name"] == "kernellab-jupyterlab" and item["enabled"] for item in extensions), extensions
    finally:
        stop(server)
        log.close()
    copies = sorted(p.name for p in (work / "kernellab-tutorials").glob("*.ipynb"))
    assert copies == tutorials
    assert "kernellab-tutorials" in (tmp_path / "lab.log").read_text()


def wait_for(probe, server: subprocess.Popen, log: Path, timeout: float = 90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"kernellab lab exited with {server.returncode}:\n{log.read_text()[-4000:]}")
        try:
            return probe()
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"kernellab lab did not serve within {timeout} s:\n{log.read_text()[-4000:]}")
