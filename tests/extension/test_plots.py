"""The lab's charts and widgets in JupyterLab (headless chromium, playwright-core; see
test_extension.py for the server and the extension's build): a live sweep redraws its chart as
each config is timed and ends with an interactive Plotly figure (the tooltip names the config,
dragging zooms, the legend hides a config) that takes the dark theme's colours; a notebook with a
tuning panel, saved and reopened in a fresh page, shows its widgets and no "model not found".
Screenshots: extension/screenshots/sweep-chart-{light,dark}.png, reopened.png."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from extension.test_extension import (
    CHECK_SCRIPT,
    EXTENSION,
    REPO,
    SCREENSHOTS,
    chromium,
    jupyterlab,
    labextension,
    node_modules,
    notebook,
    run,
)

__all__ = ["labextension", "node_modules"]      # fixtures used here

PLOTS_SCRIPT = CHECK_SCRIPT.with_name("plots_check.js")
OVERRIDES = EXTENSION / "settings" / "overrides.json"

SETUP_CELL = '''import numpy as np
import kernellab as kl
import kernellab.language as tl
import kernellab.notebook as kln


@kl.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


rng = np.random.default_rng(0)
grid = lambda meta: (kl.cdiv(meta["n"], meta["BLOCK"]),)


def make_args(n):
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    return (x, y, np.empty_like(x), n)'''

SWEEP_CELL = '''run = kln.sweep(add, [1024, 4096, 16384], make_args, configs=[{"BLOCK": 64}, {"BLOCK": 256}], grid=grid,
                metric="GB/s", bytes_moved=lambda meta: 3 * meta["n"] * 4, size_name="n", target="cpu",
                warmup=20, rep=150)'''

TABLE_CELL = "run.results"

EXPLORE_CELL = '''kln.explore(add, make_args(4096), {"BLOCK": [64, 256]}, grid=grid, target="cpu", warmup=5, rep=10)'''


def app_settings(folder: Path) -> Path:
    """JupyterLab's app settings as the wheel installs them (share/jupyter/lab/settings)."""
    (folder / "overrides.d").mkdir(parents=True)
    shutil.copy(OVERRIDES, folder / "overrides.d" / "kernellab.json")
    return folder


@pytest.mark.slow
def test_sweep_chart_and_widgets_in_jupyterlab(labextension: Path, tmp_path: Path) -> None:
    browser = chromium()
    root = tmp_path / "notebooks"
    root.mkdir()
    saved = root / "plots.ipynb"
    saved.write_text(json.dumps(notebook([SETUP_CELL, SWEEP_CELL, TABLE_CELL, EXPLORE_CELL])))
    SCREENSHOTS.mkdir(exist_ok=True)
    settings = app_settings(tmp_path / "app-settings")
    with jupyterlab(root, labextension, (f"--LabApp.app_settings_dir={settings}",)) as (url, token):
        options = {"url": url, "token": token, "notebook": saved.name, "chromium": browser,
                   "extension": str(EXTENSION), "screenshots": str(SCREENSHOTS)}
        done = run(["node", str(PLOTS_SCRIPT), json.dumps(options)], cwd=REPO, timeout=500)
    assert done.returncode == 0, f"browser check failed:\n{done.stdout}\n{done.stderr}"
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(results["redraws"]) >= 3 and "BLOCK=" in results["hover"]
    assert results["table"]["columns"] >= 9 and results["table"]["tables"] == 1
    assert results["themes"]["dark"]["text"] != results["themes"]["light"]["text"]
    stored = json.loads(saved.read_text())
    assert stored["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]   # saved state
    for name in ("sweep-chart-light", "sweep-chart-dark", "reopened"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 5_000, name
