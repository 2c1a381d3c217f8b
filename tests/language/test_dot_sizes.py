"""tl.dot's smallest shapes, as Triton's rules: on CUDA K >= 16 (32 on 8-bit operands) and any M
and N (kernellab computes a dot below the tensor cores' tile on CUDA cores); no limit on the
host targets.  Smaller dots are refused in Triton's words."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError


@kl.jit
def small_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


SHAPES = [(1, 8, 16), (4, 4, 16), (2, 16, 32), (16, 1, 16), (8, 8, 32)]
CASES = [(dtype, shape) for dtype in ("float16", "float32") for shape in SHAPES] + [
    ("int8", shape) for shape in SHAPES if shape[2] >= 32]  # 8-bit operands: K >= 32 on CUDA


@pytest.mark.parametrize("dtype,shape", CASES)
def test_dots_below_the_tensor_core_tile(launch, rng, shape, dtype) -> None:
    m, n, k = shape
    if dtype == "int8":
        a, b = (rng.integers(-20, 20, s).astype(np.int8) for s in ((m, k), (k, n)))
        out = np.full((m, n), -1, np.int32)
        expected = a.astype(np.int32) @ b.astype(np.int32)
    else:
        a, b = (rng.standard_normal(s).astype(dtype) for s in ((m, k), (k, n)))
        out = np.full((m, n), np.nan, np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64)
    launch(small_dot, (1,), a, b, out, M=m, N=n, K=k)
    if dtype == "int8":
        np.testing.assert_array_equal(out, expected)
    else:  # fp32 on CUDA: tf32 tensor cores or not, 10 mantissa bits
        np.testing.assert_allclose(out, expected, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("dtype,k_min", [("fp16", 16), ("fp32", 16), ("i8", 32), ("fp8e5", 32)])
def test_smaller_dots_are_refused_on_cuda_in_tritons_words(dtype, k_min) -> None:
    signature = {"a_ptr": "*" + dtype, "b_ptr": "*" + dtype, "c_ptr": "*fp32" if dtype != "i8" else "*i32"}
    with pytest.raises(CompilationError, match=r"got M=8, N=8, K=8 \(tl.dot on cuda") as info:
        kl.compile(small_dot, signature=signature, constexprs={"M": 8, "N": 8, "K": 8}, target="cuda:sm_90a")
    assert str(info.value.__cause__) == f"Input shapes should have M >= 1, N >= 1 and K >= {k_min}"
    kl.compile(small_dot, signature=signature, constexprs={"M": 8, "N": 8, "K": 8}, target="cpu")
