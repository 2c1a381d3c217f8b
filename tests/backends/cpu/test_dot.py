"""``dot`` at the IR level: shapes that use the micro-kernel and its remainders, batched 3-D
dots, every input type, against the op's reference."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from kernellab.ir import types as T

from .harness import random_array, reference, run_op


@pytest.mark.parametrize("m,n,k", [(16, 32, 8), (24, 48, 16), (5, 7, 3), (64, 64, 32), (8, 20, 4), (1, 16, 16)])
def test_dot_f32_shapes(m, n, k):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a, b, acc = (random_array(rng, s, np.float32) for s in ((m, k), (k, n), (m, n)))
    ty = T.tile(T.f32, (m, n))
    got = run_op("dot", [a, b, acc], [ty])[0]
    np.testing.assert_allclose(got, reference("dot", [a, b, acc], [ty])[0], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype,out", [(np.float16, np.float32), (ml_dtypes.bfloat16, np.float32),
                                       (np.float64, np.float64), (np.float16, np.float16), (np.int8, np.int32)],
                         ids=lambda d: np.dtype(d).name)
def test_dot_types(dtype, out):
    rng = np.random.default_rng(5)
    a, b = random_array(rng, (16, 32), dtype), random_array(rng, (32, 16), dtype)
    acc = random_array(rng, (16, 16), out)
    ty = T.tile(T.from_numpy(out), (16, 16))
    got = run_op("dot", [a, b, acc], [ty])[0].astype(np.float64)
    if np.dtype(dtype) == ml_dtypes.bfloat16:  # (the reference multiplies bfloat16 as integers)
        want = a.astype(np.float64) @ b.astype(np.float64) + acc
    else:
        want = reference("dot", [a, b, acc], [ty])[0].astype(np.float64)
    tolerance = 1e-2 if np.dtype(out).itemsize == 2 else 1e-5
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * 10)


def test_dot_batched():
    rng = np.random.default_rng(6)
    a, b, acc = (random_array(rng, s, np.float32) for s in ((3, 16, 8), (3, 8, 32), (3, 16, 32)))
    ty = T.tile(T.f32, (3, 16, 32))
    got = run_op("dot", [a, b, acc], [ty])[0]
    np.testing.assert_allclose(got, np.matmul(a.astype(np.float64), b) + acc, rtol=1e-5, atol=1e-4)
