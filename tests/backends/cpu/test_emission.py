"""The object code the CPU target runs is built from the optimized module itself: emitting the
assembly text first (for the report) ran LLVM's codegen IR passes on that module in place, and the
object then built from it computed ``tl.minimum(x + 3, x)`` as ``x + 3`` at opt_level=1 (found by
the differential fuzzer, kernel shrunk from seed 20261213)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl


@kl.jit(noinline=True)
def difference(a, b):
    return a - b


@kl.jit
def min_after_call(a_ptr, b_ptr, x_ptr, diff_ptr, low_ptr, shifted_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    a = tl.load(a_ptr + rows, mask=rows < M, other=1)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0)
    offsets = rows[:, None] * N + cols[None, :]
    tl.store(diff_ptr + offsets, difference(a[:, None], b[None, :]), mask=mask)
    x = tl.load(x_ptr + offsets, mask=mask, other=-2.5)
    shifted = 3.0 + x
    tl.store(low_ptr + offsets, tl.minimum(shifted, x), mask=mask)
    tl.store(shifted_ptr + offsets, shifted, mask=mask)


SIGNATURE = {"a_ptr": "*u64", "b_ptr": "*u16", "x_ptr": "*fp64", "diff_ptr": "*u64", "low_ptr": "*fp64",
             "shifted_ptr": "*fp64", "M": "i32", "N": "i32"}


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_the_object_matches_the_optimized_module(opt_level):
    compiled = kl.compile(min_after_call, signature=SIGNATURE, constexprs={"BM": 4, "BN": 16}, target="cpu",
                          opt_level=opt_level)
    x = np.linspace(-1, 1, 48)
    a, b = np.arange(12, dtype=np.uint64), np.arange(4, dtype=np.uint16)
    diff, low, shifted = np.zeros(48, np.uint64), np.zeros(48), np.zeros(48)
    compiled[(3,)](a, b, x, diff, low, shifted, 12, 4)
    np.testing.assert_array_equal(shifted, x + 3)
    np.testing.assert_array_equal(low, x)
    np.testing.assert_array_equal(diff, (a[:, None] - b[None, :].astype(np.uint64)).reshape(-1))
