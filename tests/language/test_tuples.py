"""Tuples in kernels, end to end on every target: tuple arguments iterated and indexed, tuples
and NamedTuples returned from and passed to jit helpers (inlined and noinline), carried by
loops and merged after run-time ``if``s, built by comprehensions; against numpy on fresh
random inputs, outputs poisoned with NaN."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl


class Moments(NamedTuple):
    total: object
    squares: object


@kl.jit
def moments(x):
    return Moments(tl.sum(x, axis=0), tl.sum(x * x, axis=0))


@kl.jit(noinline=True)
def combine(a, b):
    return Moments(a.total + b.total, a.squares + b.squares), a.total - b.total


@kl.jit
def moments_kernel(Xs, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = Moments(0.0, 0.0)
    for start in range(0, n, BLOCK):  # a NamedTuple carried by a loop
        mask = start + offs < n
        parts = [moments(tl.load(x + start + offs, mask=mask, other=0.0)) for x in Xs]
        step, diff = combine(parts[0], parts[1])
        acc = Moments(acc.total + step.total, acc.squares + step.squares)
        if diff > 0:  # a tuple merged after a run-time if
            acc = Moments(acc.total, acc.squares + 0.0)
    tl.store(out_ptr, acc.total)
    tl.store(out_ptr + 1, acc.squares)


def test_namedtuples_through_helpers_loops_and_ifs(launch, inputs):
    n = 1000
    x, y = inputs.normal(n), inputs.normal(n)
    out = inputs.poisoned(2)
    launch(moments_kernel, (1,), (x, y), out, n, BLOCK=256)
    np.testing.assert_allclose(out, [x.sum() + y.sum(), (x * x).sum() + (y * y).sum()], rtol=1e-4)


@kl.jit
def swap_and_scale(pair, factor):
    return pair[1] * factor, pair[0] * factor


@kl.jit
def zip_kernel(Ins, Outs, factors, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    for src, dst, f in zip(Ins, Outs, factors):
        tl.store(dst + offs, tl.load(src + offs, mask=mask) * f, mask=mask)
    first, second = swap_and_scale((tl.load(Ins[0] + offs, mask=mask), tl.load(Ins[1] + offs, mask=mask)), 2)
    tl.store(Outs[2] + offs, first - second, mask=mask)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_iterating_tuple_arguments(launch, inputs, dtype):
    n = 500
    x, y = inputs.normal(n, dtype), inputs.normal(n, dtype)
    outs = (inputs.poisoned(n, dtype), inputs.poisoned(n, dtype), inputs.poisoned(n, dtype))
    launch(zip_kernel, (kl.cdiv(n, 128),), (x, y), outs, (3, 0.5), n, BLOCK=128)
    tolerance = 1e-6 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(outs[0], x * 3, rtol=tolerance)
    np.testing.assert_allclose(outs[1], (y * dtype(0.5)).astype(dtype), rtol=tolerance)
    np.testing.assert_allclose(outs[2], (y * 2 - x * 2).astype(dtype), rtol=tolerance, atol=tolerance)


@kl.jit
def strided_rows(X, shape: tl.constexpr, strides, out_ptr):
    rows = tl.arange(0, shape[0])[:, None] * strides[0]
    cols = tl.arange(0, shape[1])[None, :] * strides[1]
    tl.store(out_ptr + tl.arange(0, shape[0]), tl.sum(tl.load(X + rows + cols), axis=1))


@pytest.mark.parametrize("transpose", [False, True])
def test_shapes_and_strides_as_tuples(launch, inputs, transpose):
    x = inputs.normal((16, 8))
    # transposed: x's elements stored column-major, as a contiguous array of x.T (what a device
    # copy keeps: kl.to_device makes contiguous arrays), read with strides (1, 16)
    memory = x.T.copy() if transpose else x
    strides = (1, 16) if transpose else (8, 1)
    out = inputs.poisoned(16)
    launch(strided_rows, (1,), memory, x.shape, strides, out)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5)
