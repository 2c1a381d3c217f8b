"""kernellab parses kernel source one thread at a time: CPython 3.11's ast.parse keeps its
node-building depth in state the threads share (gh-106905), and two parses at once can fail
with "SystemError: AST constructor recursion depth mismatch" (seen with FlagGems' kernels
compiled from several threads)."""

from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np

from kernellab.frontend import source

KERNELS = textwrap.dedent('''
    import kernellab as kl
    import kernellab.language as tl

    def make(scale):
        @kl.jit
        def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs) * scale)
        return scaled

    @kl.jit
    def doubled(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2.0)
    ''')


def _load(tmp_path: Path, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(KERNELS + "".join(f"k{i} = make({i + 1}.0)\n" for i in range(8)))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_every_parse_of_kernel_source_holds_the_lock(tmp_path, monkeypatch):
    held = []
    real_parse = ast.parse

    def watched(*args, **kwargs):
        held.append(source._PARSE_LOCK.locked())
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", watched)
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    module = _load(tmp_path, "kl_parse_lock_one")
    x = np.arange(16, dtype=np.float32)
    out = np.zeros_like(x)
    module.k0[(1,)](x, out, BLOCK=16)
    np.testing.assert_array_equal(out, x)
    patched = module.doubled
    patched._unsafe_update_src(patched.src.replace("* 2.0", "* 2.0 + 1.0"))
    patched[(1,)](x, out, BLOCK=16)
    np.testing.assert_array_equal(out, x * 2 + 1)
    assert held and all(held), held


def test_kernels_compiled_from_eight_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    module = _load(tmp_path, "kl_parse_lock_threads")
    x = np.random.default_rng(7).standard_normal(32).astype(np.float32)
    outs = [np.zeros_like(x) for _ in range(8)]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            getattr(module, f"k{i}")[(1,)](x, outs[i], BLOCK=32)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, x * (i + 1), rtol=1e-6)
