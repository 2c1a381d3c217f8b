"""The teaching notebooks: stored without outputs or widget state, and executed headless
(nbclient) on the CPU target — and on the GPU when there is one — with small problem sizes.
Notebook 07 (PyTorch integration) runs where torch is installed."""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from kernellab.notebook.bundle import MIME
from kernellab.testing.chart import PLOTLY_MIME

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "notebooks"
NAMES = ["01_vector_add", "02_fused_softmax", "03_matrix_multiplication", "04_autotuning_and_heuristics",
         "05_layer_norm", "06_inside_the_compiler", "07_pytorch_integration", "08_debugging_kernels"]
NEEDS_TORCH = {"07_pytorch_integration"}
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _runnable(name: str) -> object:
    marks = [pytest.mark.skip(reason="needs torch")] if name in NEEDS_TORCH and not HAS_TORCH else []
    return pytest.param(name, id=name, marks=marks)


RUNNABLE = [_runnable(name) for name in NAMES]


def test_the_eight_notebooks_are_there():
    assert sorted(path.stem for path in FOLDER.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_notebooks_are_stored_stripped(name):
    notebook = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert "widgets" not in notebook.metadata
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.parametrize("name", NAMES)
def test_every_cell_has_its_own_id(name):
    """nbformat 4.5 cells carry an id (JupyterLab, nbclient and nbformat warn, and will refuse,
    a cell without one); ids are unique within a notebook."""
    cells = json.loads((FOLDER / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]  # as stored: nbformat
    ids = [cell.get("id") for cell in cells]                                               # adds missing ids
    assert None not in ids, ["".join(cell["source"])[:60] for cell in cells if "id" not in cell]
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)


def test_the_torch_notebook_says_how_to_install_torch_where_it_is_missing(ipython, monkeypatch):
    """./dev lab installs no torch: notebook 07's first cell says what to install, in the words a
    newcomer can run, instead of a bare ModuleNotFoundError."""
    notebook = nbformat.read(FOLDER / "07_pytorch_integration.ipynb", as_version=4)
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    monkeypatch.setitem(sys.modules, "torch", None)            # import torch fails as where it is missing
    result = ipython.run_cell(first.source)
    assert isinstance(result.error_in_exec, ModuleNotFoundError)
    assert "%pip install torch" in str(result.error_in_exec)


def _execute(name: str, target: str | None, monkeypatch: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    if target is None:
        monkeypatch.delenv("KERNELLAB_TARGET", raising=False)
    else:
        monkeypatch.setenv("KERNELLAB_TARGET", target)
    monkeypatch.delenv("KERNELLAB_INTERPRET", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setenv("KERNELLAB_TUTORIAL_SIZE", "small")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(FOLDER)}})
    client.on_notebook_start = lambda notebook: _poll_the_shell_in_steps(client.kc.shell_channel)
    client.execute()
    return notebook


def _poll_the_shell_in_steps(channel, step: float = 1.0) -> None:
    """Wait for the kernel's shell replies in polls of ``step`` seconds up to nbclient's deadline.

    One wait for the whole cell timeout sometimes missed a reply that had arrived (the kernel
    idle, the client in ``shell_channel.get_msg``): a notebook with progress widgets then sat
    ~10 minutes in CI and timed out on the H200 (nbclient issue 312 reports the same); a new
    poll sees the waiting message at once."""
    wait = channel.get_msg

    async def get_msg(timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = step if deadline is None else min(step, max(0.0, deadline - time.monotonic()))
            try:
                return await wait(timeout=left)
            except queue.Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    channel.get_msg = get_msg


# What a notebook's text claims, as its outputs must show it (on every target).
CLAIMS = {
    "01_vector_add": ["GB/s (at ", "kernellab reaches", "% of numpy's rate"],
    "08_debugging_kernels": ["out-of-bounds load through argument 'x_ptr'", "in program (3, 0, 0)",
                             "device_assert failed", "log needs x > 0", "pid (0, 0, 0) idx (3) x: -4.000000",
                             "total - numpy sum: [56. 56. 56.] = BLOCK - n_cols = 56", "matches numpy"],
}


# Claims that hold on the host targets only (the CPU target's checked mode has no GPU counterpart).
CPU_CLAIMS = {
    "08_debugging_kernels": ["debug=True on cpu: out-of-bounds load in add_unmasked through argument 'x_ptr'",
                             "program 3 stopped before its store: out[768:] is untouched"],
}


def _text(notebook: nbformat.NotebookNode) -> str:
    return "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                   for output in cell.outputs)


def _check_charts(notebook: nbformat.NotebookNode) -> None:
    """A live sweep leaves one chart (interactive, with its static fallback) and no widget or table."""
    for cell in notebook.cells:
        if cell.cell_type != "code" or "kl.notebook.sweep" not in cell.source:
            continue
        data = [output.get("data", {}) for output in cell.outputs if output.output_type == "display_data"]
        charts = [bundle for bundle in data if PLOTLY_MIME in bundle]
        assert len(charts) == 1 and "image/svg+xml" in charts[0], cell.source[:80]
        assert not [bundle for bundle in data if "application/vnd.jupyter.widget-view+json" in bundle]


def _check_outputs(notebook: nbformat.NotebookNode, target: str) -> None:
    first_output = next(cell.outputs[0]["text"] for cell in notebook.cells if cell.cell_type == "code")
    assert first_output.startswith(f"kernels run on: {target}"), first_output
    magic_cells = [cell for cell in notebook.cells if cell.cell_type == "code"
                   and cell.source.startswith("%%tile_kernel")]
    for cell in magic_cells:
        reports = [out for out in cell.outputs if MIME in out.get("data", {})]
        assert len(reports) == 1, cell.source[:80]
        data = reports[0]["data"]
        assert "text/html" in data and data[MIME]["stages"], cell.source[:80]
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error"
            if output.output_type == "stream" and output.name == "stderr":
                assert "Traceback" not in output.text
    _check_charts(notebook)


def _check_claims(name: str, notebook: nbformat.NotebookNode, claims: dict[str, list[str]] = CLAIMS) -> None:
    text = _text(notebook)
    for claim in claims.get(name, []):
        assert claim in text, (name, claim)


@pytest.mark.parametrize("name", RUNNABLE)
def test_notebook_runs_on_the_cpu_target(name, monkeypatch):
    notebook = _execute(name, "cpu", monkeypatch)
    _check_outputs(notebook, "cpu")
    _check_claims(name, notebook)
    _check_claims(name, notebook, CPU_CLAIMS)


@pytest.mark.gpu
@pytest.mark.parametrize("name", RUNNABLE)
def test_notebook_runs_on_the_gpu(name, monkeypatch):
    notebook = _execute(name, None, monkeypatch)
    _check_outputs(notebook, "cuda")
    _check_claims(name, notebook)
