"""Triton's tutorials 01-06 as a user pastes them (``import triton``, torch tensors on
``driver.active.get_active_torch_device()``, host code, checks and benchmarks), run on the CPU
target with kernellab standing in for Triton (``python -m kernellab.as_triton``).

The programs in ``as_pasted/`` are the project's own versions of Triton's tutorials, written from
its documentation with small sizes; the only changes are what torch lacks on the CPU (commented
``adapted:``). Each runs in a fresh interpreter, as a script would, and asserts its own results.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).with_name("as_pasted")
TUTORIALS = [pytest.param(name, marks=pytest.mark.slow) if name.startswith(("t03", "t06")) else name
             for name in sorted(path.stem for path in PROGRAMS.glob("t0*.py"))]


def test_every_tutorial_is_here():
    assert [str(p.values[0]) if hasattr(p, "values") else p for p in TUTORIALS] == [
        "t01_vector_add", "t02_fused_softmax", "t03_matrix_multiplication", "t04_low_memory_dropout",
        "t05_layer_norm", "t06_fused_attention"]


@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_runs_as_pasted_on_the_cpu(name: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    env = {**os.environ, "KERNELLAB_TARGET": "cpu", "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "kernellab.as_triton", str(PROGRAMS / f"{name}.py")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    if name == "t02_fused_softmax":
        assert "softmax-performance" in done.stdout
