"""Warmups inside an ``AsyncCompileMode``: each jit function gets its own kernel, also when the
functions are made by a factory and dropped after their warmup (a dropped function's id is
free for the next one: the mode keyed its kernels by that id and gave the next function the
dropped one's kernel)."""

from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import kernellab as kl
import kernellab.language as tl


def scaling_kernel(scale: float):
    @kl.jit
    def scale_by(x_ptr, out_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * scale)
    return scale_by


def test_warmups_of_functions_dropped_one_after_another_get_their_own_kernels(inputs, monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    scales = [float(s) for s in inputs.uniform(40, 1.0, 9.0)]
    futures = []
    with ThreadPoolExecutor(1) as pool, kl.AsyncCompileMode(pool):
        for scale in scales:
            kernel = scaling_kernel(scale)
            futures.append(kernel.warmup(tl.float32, tl.float32, 8, grid=(1,)))
            futures[-1].result()
            del kernel
            gc.collect()  # the function is gone: its id may come back for the next one
    x = inputs.normal(8)
    for scale, future in zip(scales, futures):
        out = inputs.poisoned(8)
        future.result()[(1,)](x, out)
        np.testing.assert_allclose(out, x * np.float32(scale), rtol=1e-6)
