"""The tiny kernel the launch benchmarks time (a module of its own, so that new processes
import it the way a user's code would: from a file, through the disk cache)."""

from __future__ import annotations

import os

import kernellab as kl
import kernellab.language as tl


@kl.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def fresh_kernel(native: bool) -> kl.JITFunction:
    """``add_kernel`` as a JITFunction of its own (its own specializations), whose launches go
    native or stay in the Python binder (``KERNELLAB_NATIVE_LAUNCH``, read when its binder is
    made, which is done here)."""
    saved = os.environ.get("KERNELLAB_NATIVE_LAUNCH")
    os.environ["KERNELLAB_NATIVE_LAUNCH"] = "1" if native else "0"
    try:
        kernel = kl.jit(add_kernel.fn)
        _ = kernel.binder
    finally:
        if saved is None:
            del os.environ["KERNELLAB_NATIVE_LAUNCH"]
        else:
            os.environ["KERNELLAB_NATIVE_LAUNCH"] = saved
    return kernel


def triton_add():
    """The same kernel through Triton (``bench/tiny_kernels_triton.py``, imported on demand:
    Triton is a reference only)."""
    from tiny_kernels_triton import add_kernel as triton_kernel

    return triton_kernel
