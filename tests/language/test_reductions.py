"""Reductions, scans, sorting, histograms and softmax, end to end on every target."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

M, N = 8, 16


@kl.jit
def float_reductions(x_ptr, out_ptr, AXIS: tl.constexpr, M: tl.constexpr, N: tl.constexpr, R: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    offs = tl.arange(0, R)
    tl.store(out_ptr + offs, tl.sum(x, AXIS))
    tl.store(out_ptr + R + offs, tl.max(x, AXIS))
    tl.store(out_ptr + 2 * R + offs, tl.min(x, axis=AXIS))
    tl.store(out_ptr + 3 * R + offs, tl.argmax(x, AXIS).to(tl.float32))
    tl.store(out_ptr + 4 * R + offs, tl.argmin(x, AXIS).to(tl.float32))
    tl.store(out_ptr + 5 * R + offs, tl.reshape(tl.sum(x, AXIS, keep_dims=True), R))
    tl.store(out_ptr + 6 * R + offs, x.max(AXIS, return_indices=True)[0])
    tl.store(out_ptr + 7 * R, tl.sum(x))
    tl.store(out_ptr + 7 * R + 1, tl.max(x, None))
    tl.store(out_ptr + 7 * R + 2, tl.argmax(tl.ravel(x), 0).to(tl.float32))


@pytest.mark.parametrize("axis", [0, 1])
def test_float_reductions(launch, inputs, axis: int, target: str) -> None:
    x = inputs.normal((M, N))
    x[3, :] = x[2, :]  # ties: argmax/argmin pick the left-most
    x[:, 5] = x[:, 1]
    r = N if axis == 0 else M
    out = inputs.poisoned(7 * r + 3, np.float32)
    launch(float_reductions, (1,), x, out, AXIS=axis, M=M, N=N, R=r)
    rows = out[:7 * r].reshape(7, r)
    np.testing.assert_allclose(rows[0], x.sum(axis), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rows[1], x.max(axis))
    np.testing.assert_array_equal(rows[2], x.min(axis))
    np.testing.assert_array_equal(rows[3], np.argmax(x, axis))
    np.testing.assert_array_equal(rows[4], np.argmin(x, axis))
    np.testing.assert_allclose(rows[5], x.sum(axis), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rows[6], x.max(axis))
    np.testing.assert_allclose(out[7 * r], x.sum(), rtol=1e-5)
    assert out[7 * r + 1] == x.max() and out[7 * r + 2] == np.argmax(x.ravel())


@kl.jit
def integer_reductions(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))  # int8
    tl.store(out_ptr, tl.sum(x))  # accumulates in int32
    tl.store(out_ptr + 1, tl.sum(x, dtype=tl.int8))  # wraps in int8
    tl.store(out_ptr + 2, tl.xor_sum(x, 0))
    tl.store(out_ptr + 3, tl.reduce_or(x, 0))
    tl.store(out_ptr + 4, tl.max(x.to(tl.uint8), 0))
    tl.store(out_ptr + 5, tl.sum(x > 0, 0))
    tl.store(out_ptr + 6, tl.min(x, 0))


def test_integer_reductions(launch, inputs) -> None:
    x = inputs.integers(64, -128, 128, np.int8)
    out = inputs.poisoned(7, np.int64)
    launch(integer_reductions, (1,), x, out, N=64)
    assert out[0] == x.astype(np.int64).sum()
    assert out[1] == x.sum(dtype=np.int8)
    assert out[2] == np.bitwise_xor.reduce(x) and out[3] == np.bitwise_or.reduce(x)
    assert out[4] == x.view(np.uint8).max() and out[5] == (x > 0).sum() and out[6] == x.min()


@kl.jit
def _add_combine(a, b):
    return a + b


@kl.jit
def _argmax_combine(value1, index1, value2, index2):
    better = value1 > value2
    return tl.where(better, value1, value2), tl.where(better, index1, index2)


@kl.jit
def _linear_combine(a1, b1, a2, b2):  # composes x -> a * x + b maps: an associative, non-commutative scan
    return a2 * a1, a2 * b1 + b2


@kl.jit
def user_combines(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.reduce(x, 0, _add_combine))
    value, index = tl.reduce((x, offs), 0, _argmax_combine)
    tl.store(out_ptr + 1, value)
    tl.store(out_ptr + 2, index.to(tl.float32))
    tl.store(out_ptr + 3 + offs, tl.associative_scan(x, 0, _add_combine))
    tl.store(out_ptr + 3 + N + offs, x.associative_scan(0, _add_combine, reverse=True))
    scale, shift = tl.associative_scan((x * 0 + 0.5, x), 0, _linear_combine)
    tl.store(out_ptr + 3 + 2 * N + offs, shift)


def test_user_combine_functions(launch, inputs) -> None:
    x = inputs.normal(16)
    out = inputs.poisoned(3 + 3 * 16, np.float32)
    launch(user_combines, (1,), x, out, N=16)
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-5)
    assert out[1] == x.max() and out[2] == np.argmax(x)
    np.testing.assert_allclose(out[3:19], np.cumsum(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[19:35], np.cumsum(x[::-1])[::-1], rtol=1e-5, atol=1e-6)
    running = np.zeros(16, np.float32)  # y_i = 0.5 * y_{i-1} + x_i
    for i in range(16):
        running[i] = (running[i - 1] * 0.5 if i else 0) + x[i]
    np.testing.assert_allclose(out[35:], running, rtol=1e-5, atol=1e-6)


@kl.jit
def scans(x_ptr, i_ptr, out_ptr, out_i, M: tl.constexpr, N: tl.constexpr):
    grid = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + grid)
    small = tl.load(i_ptr + grid)  # int8
    tl.store(out_ptr + grid, tl.cumsum(x, 1))
    tl.store(out_ptr + M * N + grid, tl.cumsum(x, 0, reverse=True))
    tl.store(out_ptr + 2 * M * N + grid, tl.cumprod(x, 1))
    tl.store(out_i + grid, tl.cumsum(small, 1))  # int32 accumulation
    tl.store(out_i + M * N + grid, (small > 0).cumsum(0))  # bools count in uint32


def test_scans(launch, inputs) -> None:
    x = inputs.uniform((4, 8), 0.5, 1.5)
    small = inputs.integers((4, 8), -100, 100, np.int8)
    out = inputs.poisoned((3, 4, 8), np.float32)
    out_i = inputs.poisoned((2, 4, 8), np.int32)
    launch(scans, (1,), x, small, out, out_i, M=4, N=8)
    np.testing.assert_allclose(out[0], np.cumsum(x, 1), rtol=1e-5)
    np.testing.assert_allclose(out[1], np.cumsum(x[::-1], 0)[::-1], rtol=1e-5)
    np.testing.assert_allclose(out[2], np.cumprod(x, 1), rtol=1e-5)
    np.testing.assert_array_equal(out_i[0], np.cumsum(small.astype(np.int32), 1))
    np.testing.assert_array_equal(out_i[1], np.cumsum(small > 0, 0))


@kl.jit
def sort_and_histogram(x_ptr, v_ptr, out_ptr, hist_ptr, M: tl.constexpr, N: tl.constexpr, BINS: tl.constexpr):
    grid = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + grid)
    tl.store(out_ptr + grid, tl.sort(x))
    tl.store(out_ptr + M * N + grid, tl.sort(x, descending=True))
    v = tl.load(v_ptr + tl.arange(0, M * N))
    tl.store(hist_ptr + tl.arange(0, BINS), tl.histogram(v, BINS))
    tl.store(hist_ptr + BINS + tl.arange(0, BINS), tl.histogram(v, BINS, mask=tl.arange(0, M * N) % 2 == 0))


def test_sort_and_histogram(launch, inputs) -> None:
    x = inputs.normal((4, 16))
    v = inputs.rng.integers(-3, 20, 64).astype(np.int32)
    out = inputs.poisoned((2, 4, 16), np.float32)
    hist = inputs.poisoned((2, 16), np.int32)
    launch(sort_and_histogram, (1,), x, v, out, hist, M=4, N=16, BINS=16)
    np.testing.assert_array_equal(out[0], np.sort(x, 1))
    np.testing.assert_array_equal(out[1], np.sort(x, 1)[:, ::-1])
    keep = (v >= 0) & (v < 16)
    np.testing.assert_array_equal(hist[0], np.bincount(v[keep], minlength=16))
    even = keep & (np.arange(64) % 2 == 0)
    np.testing.assert_array_equal(hist[1], np.bincount(v[even], minlength=16))


@kl.jit
def softmax_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    grid = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + grid)
    tl.store(out_ptr + grid, tl.softmax(x, dim=1, keep_dims=True))
    tl.store(out_ptr + M * N + grid, tl.softmax(x))


def test_softmax(launch, inputs) -> None:
    x = inputs.normal((8, 16)) * np.float32(3)
    out = inputs.poisoned((2, 8, 16), np.float32)
    launch(softmax_rows, (1,), x, out, M=8, N=16)
    for axis, value in ((1, out[0]), (0, out[1])):
        e = np.exp(x - x.max(axis, keepdims=True))
        np.testing.assert_allclose(value, e / e.sum(axis, keepdims=True), rtol=1e-5, atol=1e-7)


@kl.jit
def half_sums(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, BF16: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if BF16:
        x = x.to(tl.bfloat16)
    else:
        x = x.to(tl.float16)
    tl.store(out_ptr, tl.sum(x).to(tl.float32))  # the whole tile, in the narrow type (as Triton's tl.sum)
    tl.store(out_ptr + 1 + tl.arange(0, M), tl.sum(x, 1).to(tl.float32))
    tl.store(out_ptr + 1 + M + tl.arange(0, N), tl.sum(x, 0).to(tl.float32))  # along the leading axis


@pytest.mark.parametrize("bf16", [False, True])
def test_a_narrow_float_sum_keeps_its_digits(launch, inputs, bf16: bool) -> None:
    # fla's mesa_net backward sums a 64x64 fp16 tile (tl.sum(b_h * b_dh)): one running fp16 accumulator
    # on the CPU target lost 3% of it; a tree order, as a GPU's and numpy's, stays within a few roundings
    m, n = 256, 64  # long columns too: one running accumulator per column drifts by many roundings
    x = np.abs(inputs.uniform((m, n))).astype(np.float32) + 0.25  # positive: the sum grows along the tile
    narrow = x.astype(np.float16).astype(np.float32) if not bf16 else x
    out = inputs.poisoned(1 + m + n, np.float32)
    launch(half_sums, (1,), x, out, M=m, N=n, BF16=bf16)
    spacing = 2.0 ** (-10 if not bf16 else -7)  # relative spacing of the narrow type
    exact = narrow.astype(np.float64).sum()
    assert abs(out[0] - exact) <= 8 * spacing * exact, (out[0], exact)
    rows = narrow.astype(np.float64).sum(1)
    np.testing.assert_allclose(out[1:1 + m], rows, rtol=6 * spacing)
    np.testing.assert_allclose(out[1 + m:], narrow.astype(np.float64).sum(0), rtol=8 * spacing)


@kl.jit
def ones_sums(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    ones = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]).to(tl.float16)
    tl.store(out_ptr + tl.arange(0, N), tl.sum(ones, 0).to(tl.float32))  # along the leading axis
    tl.store(out_ptr + N + tl.arange(0, N), tl.sum(tl.trans(ones), 1).to(tl.float32))  # along the last


def test_a_long_fp16_sum_of_ones_is_exact(launch, inputs) -> None:
    # one running fp16 accumulator stops at 2048 (2048 + 1 rounds back to 2048); a tree order, as a GPU's,
    # only adds partial sums that fp16 holds exactly
    m, n = 4096, 2
    out = inputs.poisoned(2 * n, np.float32)
    launch(ones_sums, (1,), np.ones((m, n), np.float32), out, M=m, N=n)
    np.testing.assert_array_equal(out, np.full(2 * n, 4096.0, np.float32))
