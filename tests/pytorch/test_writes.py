"""Which pointer arguments a kernel writes, from its Tile IR (kernellab/torch/writes.py)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import kernellab as kl  # noqa: E402
import kernellab.language as tl  # noqa: E402
import kernellab.torch as klt  # noqa: E402


@kl.jit
def gather_scatter(src_ptr, idx_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    tl.store(dst_ptr + idx, tl.load(src_ptr + offs, mask=m), mask=m)


@kl.jit
def histogram(values_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(values_ptr + offs, mask=m, other=0)
    tl.atomic_add(counts_ptr + v, 1, mask=m)


@kl.jit
def maybe_stats(x_ptr, out_ptr, stats_ptr, n, WRITE_STATS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, x * 2, mask=m)
    if WRITE_STATS:
        tl.store(stats_ptr, tl.sum(x, axis=0))


@kl.jit
def walk_rows(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    src = x_ptr + tl.arange(0, BLOCK)
    dst = y_ptr + tl.arange(0, BLOCK)
    m = tl.arange(0, BLOCK) < cols
    for _ in range(rows):  # loop-carried pointers
        tl.store(dst, tl.load(src, mask=m), mask=m)
        src += cols
        dst += cols


@kl.jit
def copy_block(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    dst = tl.make_block_ptr(y_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    tl.store(dst, tl.load(src, boundary_check=(0,)), boundary_check=(0,))


@kl.jit(noinline=True)
def _store_twice(p, value):
    tl.store(p, value)


@kl.jit
def through_a_call(a_ptr, b_ptr, c_ptr):
    _store_twice(b_ptr, tl.load(a_ptr) + tl.load(c_ptr))


@kl.jit
def in_place_scale(x_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) * factor, mask=m)


F32 = torch.float32


def test_an_index_array_read_for_the_address_is_not_written():
    src, idx, dst = torch.empty(8), torch.empty(8, dtype=torch.int32), torch.empty(8)
    assert klt.written_arguments(gather_scatter, src, idx, dst, 8, BLOCK=8) == ("dst_ptr",)


def test_atomics_write():
    values, counts = torch.empty(8, dtype=torch.int32), torch.empty(4, dtype=torch.int32)
    assert klt.written_arguments(histogram, values, counts, 8, BLOCK=8) == ("counts_ptr",)


@pytest.mark.parametrize("stats", [False, True])
def test_constexpr_branches_decide(stats):
    x, out, s = torch.empty(8), torch.empty(8), torch.empty(1)
    expected = ("out_ptr", "stats_ptr") if stats else ("out_ptr",)
    assert klt.written_arguments(maybe_stats, x, out, s, 8, WRITE_STATS=stats, BLOCK=8) == expected


def test_loop_carried_pointers():
    assert klt.written_arguments(walk_rows, torch.empty(8), torch.empty(8), 2, 4, BLOCK=4) == ("y_ptr",)


def test_block_pointers():
    assert klt.written_arguments(copy_block, torch.empty(8), torch.empty(8), 8, BLOCK=8) == ("y_ptr",)


def test_through_a_noinline_call():
    a, b, c = torch.empty(1), torch.empty(1), torch.empty(1)
    assert klt.written_arguments(through_a_call, a, b, c) == ("b_ptr",)


def test_in_place():
    assert klt.written_arguments(in_place_scale, torch.empty(8), 8, 2.0, BLOCK=8) == ("x_ptr",)
