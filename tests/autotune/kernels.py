"""Small kernels the autotuning tests wrap (a module of their own: forked and spawned processes
find them by name)."""

from __future__ import annotations

import kernellab as kl
import kernellab.language as tl

from ..runtime.sample_kernels import add_kernel  # out = x + y, over BLOCK elements a program

__all__ = ["add_kernel", "accumulate_kernel", "increment_kernel", "small_blocks_only", "add_even_kernel", "grid_for"]


@kl.jit
def accumulate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out += x (so every extra run changes the result)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=mask) + tl.load(x_ptr + offs, mask=mask), mask=mask)


@kl.jit
def increment_kernel(x_ptr, n, BLOCK: tl.constexpr):
    """x += 1 in place."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@kl.jit
def small_blocks_only(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Fails to compile for BLOCK > 64 (a static assertion)."""
    tl.static_assert(BLOCK <= 64, "BLOCK must be at most 64")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@kl.jit
def add_even_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    """add_kernel that skips the mask when BLOCK divides n (EVEN, from a heuristic)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    else:
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def grid_for(n: int):
    return lambda meta: (kl.cdiv(n, meta["BLOCK"]),)
