"""Kernels whose source lines each do one recognisable thing, for the line-map tests."""

import kernellab as kl
import kernellab.language as tl
from tests.runtime.sample_kernels import add_kernel  # noqa: F401  (the tools' tests launch it)


@kl.jit
def halve(v):
    return v * 0.5


@kl.jit
def stages_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    root = tl.sqrt(x)
    tl.store(out_ptr + offs, halve(root), mask=mask)


@kl.jit
def add_but_the_last(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A bug to catch: the last element is never written."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n - 1
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add_grid(meta):
    return (-(-meta["n"] // meta["BLOCK"]),)


def line_of(needle: str) -> int:
    """The line of this file that contains ``needle``."""
    with open(__file__) as source:
        return next(i for i, line in enumerate(source, start=1) if needle in line)
