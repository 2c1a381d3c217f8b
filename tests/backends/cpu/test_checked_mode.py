"""The CPU target's checked mode (``debug=True`` / ``KERNELLAB_DEBUG=1``, issue 16): an access
outside the allocation of the argument it goes through raises InterpreterError naming the
argument, the element offset, the program and the kernel's line, as the interpreter does (it
ran silently, or corrupted memory, before)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import InterpreterError

HOST_TARGETS = ["interpret", "cpu"]


@kl.jit(debug=True)
def checked_copy(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@kl.jit(debug=True)
def checked_scalar(x_ptr, o_ptr, k):
    tl.store(o_ptr, tl.load(x_ptr + k))


@kl.jit(debug=True)
def checked_atomic(o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(o_ptr + offs, 1, mask=offs < n)


@kl.jit(debug=True)
def checked_either(x_ptr, y_ptr, o_ptr, pick, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    base = x_ptr if pick else y_ptr
    tl.store(o_ptr + offs, tl.load(base + offs))


@pytest.fixture(params=HOST_TARGETS)
def host(request, monkeypatch) -> str:
    monkeypatch.setenv("KERNELLAB_TARGET", request.param)
    return request.param


def test_in_bounds_kernels_run_unchanged(host):
    x = np.arange(100, dtype=np.float32)
    o = np.zeros(100, np.float32)
    checked_copy[(4,)](x, o, 100, BLOCK=32)
    np.testing.assert_array_equal(o, x)


def test_an_out_of_bounds_load_names_the_argument_offset_and_line(host):
    x, o = np.ones(100, np.float32), np.zeros(128, np.float32)
    with pytest.raises(InterpreterError, match=r"out-of-bounds load .*'x_ptr'.*100.*test_checked_mode\.py:22"):
        checked_copy[(1,)](x, o, 128, BLOCK=128)


def test_an_out_of_bounds_store_is_refused(host):
    x, o = np.ones(128, np.float32), np.zeros(64, np.float32)
    with pytest.raises(InterpreterError, match=r"out-of-bounds store .*'o_ptr'.*64.*test_checked_mode\.py:22"):
        checked_copy[(1,)](x, o, 128, BLOCK=128)


def test_scalar_and_negative_offsets(host):
    x, o = np.ones(4, np.float32), np.zeros(1, np.float32)
    checked_scalar[(1,)](x, o, 3)
    for k in (4, -1):
        with pytest.raises(InterpreterError, match=r"out-of-bounds load .*'x_ptr'.*test_checked_mode\.py:27"):
            checked_scalar[(1,)](x, o, k)


def test_atomics_are_checked(host):
    o = np.zeros(8, np.int32)
    checked_atomic[(1,)](o, 8, BLOCK=16)
    assert o.tolist() == [1] * 8
    with pytest.raises(InterpreterError, match=r"out-of-bounds atomic add .*'o_ptr'"):
        checked_atomic[(1,)](o, 16, BLOCK=16)


def test_a_pointer_of_either_argument_is_checked_against_both(host):
    x, y, o = np.ones(8, np.float32), np.full(16, 2.0, np.float32), np.zeros(16, np.float32)
    checked_either[(1,)](x, y, o, 0, BLOCK=16)
    assert (o == 2.0).all()
    with pytest.raises(InterpreterError, match="out-of-bounds load"):
        checked_either[(1,)](x, y, o, 1, BLOCK=16)


def test_the_environment_switches_it_on(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    monkeypatch.setenv("KERNELLAB_DEBUG", "1")

    @kl.jit
    def plain_copy(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    with pytest.raises(InterpreterError, match="out-of-bounds load .*'x_ptr'"):
        plain_copy[(1,)](np.ones(8, np.float32), np.zeros(16, np.float32), 16, BLOCK=16)
