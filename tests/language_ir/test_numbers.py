"""The numbers builtins compute: straight-line IR evaluated through the op references, compared
with numpy on fresh random inputs."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab.language as tl
from kernellab.ir import types as T

from .harness import kernel


def _load(ptr, n: int, cols: int | None = None):
    if cols is None:
        return tl.load(ptr + tl.arange(0, n))
    return tl.load(ptr + tl.arange(0, n)[:, None] * cols + tl.arange(0, cols)[None, :])


# ---- indexing helpers from Triton's standard library --------------------------------------------

def test_swizzle2d_matches_triton_docstring_example() -> None:
    with kernel() as k:
        i, j = tl.arange(0, 4)[:, None], tl.arange(0, 4)[None, :]
        new_i, new_j = tl.swizzle2d(i, j, 4, 4, 2)
    new_i, new_j = k.run(results=[new_i, new_j])
    placed = np.zeros((4, 4), dtype=np.int64)
    placed[new_i, new_j] = np.arange(16).reshape(4, 4)  # where each linear index lands
    np.testing.assert_array_equal(placed, [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]])


def test_swizzle2d_is_a_permutation_with_a_short_last_group() -> None:
    with kernel(T.i32) as k:
        i, j = tl.arange(0, 8)[:, None], tl.arange(0, 4)[None, :]
        new_i, new_j = tl.swizzle2d(i, j, k.args[0], 4, 3)  # 8 rows in groups of 3: the last has 2
    new_i, new_j = k.run(8, results=[new_i, new_j])
    assert sorted(zip(new_i.ravel().tolist(), new_j.ravel().tolist())) == [(a, b) for a in range(8) for b in range(4)]
    assert new_i[0].tolist() == [0, 1, 2, 0]  # column-major within the first group of 3 rows


def test_cdiv(rng) -> None:
    a = rng.integers(1, 10_000, 16).astype(np.int32)
    with kernel(T.pointer(T.i32), T.i32) as k:
        result = tl.cdiv(_load(k.args[0], 16), k.args[1])
        method = _load(k.args[0], 16).cdiv(7)
    address = k.memory.put(a)
    got, got_method = k.run(address, 64, results=[result, method])
    np.testing.assert_array_equal(got, -(-a // 64))
    np.testing.assert_array_equal(got_method, -(-a // 7))


# ---- arithmetic ---------------------------------------------------------------------------------

def test_integer_division_and_remainder_truncate_toward_zero(rng) -> None:
    a = rng.integers(-1000, 1000, 32).astype(np.int32)
    b = rng.integers(1, 50, 32).astype(np.int32) * rng.choice([-1, 1], 32).astype(np.int32)
    with kernel(T.pointer(T.i32), T.pointer(T.i32)) as k:
        x, y = _load(k.args[0], 32), _load(k.args[1], 32)
        results = [x // y, x % y, x / y, x.to(tl.float32) % y.to(tl.float32)]
    got = k.run(k.memory.put(a), k.memory.put(b), results=results)
    np.testing.assert_array_equal(got[0], np.trunc(a / b).astype(np.int32))
    np.testing.assert_array_equal(got[1], np.fmod(a, b))
    np.testing.assert_allclose(got[2], a.astype(np.float32) / b.astype(np.float32))
    np.testing.assert_array_equal(got[3], np.fmod(a.astype(np.float32), b.astype(np.float32)))


def test_shifts_follow_the_left_operand_signedness(rng) -> None:
    a = rng.integers(-128, 128, 16).astype(np.int8)
    with kernel(T.pointer(T.i8), T.u32) as k:
        x = _load(k.args[0], 16)
        signed_shift = x >> 2
        unsigned_shift = x.to(tl.uint8) >> 2
        mixed = x >> k.args[1]  # promoted to uint32, still an arithmetic shift (x is signed)
        left = x << 3
    got = k.run(k.memory.put(a), 3, results=[signed_shift, unsigned_shift, mixed, left])
    np.testing.assert_array_equal(got[0], a >> 2)
    np.testing.assert_array_equal(got[1], a.view(np.uint8) >> 2)
    assert mixed.dtype is tl.uint32
    np.testing.assert_array_equal(got[2], (a.astype(np.int32) >> 3).view(np.uint32))
    np.testing.assert_array_equal(got[3], (a.astype(np.int32) << 3).astype(np.int8))


def test_umulhi(rng) -> None:
    a = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    with kernel(T.pointer(T.u32), T.pointer(T.u32)) as k:
        result = tl.umulhi(_load(k.args[0], 16), _load(k.args[1], 16))
    got = k.run(k.memory.put(a), k.memory.put(b), results=result)
    np.testing.assert_array_equal(got, ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32))


def test_minimum_maximum_and_clamp_nan_handling(rng) -> None:
    a = rng.standard_normal(8).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    a[1] = np.nan
    with kernel(T.pointer(T.f32), T.pointer(T.f32)) as k:
        x, y = _load(k.args[0], 8), _load(k.args[1], 8)
        results = [tl.minimum(x, y), tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL), tl.clamp(x, -0.5, 0.5),
                   tl.clamp(x, -0.5, 0.5, propagate_nan=tl.PropagateNan.ALL)]
    got = k.run(k.memory.put(a), k.memory.put(b), results=results)
    np.testing.assert_array_equal(got[0], np.fmin(a, b))
    np.testing.assert_array_equal(got[1], np.maximum(a, b))
    assert not np.isnan(got[2][1]) and np.isnan(got[3][1])
    np.testing.assert_array_equal(np.delete(got[3], 1), np.clip(np.delete(a, 1), -0.5, 0.5))


def test_math_functions(rng) -> None:
    a = rng.uniform(0.1, 4.0, 16).astype(np.float32)
    with kernel(T.pointer(T.f32)) as k:
        x = _load(k.args[0], 16)
        results = {"exp": tl.exp(x), "log2": tl.log2(x), "rsqrt": tl.rsqrt(x), "sigmoid": tl.sigmoid(x),
                   "fma": tl.fma(x, x, 1.0), "floor": tl.floor(x), "ceil": tl.ceil(x), "div_rn": tl.div_rn(x, 3.0)}
    got = dict(zip(results, k.run(k.memory.put(a), results=list(results.values()))))
    np.testing.assert_allclose(got["exp"], np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(got["log2"], np.log2(a), rtol=1e-6)
    np.testing.assert_allclose(got["rsqrt"], 1 / np.sqrt(a), rtol=1e-6)
    np.testing.assert_allclose(got["sigmoid"], 1 / (1 + np.exp(-a)), rtol=1e-6)
    np.testing.assert_allclose(got["fma"], a * a + 1, rtol=1e-6)
    np.testing.assert_array_equal(got["floor"], np.floor(a))
    np.testing.assert_array_equal(got["ceil"], np.ceil(a))
    np.testing.assert_allclose(got["div_rn"], a / np.float32(3), rtol=1e-7)


def test_casts(rng) -> None:
    a = (rng.standard_normal(16) * 100).astype(np.float32)
    with kernel(T.pointer(T.f32)) as k:
        x = _load(k.args[0], 16)
        results = [x.to(tl.int8), x.to(tl.float16, fp_downcast_rounding="rtz"), x.to(tl.int1),
                   x.to(tl.int32, bitcast=True), tl.cast(x, tl.bfloat16)]
    got = k.run(k.memory.put(a), results=results)
    np.testing.assert_array_equal(got[0], np.clip(np.trunc(a), -128, 127).astype(np.int8))  # saturating
    toward_zero = got[1].astype(np.float32)
    assert np.all(np.abs(toward_zero) <= np.abs(a)) and np.all(np.abs(a - toward_zero) < np.abs(a) * 2**-9)
    np.testing.assert_array_equal(got[2], a != 0)
    np.testing.assert_array_equal(got[3], a.view(np.int32))
    np.testing.assert_allclose(got[4].astype(np.float32), a, rtol=2**-8)


# ---- reductions and scans -----------------------------------------------------------------------

def test_sum_of_small_integers_accumulates_in_int32(rng) -> None:
    a = rng.integers(60, 127, (4, 8)).astype(np.int8)
    with kernel(T.pointer(T.i8)) as k:
        x = _load(k.args[0], 4, 8)
        results = [tl.sum(x, 1), tl.sum(x), tl.sum(x, 0, keep_dims=True), tl.max(x.to(tl.uint8), 1),
                   tl.xor_sum(x, 1), tl.reduce_or(x, 0), tl.min(x, None)]
    got = k.run(k.memory.put(a), results=results)
    np.testing.assert_array_equal(got[0], a.sum(1, dtype=np.int32))
    assert got[1] == a.sum(dtype=np.int32) and got[1].dtype == np.int32
    np.testing.assert_array_equal(got[2], a.sum(0, dtype=np.int32, keepdims=True))
    np.testing.assert_array_equal(got[3], a.view(np.uint8).max(1).astype(np.int32))
    np.testing.assert_array_equal(got[4], np.bitwise_xor.reduce(a, axis=1))
    np.testing.assert_array_equal(got[5], np.bitwise_or.reduce(a, axis=0))
    assert got[6] == a.min()


def test_argmax_and_argmin_break_ties_to_the_left(rng) -> None:
    a = rng.integers(0, 4, (8, 16)).astype(np.float32)  # many ties
    with kernel(T.pointer(T.f32)) as k:
        x = _load(k.args[0], 8, 16)
        results = [tl.argmax(x, 1), tl.argmin(x, 1), tl.argmax(x, 0), tl.max(x, 1, return_indices=True)[0],
                   tl.argmin(x, 1, keep_dims=True)]
    got = k.run(k.memory.put(a), results=results)
    np.testing.assert_array_equal(got[0], np.argmax(a, 1))
    np.testing.assert_array_equal(got[1], np.argmin(a, 1))
    np.testing.assert_array_equal(got[2], np.argmax(a, 0))
    np.testing.assert_array_equal(got[3], a.max(1))
    np.testing.assert_array_equal(got[4], np.argmin(a, 1)[:, None])


def test_softmax(rng) -> None:
    a = rng.standard_normal((4, 8)).astype(np.float32)
    with kernel(T.pointer(T.f32)) as k:
        x = _load(k.args[0], 4, 8)
        along_0 = tl.softmax(x)
        along_1 = tl.softmax(x, dim=1, keep_dims=True)
    got = k.run(k.memory.put(a), results=[along_0, along_1])
    for axis, value in ((0, got[0]), (1, got[1])):
        e = np.exp(a - a.max(axis, keepdims=True))
        np.testing.assert_allclose(value, e / e.sum(axis, keepdims=True), rtol=1e-6)


def test_scans(rng) -> None:
    a = rng.integers(-20, 20, (4, 8)).astype(np.int16)
    f = rng.uniform(0.5, 1.5, 8).astype(np.float32)
    with kernel(T.pointer(T.i16), T.pointer(T.f32)) as k:
        x = _load(k.args[0], 4, 8)
        y = _load(k.args[1], 8)
        results = [tl.cumsum(x, 1), tl.cumsum(x, 0, reverse=True), tl.cumprod(y), tl.cumprod(y, reverse=True)]
    got = k.run(k.memory.put(a), k.memory.put(f), results=results)
    assert results[0].dtype is tl.int32
    np.testing.assert_array_equal(got[0], np.cumsum(a, 1, dtype=np.int32))
    np.testing.assert_array_equal(got[1], np.cumsum(a[::-1], 0, dtype=np.int32)[::-1])
    np.testing.assert_allclose(got[2], np.cumprod(f), rtol=1e-6)
    np.testing.assert_allclose(got[3], np.cumprod(f[::-1])[::-1], rtol=1e-6)


def test_sort_flip_histogram_gather(rng) -> None:
    a = rng.standard_normal((4, 8)).astype(np.float32)
    values = rng.integers(-2, 10, 32).astype(np.int32)
    index = rng.integers(0, 8, (4, 3)).astype(np.int32)
    index = np.concatenate([index, index[:, :1]], axis=1)
    with kernel(T.pointer(T.f32), T.pointer(T.i32), T.pointer(T.i32)) as k:
        x = _load(k.args[0], 4, 8)
        v = _load(k.args[1], 32)
        idx = _load(k.args[2], 4, 4)
        results = [tl.sort(x), tl.sort(x, descending=True), tl.flip(x), tl.flip(x, 0), tl.histogram(v, 8),
                   tl.histogram(v, 8, mask=tl.arange(0, 32) < 16), tl.gather(x, idx, 1)]
    got = k.run(k.memory.put(a), k.memory.put(values), k.memory.put(index), results=results)
    np.testing.assert_array_equal(got[0], np.sort(a, 1))
    np.testing.assert_array_equal(got[1], -np.sort(-a, 1))
    np.testing.assert_array_equal(got[2], a[:, ::-1])
    np.testing.assert_array_equal(got[3], a[::-1])
    in_range = values[(values >= 0) & (values < 8)]
    np.testing.assert_array_equal(got[4], np.bincount(in_range, minlength=8))
    first = values[:16]
    np.testing.assert_array_equal(got[5], np.bincount(first[(first >= 0) & (first < 8)], minlength=8))
    np.testing.assert_array_equal(got[6], np.take_along_axis(a, index, 1))


# ---- shapes -------------------------------------------------------------------------------------

def test_shape_builtins(rng) -> None:
    a = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    with kernel(T.pointer(T.f32), T.pointer(T.f32)) as k:
        x, y = _load(k.args[0], 16), _load(k.args[1], 16)
        m = tl.reshape(x, 2, 8)
        left, right = tl.split(tl.join(x, y))
        results = [m, tl.permute(tl.reshape(x, 2, 4, 2), 2, 0, 1), m.T, tl.expand_dims(x, (0, 2)),
                   tl.broadcast_to(m[:, None, :], 2, 4, 8), tl.join(x, y), left, right, tl.interleave(x, y),
                   tl.cat(x, y), tl.ravel(m.T), tl.where(x > 0, x, y), tl.where(x[:, None] > y[None, :], 1.0, 0.0)]
    got = k.run(k.memory.put(a), k.memory.put(b), results=results)
    expected = [a.reshape(2, 8), a.reshape(2, 4, 2).transpose(2, 0, 1), a.reshape(2, 8).T, a[None, :, None],
                np.broadcast_to(a.reshape(2, 8)[:, None, :], (2, 4, 8)), np.stack([a, b], -1), a, b,
                np.stack([a, b], -1).reshape(32), np.concatenate([a, b]), a.reshape(2, 8).T.reshape(16),
                np.where(a > 0, a, b), (a[:, None] > b[None, :]).astype(np.float32)]
    for got_value, want in zip(got, expected):
        np.testing.assert_array_equal(got_value, want)


def test_scalars_from_tiles() -> None:
    with kernel() as k:
        first, second = tl.split(tl.arange(3, 5))
        single = tl.reshape(tl.arange(7, 8), ())
        pair = tl.join(first, second)
    assert first.type is T.i32 and single.type is T.i32
    got = k.run(results=[first, second, single, pair])
    assert (int(got[0]), int(got[1]), int(got[2])) == (3, 4, 7)
    np.testing.assert_array_equal(got[3], [3, 4])


def test_full_and_zeros() -> None:
    with kernel(T.f32) as k:
        results = [tl.full((2, 4), 3, tl.int8), tl.zeros((4,), tl.float16), tl.full((4,), k.args[0], tl.float16),
                   tl.zeros_like(tl.arange(0, 8))]
    got = k.run(2.5, results=results)
    np.testing.assert_array_equal(got[0], np.full((2, 4), 3, np.int8))
    np.testing.assert_array_equal(got[1], np.zeros(4, np.float16))
    np.testing.assert_array_equal(got[2], np.full(4, 2.5, np.float16))
    assert got[3].dtype == np.int32 and not got[3].any()


# ---- memory -------------------------------------------------------------------------------------

def test_masked_load_and_store(rng) -> None:
    a = rng.standard_normal(16).astype(np.float32)
    with kernel(T.pointer(T.f32), T.pointer(T.f16), T.i32) as k:
        src, dst, n = k.args
        offs = tl.arange(0, 16)
        x = tl.load(src + offs, mask=offs < n, other=-1)
        tl.store(dst + offs, x * 2, mask=offs < 12)
        scalar = tl.load(src + 3)
    out = k.memory.put(np.full(16, np.nan, np.float16))
    got_x, got_scalar = k.run(k.memory.put(a), out, 10, results=[x, scalar])
    np.testing.assert_array_equal(got_x, np.where(np.arange(16) < 10, a, -1))
    assert got_scalar == a[3]
    stored = k.memory.get(out, np.float16, 16)
    np.testing.assert_array_equal(stored[:12], (got_x * 2).astype(np.float16)[:12])
    assert np.isnan(stored[12:]).all()


def test_bool_pointers_are_bytes(rng) -> None:
    flags = rng.integers(0, 2, 8).astype(np.bool_)
    with kernel(T.pointer(T.i1), T.pointer(T.i1)) as k:
        x = _load(k.args[0], 8)
        tl.store(k.args[1] + tl.arange(0, 8), ~x)
    assert x.dtype is tl.int1
    out = k.memory.put(np.zeros(8, np.uint8))
    got = k.run(k.memory.put(flags.astype(np.uint8)), out, results=x)
    np.testing.assert_array_equal(got, flags)
    np.testing.assert_array_equal(k.memory.get(out, np.uint8, 8), (~flags).astype(np.uint8))


def test_block_pointers_check_bounds_and_pad(rng) -> None:
    a = rng.standard_normal((6, 8)).astype(np.float32)  # a 6x8 matrix read in 4x4 blocks
    with kernel(T.pointer(T.f32), T.i32, T.pointer(T.f32)) as k:
        base, rows, out = k.args
        block = tl.make_block_ptr(base, (rows, 8), (8, 1), (4, 2), (4, 4), (1, 0))
        padded = tl.load(block, boundary_check=(0, 1), padding_option="nan")
        zero_padded = tl.load(block, boundary_check=(0,), padding_option="zero")
        moved = tl.load(tl.advance(block, (-4, 2)))
        target = tl.make_block_ptr(out, (rows, 8), (8, 1), (4, 4), (4, 4), (1, 0))
        tl.store(target, moved, boundary_check=(0,))
    result = k.memory.put(np.zeros((6, 8), np.float32))
    got = k.run(k.memory.put(a), 6, result, results=[padded, zero_padded, moved])
    want = np.full((4, 4), np.nan, np.float32)
    want[:2] = a[4:6, 2:6]
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], np.nan_to_num(want, nan=0.0))
    np.testing.assert_array_equal(got[2], a[0:4, 4:8])
    stored = k.memory.get(result, np.float32, 48).reshape(6, 8)
    np.testing.assert_array_equal(stored[4:6, 4:8], a[0:2, 4:8])
    assert not stored[:4].any()


def test_tensor_descriptors(rng) -> None:
    a = rng.standard_normal((8, 8)).astype(np.float32)
    with kernel(T.pointer(T.f32), T.pointer(T.f32)) as k:
        src = tl.make_tensor_descriptor(k.args[0], [6, 8], [8, 1], [4, 4], padding_option="nan")
        block = src.load([4, 4])
        dst = tl.make_tensor_descriptor(k.args[1], [8, 8], [8, 1], [4, 4])
        tl.store_tensor_descriptor(dst, [2, 0], tl.load_tensor_descriptor(src, [0, 0]) + 1)
    out = k.memory.put(np.zeros((8, 8), np.float32))
    got = k.run(k.memory.put(a), out, results=block)
    want = np.full((4, 4), np.nan, np.float32)
    want[:2] = a[4:6, 4:8]
    np.testing.assert_array_equal(got, want)
    stored = k.memory.get(out, np.float32, 64).reshape(8, 8)
    np.testing.assert_array_equal(stored[2:6, 0:4], a[0:4, 0:4] + 1)


def test_atomics_return_the_old_values(rng) -> None:
    counts = rng.integers(0, 100, 8).astype(np.int32)
    with kernel(T.pointer(T.i32), T.pointer(T.f32)) as k:
        ptrs = k.args[0] + tl.arange(0, 8)
        old_add = tl.atomic_add(ptrs, 5, mask=tl.arange(0, 8) < 6)
        old_max = tl.atomic_max(ptrs, 50)
        old_cas = tl.atomic_cas(k.args[0], 50, -1)
        old_xchg = tl.atomic_xchg(k.args[1], 2.5)
    address = k.memory.put(counts)
    floats = k.memory.put(np.array([1.5], np.float32))
    got = k.run(address, floats, results=[old_add, old_max, old_cas, old_xchg])
    np.testing.assert_array_equal(got[0], counts)
    added = counts + np.where(np.arange(8) < 6, 5, 0)
    np.testing.assert_array_equal(got[1], added)
    final = np.maximum(added, 50)
    assert got[2] == final[0]
    final[0] = -1 if final[0] == 50 else final[0]
    np.testing.assert_array_equal(k.memory.get(address, np.int32, 8), final)
    assert got[3] == np.float32(1.5) and k.memory.get(floats, np.float32, 1)[0] == np.float32(2.5)


# ---- linear algebra -----------------------------------------------------------------------------

def test_dot(rng) -> None:
    a = rng.standard_normal((4, 8)).astype(np.float32)
    b = rng.standard_normal((8, 4)).astype(np.float32)
    ints = rng.integers(-100, 100, (4, 8)).astype(np.int8)
    with kernel(T.pointer(T.f32), T.pointer(T.f32), T.pointer(T.i8)) as k:
        x, y = _load(k.args[0], 4, 8), _load(k.args[1], 8, 4)
        q = _load(k.args[2], 4, 8)
        results = [tl.dot(x, y), tl.dot(x, y, acc=tl.full((4, 4), 1.0, tl.float32)), tl.dot(q, q.T),
                   tl.dot(tl.reshape(x, 2, 2, 8), tl.reshape(y, 2, 8, 2)), x @ y]
    got = k.run(k.memory.put(a), k.memory.put(b), k.memory.put(ints), results=results)
    np.testing.assert_allclose(got[0], a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], a @ b + 1, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[2], ints.astype(np.int32) @ ints.T.astype(np.int32))
    np.testing.assert_allclose(got[3], a.reshape(2, 2, 8) @ b.reshape(2, 8, 2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[4], a @ b, rtol=1e-5, atol=1e-5)


# ---- debugging ----------------------------------------------------------------------------------

def test_device_print_and_assert() -> None:
    with kernel(T.i32, debug=True) as k:
        tl.device_print("n", k.args[0], tl.arange(0, 4))
        tl.device_assert(k.args[0] < 5, "n is too large")
        tl.device_assert(tl.arange(0, 4) < 10, "masked out", mask=tl.arange(0, 4) < 2)
    k.run(7)
    prefix, printed, hexadecimal = k.memory.printed[0]
    assert prefix == " n: " and not hexadecimal
    assert int(printed[0]) == 7 and printed[1].tolist() == [0, 1, 2, 3]
    assert k.memory.failed == ["n is too large"]


# ---- user combine functions (through Semantic.call_function, stubbed as a plain call) ------------

def _call_directly(function, args):
    return function(*args)


def test_reduce_and_scan_with_user_combines(rng) -> None:
    a = rng.standard_normal(16).astype(np.float32)

    def argmax_combine(v1, i1, v2, i2):
        better = v1 > v2
        return tl.where(better, v1, v2), tl.where(better, i1, i2)

    with kernel(T.pointer(T.f32)) as k:
        k.sem.call_function = _call_directly
        x = _load(k.args[0], 16)
        total = tl.reduce(x, 0, lambda p, q: p + q)
        best, where = tl.reduce((x, tl.arange(0, 16)), 0, argmax_combine)
        running = tl.associative_scan(x, 0, lambda p, q: tl.maximum(p, q))
        kept = tl.reduce(x[None, :], 1, lambda p, q: p * q, keep_dims=True)
    got = k.run(k.memory.put(a), results=[total, best, where, running, kept])
    np.testing.assert_allclose(got[0], a.sum(), rtol=1e-5)
    assert got[1] == a.max() and got[2] == np.argmax(a)
    np.testing.assert_array_equal(got[3], np.maximum.accumulate(a))
    assert got[4].shape == (1, 1)
    np.testing.assert_allclose(got[4][0, 0], np.prod(a), rtol=1e-5)


def test_user_combines_must_return_one_value_per_input() -> None:
    from kernellab.language.semantics import SemanticError

    with kernel(T.pointer(T.f32)) as k:
        k.sem.call_function = _call_directly
        x = _load(k.args[0], 16)
        with pytest.raises(SemanticError, match=r"must return 2 value\(s\), one per input; it returned 1"):
            tl.reduce((x, x), 0, lambda a, b, c, d: a + c)
        with pytest.raises(SemanticError, match=r"must return fp32 scalars \(the input element types\), got fp64"):
            tl.reduce(x, 0, lambda a, b: a.to(tl.float64))
        assert tl.reduce(x, 0, lambda a, b: 0).type is T.f32  # numbers become constants of the element type


def test_view_is_deprecated() -> None:
    with kernel() as k, pytest.warns(DeprecationWarning, match="tl.view is deprecated"):
        tl.view(tl.arange(0, 8), 2, 4)
    assert "reshape" in k.ops()
