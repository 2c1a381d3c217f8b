"""binder/: the Binder (repo2docker) set-up builds the wheel with the prebuilt extension, opens
JupyterLab on notebooks/ and runs kernels on the CPU target."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"


def test_environment_has_python_and_no_node() -> None:
    environment = yaml.safe_load((BINDER / "environment.yml").read_text())
    dependencies = [item for item in environment["dependencies"] if isinstance(item, str)]
    assert "pip" in dependencies
    python = next(item for item in dependencies if item.startswith("python"))
    assert python.split("=", 1)[1] >= "3.11"  # the project's requires-python
    # the extension is prebuilt and committed: the wheel's build runs no npm
    assert not any(item.startswith("nodejs") for item in dependencies)


def test_post_build_installs_the_wheel_and_the_server_config() -> None:
    script = BINDER / "postBuild"
    assert os.access(script, os.X_OK)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    commands = [line.strip() for line in script.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert "python -m pip install --no-cache-dir ." in commands
    assert any("binder/jupyter_server_config.py" in line and "/.jupyter/" in line for line in commands)


def test_start_runs_the_server_on_the_cpu_target() -> None:
    script = BINDER / "start"
    assert os.access(script, os.X_OK)
    env = {key: value for key, value in os.environ.items() if key != "KERNELLAB_TARGET"}
    shown = subprocess.run([str(script), "env"], capture_output=True, text=True, env=env, check=True).stdout
    assert "KERNELLAB_TARGET=cpu" in shown.splitlines()


def test_server_config_opens_the_notebooks() -> None:
    from traitlets.config import Config

    config = Config()
    source = (BINDER / "jupyter_server_config.py").read_text()
    exec(compile(source, "jupyter_server_config.py", "exec"), {"get_config": lambda: config})
    url = config.ServerApp.default_url
    assert url == "/lab/tree/notebooks"
    assert (REPO / url.removeprefix("/lab/tree/")).is_dir()
    assert any((REPO / "notebooks").glob("*.ipynb"))
