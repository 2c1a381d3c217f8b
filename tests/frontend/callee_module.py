"""A jit callee in another module, with its own compile-time global (for dependency tests)."""

import kernellab.language as tl
from tests.frontend.support import jit

OFFSET = tl.constexpr(7)


@jit
def add_offset(x):
    return x + OFFSET
