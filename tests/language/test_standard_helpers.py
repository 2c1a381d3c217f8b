"""Helpers of Triton's triton.language.standard that library code imports (FlagGems' argsort)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.language.standard import _log2, zeros_like


@kl.jit
def log2_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    steps: tl.constexpr = _log2(BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK), x * steps + zeros_like(x))


@pytest.mark.parametrize("block", [1, 16, 64])
def test_log2_and_zeros_like(host_target, inputs, block):
    x, out = inputs.normal(block), inputs.poisoned(block)
    log2_kernel[(1,)](x, out, BLOCK=block)
    np.testing.assert_array_equal(out, x * np.float32(int(np.log2(block))))
