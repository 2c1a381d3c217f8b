"""The JupyterLab extension (extension/): its jest unit tests, its installation, and a browser test.

The browser test starts JupyterLab on loopback (a free port, a random token), opens a notebook
with a ``%%tile_kernel`` cell (CPU target) and an A/B comparison in Debian's chromium through
playwright-core (``browser_check.js``; no browser download), runs it, and checks that the viewer
renders, that hovering a source line lights its lines in the stage panes, that stage tabs switch,
and that the cell is highlighted as Python. It leaves screenshots in light and dark themes in
``extension/screenshots/``.

These tests skip (saying why) only when Node.js/npm or chromium is not installed; ``./dev test``
installs both where it can.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "extension"
LABEXTENSION = "kernellab-jupyterlab"
SCREENSHOTS = EXTENSION / "screenshots"
CHECK_SCRIPT = Path(__file__).with_name("browser_check.js")

MAGIC = ('%%tile_kernel --target cpu --signature "x_ptr=*fp32, y_ptr=*fp32, out_ptr=*fp32, n=i32"'
         ' --constexprs "BLOCK=64"')
TILE_KERNEL_CELL = MAGIC + '''
import kernellab as kl
import kernellab.language as tl


@kl.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)'''

COMPARE_CELL = '''import numpy as np
import kernellab.notebook as kln

rng = np.random.default_rng(7)
n = 4096
x = rng.random(n, dtype=np.float32) + 0.5
y = rng.random(n, dtype=np.float32) + 0.5
out = np.full(n, np.nan, dtype=np.float32)
kln.compare(add, (x, y, out, n), a={"BLOCK": 64}, b={"BLOCK": 256}, labels=["BLOCK=64", "BLOCK=256"],
            grid=lambda meta: (kl.cdiv(n, meta["BLOCK"]),), target="cpu", stages=["tile", "llvm", "asm"])'''


def notebook(cells: list[str]) -> dict:
    """A notebook (nbformat 4) of code cells, for the python3 kernel."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                     "language_info": {"name": "python"}},
        "cells": [{"cell_type": "code", "id": f"cell-{i}", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": source} for i, source in enumerate(cells)],
    }


# ---------------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------------

def npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.skip("npm (Node.js >= 20) is not installed, so the extension cannot be built or tested: "
                    "install Node.js (./dev does where it can)")
    return found


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium is not installed: `apt-get install chromium` (./dev test does where it can)")
    return found


def python_env() -> dict[str, str]:
    """The environment with this interpreter's scripts first on PATH (so `jupyter lab` and its
    kernels are this environment's, not another one's on PATH) and the repository importable."""
    scripts = str(Path(sys.executable).parent)
    return {**os.environ,
            "PATH": os.pathsep.join([scripts, os.environ.get("PATH", "")]),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def run(command: list[str], cwd: Path = EXTENSION, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=python_env())


@pytest.fixture(scope="module")
def node_modules() -> str:
    """npm, with the extension's packages installed (once; ./dev's install normally did it)."""
    tool = npm()
    if not (EXTENSION / "node_modules" / ".package-lock.json").exists():
        done = run([tool, "install", "--no-audit", "--no-fund"])
        assert done.returncode == 0, f"npm install failed:\n{done.stdout}\n{done.stderr}"
    return tool


@pytest.fixture(scope="module")
def labextension(node_modules: str) -> Path:
    """extension/labextension, rebuilt if its sources changed."""
    done = run([node_modules, "run", "build:if-stale"])
    assert done.returncode == 0, f"building the extension failed:\n{done.stdout}\n{done.stderr}"
    built = EXTENSION / "labextension"
    assert (built / "package.json").exists() and (built / "static" / "style.js").exists()
    return built


def installed_labextension() -> Path | None:
    """Where this interpreter's Jupyter finds kernellab's labextension, if it does."""
    from jupyter_core.paths import jupyter_path

    for folder in jupyter_path("labextensions"):
        candidate = Path(folder) / LABEXTENSION / "package.json"
        if candidate.exists():
            return candidate.parent
    return None


def same_build(installed: Path | None, built: Path) -> bool:
    """Whether an installed labextension is the build of these sources (same federated entry)."""
    if installed is None:
        return False
    entry = [json.loads((folder / "package.json").read_text()).get("jupyterlab", {}).get("_build", {}).get("load")
             for folder in (installed, built)]
    return entry[0] is not None and entry[0] == entry[1]


# ---------------------------------------------------------------------------------------------
# Unit tests and installation
# ---------------------------------------------------------------------------------------------

def test_jest_unit_tests(node_modules: str) -> None:
    done = run([node_modules, "test", "--", "--ci"], timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"jest failed:\n{output}"
    counts = re.search(r"Tests:\s+(\d+) passed, (\d+) total", output)
    assert counts and counts.group(1) == counts.group(2) and int(counts.group(1)) >= 40, output


def test_labextension_is_installed_and_enabled() -> None:
    if installed_labextension() is None:
        pytest.skip("kernellab is not pip-installed in this interpreter (./dev installs it): nothing to list")
    done = run([sys.executable, "-m", "jupyterlab.labextensions", "list"], cwd=REPO, timeout=120)
    listing = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    assert re.search(rf"{LABEXTENSION} v\S+ enabled OK \(python, kernellab\)", listing), listing


# ---------------------------------------------------------------------------------------------
# The browser test
# ---------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_up(url: str, server: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"JupyterLab exited with {server.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"JupyterLab did not answer at {url} within {timeout} s:\n{log.read_text()[-4000:]}")


def lab_settings(folder: Path) -> Path:
    """User settings for the test: no news or update checks (no network, no toasts)."""
    notification = folder / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    return folder


@contextmanager
def jupyterlab(root: Path, labextension: Path, extra: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """JupyterLab on 127.0.0.1 serving ``root`` (``extra``: more options); yields (base url, token)."""
    port, token = free_port(), secrets.token_hex(16)
    state = root.parent / "jupyter-state"
    env = {**python_env(),
           "JUPYTER_CONFIG_DIR": str(state / "config"), "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
           "IPYTHONDIR": str(state / "ipython")}
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
               f"--LabApp.user_settings_dir={lab_settings(state / 'settings')}",
               f"--LabApp.workspaces_dir={state / 'workspaces'}", *extra]
    if not same_build(installed_labextension(), labextension):
        # Not pip-installed here (a plain checkout), or installed from other sources than these
        # (a worktree beside an installed main): serve the fresh build from an extra path, which
        # JupyterLab searches before the installed extensions.
        extra = state / "labextensions"
        extra.mkdir(parents=True)
        (extra / LABEXTENSION).symlink_to(labextension, target_is_directory=True)
        command.append(f"--LabApp.extra_labextensions_path={extra}")
    log = state / "jupyterlab.log"
    with log.open("w") as sink:
        server = subprocess.Popen(command, cwd=root, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{url}/api/status?token={token}", server, log)
        yield url, token
    finally:
        stop(server)


def stop(server: subprocess.Popen) -> None:
    """End the server we started, and the kernels it started (its process group)."""
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


@pytest.mark.slow
def test_viewer_in_jupyterlab(labextension: Path, tmp_path: Path) -> None:
    browser = chromium()
    root = tmp_path / "notebooks"
    root.mkdir()
    (root / "viewer.ipynb").write_text(json.dumps(notebook(["%load_ext kernellab", TILE_KERNEL_CELL, COMPARE_CELL])))
    SCREENSHOTS.mkdir(exist_ok=True)
    with jupyterlab(root, labextension) as (url, token):
        options = {"url": url, "token": token, "notebook": "viewer.ipynb", "chromium": browser,
                   "extension": str(EXTENSION), "screenshots": str(SCREENSHOTS)}
        done = run(["node", str(CHECK_SCRIPT), json.dumps(options)], cwd=REPO, timeout=400)
    assert done.returncode == 0, f"browser check failed:\n{done.stdout}\n{done.stderr}"
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["editor"]["language"] == "kernellab-tile-kernel"
    assert results["hover"]["lines"], results
    assert results["tabs"]["to"] != results["tabs"]["from"], results
    for name in ("viewer-light", "viewer-dark", "compare-light", "compare-dark"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000, name


ERROR_CELL = MAGIC + '''
import kernellab as kl
import kernellab.language as tl


@kl.jit
def broken(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, n)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))'''


@pytest.mark.slow
def test_layout_and_errors_in_jupyterlab(labextension: Path, tmp_path: Path) -> None:
    """The report's room and the editor's error mark, as a reader uses them: the asm's
    directives hidden (and shown again) with line links intact, a splitter dragged between two
    panes, the height handle dragged, full width and wrapped lines; a cell whose kernel does not
    compile shows the kernel's frame only and has the bad line marked in its editor."""
    browser = chromium()
    root = tmp_path / "notebooks"
    root.mkdir()
    cells = ["%load_ext kernellab", TILE_KERNEL_CELL, ERROR_CELL]
    (root / "layout.ipynb").write_text(json.dumps(notebook(cells)))
    SCREENSHOTS.mkdir(exist_ok=True)
    with jupyterlab(root, labextension) as (url, token):
        options = {"url": url, "token": token, "notebook": "layout.ipynb", "chromium": browser,
                   "extension": str(EXTENSION), "screenshots": str(SCREENSHOTS), "mode": "layout"}
        done = run(["node", str(CHECK_SCRIPT), json.dumps(options)], cwd=REPO, timeout=400)
    assert done.returncode == 0, f"browser check failed:\n{done.stdout}\n{done.stderr}"
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["filters"]["directives"] > 0 and results["filters"]["lit"], results["filters"]
    after, before = results["resize"]["after"], results["resize"]["before"]
    assert after[0] > before[0] + 120 and results["resize"]["taller"] > results["resize"]["height"]
    broken_line = ERROR_CELL.splitlines().index("    offs = tl.program_id(0) * BLOCK + tl.arange(0, n)") + 1
    assert results["errorLine"]["lines"] == [broken_line]
    for name in ("layout-asm-filtered", "layout-full-width", "layout-resized-wrapped", "error-line"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 5_000, name
