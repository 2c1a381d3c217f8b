"""Triton's overflow sanitizer: with ``debug`` on, a compiled kernel's signed integer ``+``, ``-``
and ``*`` (narrower than 64 bits) assert that the result fits its type; unsigned arithmetic
wraps as defined, ``tl.add(..., sanitize_overflow=False)`` opts out, and the interpreter does
not check (neither does Triton's)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import KernelAssertionError


@kl.jit
def combine(x_ptr, y_ptr, out_ptr, OP: tl.constexpr, SANITIZE: tl.constexpr):
    x = tl.load(x_ptr)
    y = tl.load(y_ptr)
    if OP == "add":
        z = x + y
    elif OP == "sub":
        z = x - y
    elif OP == "mul":
        z = x * y
    else:
        z = tl.add(x, y, sanitize_overflow=SANITIZE)
    tl.store(out_ptr, z)


def _run(op, x, y, dtype, debug, sanitize=True):
    out = np.zeros(1, dtype)
    combine[(1,)](np.array([x], dtype), np.array([y], dtype), out, op, sanitize, debug=debug)
    return out[0]


@pytest.mark.parametrize("op, x, y, dtype", [("add", 2**31 - 1, 1, np.int32), ("sub", -2**31, 1, np.int32),
                                             ("mul", 2**30, 4, np.int32), ("add", 2**15 - 1, 1, np.int16),
                                             ("tl.add", 2**31 - 1, 1, np.int32)])
def test_signed_overflow_fails_with_debug(monkeypatch, op, x, y, dtype) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    bits = np.dtype(dtype).itemsize * 8
    name = "add" if op == "tl.add" else op
    with pytest.raises(KernelAssertionError, match=f"int{bits} overflow detected for operation {name}"):
        _run(op, x, y, dtype, debug=True)
    wrapped = {"add": x + y, "sub": x - y, "mul": x * y, "tl.add": x + y}[op]
    assert _run(op, x, y, dtype, debug=False) == np.array(wrapped).astype(dtype)  # no check: it wraps


def test_what_is_not_checked(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    assert _run("add", 2**31 - 2, 1, np.int32, debug=True) == 2**31 - 1  # fits
    assert _run("add", 2**32 - 1, 1, np.uint32, debug=True) == 0  # unsigned: wraps as defined
    assert _run("tl.add", 2**31 - 1, 1, np.int32, debug=True, sanitize=False) == -2**31  # opted out
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    assert _run("add", 2**31 - 1, 1, np.int32, debug=True) == -2**31  # Triton's interpreter does not check
