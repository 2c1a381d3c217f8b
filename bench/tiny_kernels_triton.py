"""``tiny_kernels.add_kernel`` written for Triton, for the launch benchmarks' comparisons (a
module of its own: Triton reads a kernel's globals from its module)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
