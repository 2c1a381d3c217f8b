"""Tile creation, shape manipulation and indexing builtins, end to end on every target."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl


@kl.jit
def creation(out_i, out_f, n, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    grid = rows[:, None] * N + cols[None, :]
    tl.store(out_i + grid, grid + tl.full((M, N), 100, tl.int32))
    tl.store(out_i + M * N + grid, tl.zeros((M, N), tl.int32) + tl.program_id(0) + tl.num_programs(0))
    tl.store(out_i + 2 * M * N + grid, tl.zeros_like(grid) + n)
    tl.store(out_f + grid, tl.full((M, N), n, tl.float16).to(tl.float32) / 4)


def test_creation(launch, inputs) -> None:
    out_i = inputs.poisoned((3, 4, 8), np.int32)
    out_f = inputs.poisoned((4, 8), np.float32)
    launch(creation, (1,), out_i, out_f, 7, M=4, N=8)
    np.testing.assert_array_equal(out_i[0], np.arange(32).reshape(4, 8) + 100)
    np.testing.assert_array_equal(out_i[1], np.ones((4, 8)))
    np.testing.assert_array_equal(out_i[2], np.full((4, 8), 7))
    np.testing.assert_array_equal(out_f, np.full((4, 8), 7 / 4, np.float32))


@kl.jit
def reshaping(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    grid = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + grid)  # M x N
    flat = tl.arange(0, M * N)
    tl.store(out_ptr + flat, tl.ravel(tl.trans(x)))
    tl.store(out_ptr + M * N + flat, tl.reshape(tl.permute(tl.reshape(x, 2, M // 2, N), 1, 2, 0), M * N))
    tl.store(out_ptr + 2 * M * N + flat, x.T.reshape(M * N))
    tl.store(out_ptr + 3 * M * N + flat, tl.reshape(tl.expand_dims(x, (0, 2)), M * N))
    tl.store(out_ptr + 4 * M * N + grid, tl.broadcast_to(tl.sum(x, 1, keep_dims=True), M, N))
    row, col = tl.broadcast(tl.arange(0, M)[:, None], tl.arange(0, N)[None, :])
    tl.store(out_ptr + 5 * M * N + grid, (row * 100 + col).to(tl.float32))
    tl.store(out_ptr + 6 * M * N + grid, tl.broadcast_to(tl.max(x, 0)[None, :], (M, N)))
    tl.store(out_ptr + 7 * M * N + flat, tl.sort(tl.view(x, M * N)))  # view may reorder: sorting hides the order


@pytest.mark.filterwarnings("ignore:tl.view is deprecated:DeprecationWarning")
def test_reshape_permute_broadcast(launch, inputs) -> None:
    x = inputs.normal((4, 8))
    out = inputs.poisoned((8, 32), np.float32)
    launch(reshaping, (1,), x, out, M=4, N=8)
    np.testing.assert_array_equal(out[0], x.T.ravel())
    np.testing.assert_array_equal(out[1], x.reshape(2, 2, 8).transpose(1, 2, 0).ravel())
    np.testing.assert_array_equal(out[2], x.T.ravel())
    np.testing.assert_array_equal(out[3], x.ravel())
    np.testing.assert_allclose(out[4].reshape(4, 8), np.broadcast_to(x.sum(1, keepdims=True), (4, 8)), rtol=1e-6)
    np.testing.assert_array_equal(out[5].reshape(4, 8), np.arange(4)[:, None] * 100 + np.arange(8)[None, :])
    np.testing.assert_array_equal(out[6].reshape(4, 8), np.broadcast_to(x.max(0), (4, 8)))
    np.testing.assert_array_equal(out[7], np.sort(x.ravel()))


@kl.jit
def join_split(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    pairs = tl.join(a, b)  # N x 2
    tl.store(out_ptr + offs[:, None] * 2 + tl.arange(0, 2)[None, :], pairs)
    left, right = tl.split(pairs)
    tl.store(out_ptr + 2 * N + offs, right - left)
    tl.store(out_ptr + 3 * N + tl.arange(0, 2 * N), tl.interleave(b, a))
    tl.store(out_ptr + 5 * N + tl.arange(0, 2 * N), tl.cat(a, b, can_reorder=False))
    first, second = tl.split(tl.join(tl.sum(a, 0), tl.max(b, 0)))
    tl.store(out_ptr + 7 * N, first)
    tl.store(out_ptr + 7 * N + 1, second)


def test_join_split_interleave_cat(launch, inputs) -> None:
    a = inputs.normal(16)
    b = inputs.normal(16)
    out = inputs.poisoned(7 * 16 + 2, np.float32)
    launch(join_split, (1,), a, b, out, N=16)
    np.testing.assert_array_equal(out[:32].reshape(16, 2), np.stack([a, b], 1))
    np.testing.assert_array_equal(out[32:48], b - a)
    np.testing.assert_array_equal(out[48:80], np.stack([b, a], 1).ravel())
    np.testing.assert_array_equal(out[80:112], np.concatenate([a, b]))
    np.testing.assert_allclose(out[112], a.sum(), rtol=1e-5)
    assert out[113] == b.max()


@kl.jit
def indexing(x_ptr, idx_ptr, out_ptr, out_i, M: tl.constexpr, N: tl.constexpr):
    grid = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + grid)
    idx = tl.load(idx_ptr + grid)
    tl.store(out_ptr + grid, tl.gather(x, idx, 1))
    tl.store(out_ptr + M * N + grid, tl.flip(x))
    tl.store(out_ptr + 2 * M * N + grid, tl.flip(x, 0))
    tl.store(out_ptr + 3 * M * N + grid, tl.where(x > 0, x, -1.0))
    new_i, new_j = tl.swizzle2d(tl.arange(0, M)[:, None], tl.arange(0, N)[None, :], M, N, 3)
    tl.store(out_i + grid, new_i * N + new_j)


def test_gather_flip_where_swizzle(launch, inputs) -> None:
    x = inputs.normal((4, 8))
    idx = inputs.rng.integers(0, 8, (4, 8)).astype(np.int32)
    out = inputs.poisoned((4, 4, 8), np.float32)
    out_i = inputs.poisoned((4, 8), np.int32)
    launch(indexing, (1,), x, idx, out, out_i, M=4, N=8)
    np.testing.assert_array_equal(out[0], np.take_along_axis(x, idx, 1))
    np.testing.assert_array_equal(out[1], x[:, ::-1])
    np.testing.assert_array_equal(out[2], x[::-1])
    np.testing.assert_array_equal(out[3], np.where(x > 0, x, -1))
    # groups of 3 rows, column-major inside a group; the last group has one row
    i, j = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    linear = i * 8 + j
    group, within = linear // 24, linear % 24
    rows = np.minimum(4 - group * 3, 3)
    np.testing.assert_array_equal(out_i, (group * 3 + within % rows) * 8 + within // rows)


@kl.jit
def scalar_index(x_ptr, out_ptr, S0, S1, N: tl.constexpr):
    # torchao's blockwise-fp8 kernels index program ids like tiles: pid[:, None] is a [1] tile (Triton)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs = pid_n[:, None] * S0 + pid_m[None, :] * S1  # [1]
    mask = (pid_n[:, None] < 2) & (pid_m[None, :] < 3)
    x = tl.load(x_ptr + pid_m * N + tl.arange(0, N))
    tl.store(out_ptr + offs, tl.sum(x[:, :]) + tl.zeros_like(offs).to(tl.float32), mask=mask)


def test_a_scalar_indexed_with_slices_and_none_is_a_one_element_tile(launch, inputs) -> None:
    x = inputs.normal((3, 8))
    out = inputs.poisoned((2, 3), np.float32)
    launch(scalar_index, (3, 2), x, out, 3, 1, N=8)
    np.testing.assert_allclose(out, np.broadcast_to(x.sum(1), (2, 3)), rtol=1e-5)
