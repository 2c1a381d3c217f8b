"""tl.dot end to end on every target: fp32 (ieee), fp16 with fp32 and fp16 results, int8,
batched 3-D, accumulators, in a K loop as tiled matmuls do."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl


@kl.jit
def matmul(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, OUT: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), OUT)
    for k in tl.range(0, K, BK, num_stages=2):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("dtype,out", [(np.float32, "float32"), (np.float16, "float32"), (np.float16, "float16"),
                                       (np.int8, "int32")])
def test_tiled_matmul(launch, inputs, dtype, out: str) -> None:
    m, n, k = 16, 16, 64
    if dtype is np.int8:
        a, b = inputs.integers((m, k), -50, 50, np.int8), inputs.integers((k, n), -50, 50, np.int8)
        want = a.astype(np.int32) @ b.astype(np.int32)
    else:
        a, b = inputs.normal((m, k), dtype), inputs.normal((k, n), dtype)
        want = a.astype(np.float32) @ b.astype(np.float32)
    c = inputs.poisoned((m, n), np.dtype(out))
    block_k = 32 if dtype is np.int8 else 16  # CUDA's smallest int8 dot has K = 32 (as Triton's)
    launch(matmul, (1,), a, b, c, k, BM=m, BN=n, BK=block_k, OUT=getattr(tl, out))
    if dtype is np.int8:
        np.testing.assert_array_equal(c, want)
    else:
        tolerance = 2e-2 if out == "float16" else 1e-4
        np.testing.assert_allclose(c.astype(np.float32), want, rtol=tolerance, atol=tolerance)


@kl.jit
def batched(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + rb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + rb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b, input_precision="ieee") + 1.0
    tl.store(c_ptr + rb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


def test_batched_dot(launch, inputs) -> None:
    a, b = inputs.normal((2, 16, 32)), inputs.normal((2, 32, 16))
    c = inputs.poisoned((2, 16, 16), np.float32)
    launch(batched, (1,), a, b, c, B=2, M=16, N=16, K=32)
    np.testing.assert_allclose(c, a @ b + 1, rtol=1e-4, atol=1e-4)
