"""The public API (``import kernellab as triton``) and the ``kernellab`` command."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.runtime.cache import DiskCache


def test_public_names():
    for name in ("jit", "compile", "CompiledKernel", "cdiv", "next_power_of_2", "constexpr_function", "language",
                 "CompilationError", "OutOfResources", "KernelLabError", "__version__"):
        assert hasattr(kl, name), name
    assert kl.language is tl
    assert issubclass(kl.CompilationError, kl.KernelLabError) and issubclass(kl.OutOfResources, kl.KernelLabError)
    assert {"testing", "Config", "autotune", "heuristics", "to_device"} <= set(dir(kl))
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        kl.nonexistent


@pytest.mark.parametrize("x, y, expected", [(10, 3, 4), (9, 3, 3), (1, 1024, 1), (0, 8, 0), (1025, 1024, 2)])
def test_cdiv_on_the_host(x, y, expected):
    assert kl.cdiv(x, y) == expected
    assert kl.cdiv(tl.constexpr(x), y) == expected


@pytest.mark.parametrize("n, expected", [(1, 1), (2, 2), (3, 4), (1000, 1024), (1024, 1024), (1025, 2048), (0, 0)])
def test_next_power_of_2(n, expected):
    assert kl.next_power_of_2(n) == expected


@kl.jit
def blocks_kernel(out_ptr, n, BLOCK: tl.constexpr):
    tiles: tl.constexpr = kl.cdiv(BLOCK * 3, 2)  # on constexprs: folded at compile time
    tl.store(out_ptr + 0, tiles)
    tl.store(out_ptr + 1, kl.cdiv(n, BLOCK))  # on a runtime value: tl.cdiv
    tl.store(out_ptr + 2, kl.next_power_of_2(BLOCK + 1))


def test_cdiv_and_next_power_of_2_inside_kernels(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    out = np.full(3, -1, np.int32)
    blocks_kernel[(1,)](out, 1000, BLOCK=64)
    np.testing.assert_array_equal(out, [96, 16, 128])


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernellab", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def test_cli_info():
    result = run_cli("info")
    assert result.returncode == 0, result.stderr
    assert "targets:" in result.stdout and "interpret" in result.stdout and "cache:" in result.stdout


def test_cli_cache_clear(tmp_path, monkeypatch):
    cache = DiskCache(tmp_path)
    cache.store("ef" * 32, {"tile": "x"}, {})
    (tmp_path / "unrelated.txt").write_text("keep me")
    monkeypatch.setenv("KERNELLAB_CACHE_DIR", str(tmp_path))
    import os

    result = run_cli("cache", "clear", env=dict(os.environ))
    assert result.returncode == 0 and "removed 1" in result.stdout
    assert cache.entries() == [] and (tmp_path / "unrelated.txt").exists()


def test_cli_rejects_unknown_commands():
    assert run_cli("frobnicate").returncode == 2
