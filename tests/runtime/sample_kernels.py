"""Small kernels the runtime tests launch (a module of their own so that spawned processes
can import them).  Annotations are strings here (``from __future__ import annotations``), so
every ``tl.constexpr`` below is detected from its string form."""

from __future__ import annotations

import os

import kernellab as kl
import kernellab.language as tl

SCALE = 2.0
OFFSET = tl.constexpr(3)


@kl.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@kl.jit
def axpy_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask), mask=mask)


@kl.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=[0])
def add_unspecialized(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@kl.jit
def program_ids_kernel(out_ptr):
    """out[linear program id] = pid0 + 100 * pid1 + 10000 * pid2."""
    p0, p1, p2 = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    n0, n1 = tl.num_programs(0), tl.num_programs(1)
    tl.store(out_ptr + p0 + n0 * (p1 + n1 * p2), p0 + 100 * p1 + 10000 * p2)


@kl.jit
def scale_by_global(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


@kl.jit
def add_constexpr_global(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + OFFSET, mask=mask)


@kl.jit
def optional_bias(x_ptr, bias_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def compile_in_child(cache_dir: str, barrier, results) -> None:
    """Run in a spawned process: wait for the others, compile ``add_kernel``, report its key."""
    os.environ["KERNELLAB_CACHE_DIR"] = cache_dir
    os.environ["KERNELLAB_TARGET"] = "interpret"
    barrier.wait(timeout=60)
    kernel = kl.compile(add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                        constexprs={"BLOCK": 128}, target="interpret")
    results.put((kernel.origin, kernel.hash))
