"""A tensor descriptor's shape and strides (``desc.shape``, ``desc.strides``), kept across loops,
branches and calls; row gathers and scatters (``desc.gather``, ``desc.scatter``); descriptors
and block pointers passed to and returned from non-inlined functions."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError


@kl.jit
def shape_of_desc(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    tl.static_assert(desc.block_shape == [BM, BN])
    tl.store(out + 0, desc.shape[0])
    tl.store(out + 1, desc.shape[1])
    tl.store(out + 2, desc.strides[0].to(tl.int32))
    tl.store(out + 3, desc.strides[1].to(tl.int32))


def test_shape_and_strides(launch) -> None:
    out = np.zeros(4, np.int32)
    launch(shape_of_desc, (1,), np.zeros((6, 40), np.float32), out, 6, 40, BM=2, BN=8)
    assert out.tolist() == [6, 40, 40, 1]


@kl.jit
def column_sums(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Sums each column block over the rows, with a descriptor that a loop swaps and a branch
    picks; the trip count comes from the descriptor's own shape."""
    desc = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    other = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    acc = tl.zeros([BM, BN], tl.float32)
    for i in range(0, tl.cdiv(desc.shape[0], BM)):
        acc += desc.load([i * BM, tl.program_id(0) * BN])
        desc, other = other, desc
    if tl.program_id(0) == 0:
        picked = desc
    else:
        picked = other
    tl.store(out + tl.program_id(0) * BN + tl.arange(0, BN), tl.sum(acc, 0) + picked.shape[1] * 0)


def test_shape_through_loops_and_branches(launch, inputs) -> None:
    src = inputs.normal((12, 16))
    out = np.zeros(16, np.float32)
    launch(column_sums, (2,), src, out, 12, 16, BM=4, BN=8)
    np.testing.assert_allclose(out, src.sum(0), rtol=1e-5)


@kl.jit
def _rows_of(desc):
    return desc.shape[0]


@kl.jit
def shape_in_callee(src, out, M, N, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(src, [M, N], [N, 1], [1, BN])
    tl.store(out, _rows_of(desc))


def test_shape_in_a_called_function(launch) -> None:
    out = np.zeros(1, np.int32)
    launch(shape_in_callee, (1,), np.zeros((5, 16), np.float32), out, 5, 16, BN=16)
    assert out[0] == 5


@kl.jit
def gather_scatter(src, rows_ptr, gathered, dst, M, N, Y, BX: tl.constexpr, BY: tl.constexpr):
    source = tl.make_tensor_descriptor(src, [M, N], [N, 1], [1, BY])
    rows = tl.load(rows_ptr + tl.arange(0, BX))
    block = source.gather(rows, Y)
    tl.store(gathered + tl.arange(0, BX)[:, None] * BY + tl.arange(0, BY)[None, :], block)
    target = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [1, BY])
    target.scatter(block * 2, rows, Y)


def test_gather_and_scatter(launch, inputs) -> None:
    m, n, y, bx, by = 16, 64, 40, 8, 32
    src = inputs.normal((m, n))
    rows = np.array([3, 0, 15, 16, 2, -1, 7, 9], np.int32)  # 16 and -1: outside the tensor
    gathered = np.full((bx, by), 7.0, np.float32)
    dst = np.zeros((m, n), np.float32)
    launch(gather_scatter, (1,), src, rows, gathered, dst, m, n, y, BX=bx, BY=by)
    want = np.zeros((bx, by), np.float32)
    want_dst = np.zeros((m, n), np.float32)
    for i, r in enumerate(rows):
        if 0 <= r < m:
            want[i, :n - y] = src[r, y:]
            want_dst[r, y:] = 2 * src[r, y:]
    np.testing.assert_array_equal(gathered, want)
    np.testing.assert_array_equal(dst, want_dst)


@kl.jit
def gather_two_rows(src, out, BY: tl.constexpr):
    desc = tl.make_tensor_descriptor(src, [4, BY], [BY, 1], [2, BY])
    tl.store(out + tl.arange(0, 8)[:, None] * BY + tl.arange(0, BY)[None, :], desc.gather(tl.arange(0, 8), 0))


@kl.jit
def gather_few_rows(src, out, BY: tl.constexpr):
    desc = tl.make_tensor_descriptor(src, [4, BY], [BY, 1], [1, BY])
    tl.store(out + tl.arange(0, 4)[:, None] * BY + tl.arange(0, BY)[None, :], desc.gather(tl.arange(0, 4), 0))


@pytest.mark.parametrize("kernel, message", [(gather_two_rows, "whose block has one row"),
                                             (gather_few_rows, "at least 8 rows")])
def test_gather_errors_point_at_the_line(host_target, kernel, message) -> None:
    with pytest.raises(CompilationError, match=message) as error:
        kernel[(1,)](np.zeros((4, 32), np.float32), np.zeros((8, 32), np.float32), BY=32)
    assert "desc.gather" in str(error.value)
    assert f"{kernel.fn.__code__.co_firstlineno + 3}" in str(error.value).split(":")[1]


@kl.jit(noinline=True)
def _make_desc(ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, [M, N], [N, 1], [BM, BN], padding_option=PAD)


@kl.jit(noinline=True)
def _copy_plus_rows(source, target, BM: tl.constexpr):
    block = source.load([tl.program_id(0) * BM, 2])
    target.store([tl.program_id(0) * BM, 0], block + source.shape[0])


@kl.jit
def noinline_descriptors(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    source = _make_desc(src, M, N, BM, BN, PAD)
    target = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BM, BN])
    _copy_plus_rows(source, target, BM)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_descriptors_cross_noinline_calls(host_target, inputs, padding) -> None:
    src = inputs.normal((4, 16))
    dst = np.zeros((4, 16), np.float32)
    noinline_descriptors[(2,)](src, dst, 4, 16, BM=2, BN=16, PAD=padding)
    np.testing.assert_allclose(dst[:, :14], src[:, 2:] + 4, rtol=1e-6)
    fill = np.isnan(dst[:, 14:]).all() if padding == "nan" else (dst[:, 14:] == 4).all()
    assert fill


@kl.jit(noinline=True)
def _load_block(block_ptr, out, BM: tl.constexpr, BN: tl.constexpr):
    tile = tl.load(block_ptr, boundary_check=(0, 1))
    tl.store(out + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], tile)


@kl.jit
def noinline_block_pointer(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    _load_block(tl.make_block_ptr(src, (M, N), (N, 1), (1, 8), (BM, BN), (1, 0)), out, BM, BN)


def test_block_pointers_cross_noinline_calls(host_target, inputs) -> None:
    src = inputs.normal((4, 16))
    out = np.full((4, 16), 5.0, np.float32)
    noinline_block_pointer[(1,)](src, out, 4, 16, BM=4, BN=16)
    want = np.zeros((4, 16), np.float32)
    want[:3, :8] = src[1:, 8:]
    np.testing.assert_array_equal(out, want)
