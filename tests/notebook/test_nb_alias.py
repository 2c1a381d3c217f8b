"""``import triton`` in the lab: where Triton is not installed, ``%load_ext kernellab`` makes it
give kernellab, so Triton code pasted into a ``%%tile_kernel`` cell runs unchanged; where the real
Triton is imported, a cell of its kernels gets an error that says what to do.  Each case runs in
a child process (an alias, or the real Triton, must not enter the tests' process)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TRITON_CELL = '''
import triton
import triton.language as tl

@triton.jit
def row_sums(x_ptr, out_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    x = tl.load(x_ptr + r[:, None] * B + r[None, :])
    tl.store(out_ptr + r, tl.sum(x.to(tl.float32), axis=1))
'''
LINE = "--args x_ptr=x out_ptr=out --constexprs B=16 --grid (1,) --run"

WITHOUT_TRITON = """
    import importlib.abc, importlib.util, sys

    class NoTriton(importlib.abc.MetaPathFinder):  # as on a machine where Triton is not installed
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] != "triton":
                return None
            last = sys.meta_path[-1]  # what is asked when no finder has it
            if type(last).__name__ == "_WhereAbsent":
                return last.find_spec(name, path, target)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(1, NoTriton())  # before the path finder, after the alias's own finder
"""

CHILD = """
    import importlib.util

    import numpy as np
    from IPython.testing.globalipapp import start_ipython

    import kernellab

    shell = start_ipython()
    shell.run_line_magic("load_ext", "kernellab")
    imported = "triton" in sys.modules
    importlib.util.find_spec("triton")  # looking changes nothing: importing does
    assert ("triton" in sys.modules) == imported
    x = np.random.default_rng(0).random((16, 16)).astype(np.float16)
    out = np.zeros(16, np.float32)
    shell.user_ns.update(x=x, out=out)
    try:
        shell.run_cell_magic("tile_kernel", LINE, TRITON_CELL)
    except Exception as error:
        print("error:", error)
    else:
        np.testing.assert_allclose(out, x.astype(np.float32).sum(axis=1), rtol=1e-3)
        assert shell.user_ns["triton"] is kernellab
        shell.run_line_magic("as_triton", "off")
        assert "triton" not in sys.modules
        print("ran")
"""


def _child(prefix: str) -> str:
    code = (textwrap.dedent(prefix) + textwrap.dedent(CHILD)).replace("LINE", repr(LINE)).replace(
        "TRITON_CELL", repr(TRITON_CELL))
    done = subprocess.run([sys.executable, "-c", "import sys\n" + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "KERNELLAB_TARGET": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def test_a_triton_cell_runs_where_triton_is_not_installed():
    assert _child(WITHOUT_TRITON) == "ran"


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="Triton is not installed")
@pytest.mark.parametrize("prefix", ["import triton  # imported before the extension loads", ""],
                         ids=["imported-before", "imported-by-the-cell"])
def test_a_cell_of_real_triton_kernels_says_how_to_have_kernellab_compile_them(prefix):
    """Where Triton is installed, ``import triton`` gives it, before the extension loads or after."""
    said = _child(prefix)
    assert said.startswith("error: %%tile_kernel: row_sums: decorated by the real Triton's @triton.jit")
    assert "%as_triton" in said and "import kernellab as triton" in said
