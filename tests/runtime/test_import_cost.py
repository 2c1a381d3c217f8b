"""What a new process imports: ``import kernellab`` and ``kernellab.language`` load the launch
path of a kernel the disk cache holds (so the first launch imports only its backend) and never
the compiler (frontend lowering, semantics, IR ops, passes, LLVM), the math table
(``ir/mathfns``, ``tl.extra``), the native launch path (a specialization's second launch),
pandas, tqdm or ml_dtypes; launching a cached kernel loads no
compiler either.  (Checked by module, not by time: the whole-process time is issue 5's test,
tests/autotune/test_result_cache.py.)"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernellab.runtime.targets import backend_available

ROOT = Path(__file__).resolve().parents[2]

# Modules only compiling needs (their names, or the start of their names).
COMPILER = ("kernellab.frontend.module", "kernellab.frontend.expressions", "kernellab.language.semantics",
            "kernellab.ir.ops", "kernellab.ir.builder", "kernellab.ir.verifier", "kernellab.ir.printer",
            "kernellab.passes", "kernellab.backends.cpu.compiler", "llvmlite")
HIT_PATH = ("kernellab.runtime.binder", "kernellab.runtime.specialize", "kernellab.runtime.compiled",
            "kernellab.runtime.compiler", "kernellab.runtime.cache", "kernellab.frontend.dependencies")
EXTRAS = ("pandas", "tqdm", "matplotlib", "ml_dtypes", "kernellab.notebook", "kernellab.testing",
          "kernellab.runtime.autotuning", "kernellab.runtime.native.fastpath",
          "kernellab.ir.mathfns", "kernellab.language.extra")  # the math table: ~9 ms, for compiling only

# What only writing to the cache, or an ir_override, needs.
WRITERS = ("kernellab.files", "uuid", "shutil", "tempfile", "kernellab.runtime.ir_override")

DEFINE = """
import sys, json
import kernellab as kl
import kernellab.language as tl

@kl.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

assert tl.float32.name == "fp32" and tl.constexpr is kl.language.constexpr and scale.constexprs == [3]
print(json.dumps(sorted(sys.modules)))
"""

LAUNCH_ONCE = """
import sys, json
import numpy as np
import kernellab as kl
from tests.runtime import sample_kernels as sk

rng = np.random.default_rng(7)
x, y = rng.standard_normal(300, dtype=np.float32), rng.standard_normal(300, dtype=np.float32)
out = np.full(300, np.nan, np.float32)
sk.add_kernel[(5,)](x, y, out, 300, BLOCK=64)
assert np.array_equal(out, x + y)
print(json.dumps({"modules": sorted(sys.modules), "stats": sk.add_kernel.stats}))
"""


def _child(code: str, cache_dir: Path) -> object:
    env = {**os.environ, "KERNELLAB_CACHE_DIR": str(cache_dir), "KERNELLAB_TARGET": "cpu", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in names)]


def test_importing_and_defining_kernels_loads_the_hit_path_and_no_compiler(tmp_path):
    modules = _child(DEFINE, tmp_path)
    assert _loaded(modules, COMPILER + EXTRAS) == []
    assert set(_loaded(modules, HIT_PATH)) == set(HIT_PATH)


@pytest.mark.skipif(not backend_available("cpu"), reason="needs the CPU backend")
def test_launching_a_cached_kernel_loads_no_compiler(tmp_path):
    first = _child(LAUNCH_ONCE, tmp_path)
    assert first["stats"] == {"compiled": 1, "disk": 0}
    assert _loaded(first["modules"], ("kernellab.ir.ops", "llvmlite"))  # compiling did load the compiler
    second = _child(LAUNCH_ONCE, tmp_path)
    assert second["stats"] == {"compiled": 0, "disk": 1}
    assert _loaded(second["modules"], COMPILER + EXTRAS) == []
    assert _loaded(second["modules"], WRITERS) == []  # a hit writes nothing
    assert "kernellab.backends.cpu.status" not in second["modules"]  # the kernel reports nothing
    assert "kernellab.backends.cpu.launcher" in second["modules"]


def _kernellab_imports(tree: ast.AST) -> list[int]:
    """Lines importing from kernellab, leaving out ``if TYPE_CHECKING:`` blocks."""
    lines = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("kernellab")):
            lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name.startswith("kernellab") for a in node.names):
            lines.append(node.lineno)
        else:
            lines += _kernellab_imports(node)
    return lines


@pytest.mark.parametrize("leaf", ["config.py", "errors.py"])
def test_the_leaves_import_nothing_from_kernellab(leaf):
    assert _kernellab_imports(ast.parse("from . import config\nif TYPE_CHECKING:\n    from .ir import core\n")) == [1]
    path = ROOT / "kernellab" / leaf
    assert _kernellab_imports(ast.parse(path.read_text())) == [], f"{leaf} must stay a leaf (ARCHITECTURE.md)"


LAUNCHER = """
import sys, json
from kernellab.backends.cuda import launcher
from tests.backends.cuda.driver_kit import H200

params = launcher.params_of(["*fp32", "*fp32", "i32"])
made = launcher.build(None, 0xF00D, {"name": "k", "num_warps": 4}, H200, params, 0)
assert made.tensor_maps == ()
print(json.dumps(sorted(sys.modules)))
"""


def test_loading_a_cuda_launcher_loads_no_compiler(tmp_path):
    """A cached CUDA kernel's launcher (no tensor maps) imports nothing of the code generator
    (an import of backends/cuda/tma.py at every load cost the cached first launch ~4 ms: it
    brought in the axis analysis and the IR)."""
    modules = _child(LAUNCHER, tmp_path)
    assert _loaded(modules, COMPILER + ("kernellab.analysis", "kernellab.backends.cuda.tma")) == []
