"""The launch path stays cheap (loose bounds: machines running tests are busy; the precise
numbers come from bench/launch_overhead.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import kernellab as kl
from kernellab.runtime.targets import backend_available

from . import sample_kernels as sk


def best_per_call_us(fn, calls: int = 500, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def test_the_runtime_adds_a_few_microseconds(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    kernel = kl.jit(sk.add_kernel.fn)
    x, y, out = (np.ones(64, np.float32) for _ in range(3))
    compiled = kernel[(1,)](x, y, out, 64, BLOCK=64)
    calls = []
    compiled._launcher = lambda grid, args, stream: calls.append(args)
    compiled._run = compiled._run_values  # raw values, as for backends that take addresses
    kernel[(1,)](x, y, out, 64, BLOCK=64)
    assert calls == [(x.ctypes.data, y.ctypes.data, out.ctypes.data, 64)]
    compiled._launcher = lambda grid, args, stream: None
    assert best_per_call_us(lambda: kernel[(1,)](x, y, out, 64, BLOCK=64)) < 15.0  # ~3 us on a laptop
    assert kernel.stats["compiled"] + kernel.stats["disk"] == 1


@pytest.mark.skipif(not backend_available("cpu"), reason="no cpu backend")
def test_cached_cpu_launch(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    kernel = kl.jit(sk.add_kernel.fn)
    x, y, out = (np.ones(64, np.float32) for _ in range(3))
    kernel[(1,)](x, y, out, 64, BLOCK=64)
    assert best_per_call_us(lambda: kernel[(1,)](x, y, out, 64, BLOCK=64)) < 60.0  # budget 20 us, bench/ measures
