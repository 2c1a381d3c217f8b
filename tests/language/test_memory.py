"""Loads, stores, block pointers, tensor descriptors and atomics, end to end on every target."""

from __future__ import annotations

import numpy as np

import kernellab as kl
import kernellab.language as tl


@kl.jit
def masked_copy(src, dst, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src + offs, mask=mask, other=-5.0, cache_modifier=".cg", eviction_policy="evict_first")
    tl.store(dst + offs, x * 2, mask=offs < n + 3, eviction_policy="evict_last")  # 3 past n: the `other` values
    tl.store(dst + n + 3 + pid, tl.num_programs(0) * 10 + pid)  # scalar stores, one per program
    tl.store(dst + n + 3 + tl.num_programs(0) + pid, tl.load(src + pid * BLOCK, volatile=True))


def test_masked_loads_and_stores_across_programs(launch, inputs) -> None:
    n, block = 100, 32
    programs = -(-n // block)
    src = inputs.normal(programs * block)
    dst = inputs.poisoned(n + 3 + 2 * programs, np.float32)
    launch(masked_copy, (programs,), src, dst, n, BLOCK=block)
    np.testing.assert_array_equal(dst[:n], src[:n] * 2)
    np.testing.assert_array_equal(dst[n:n + 3], [-10.0] * 3)
    np.testing.assert_array_equal(dst[n + 3:n + 3 + programs], programs * 10 + np.arange(programs))
    np.testing.assert_array_equal(dst[n + 3 + programs:], src[::block])


@kl.jit
def bool_roundtrip(flags, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    f = tl.load(flags + offs)
    tl.store(out + offs, f ^ (offs % 3 == 0))


def test_bool_pointers(launch, inputs) -> None:
    flags = inputs.rng.integers(0, 2, 64).astype(np.bool_)
    out = np.zeros(64, np.bool_)
    out[:] = True
    launch(bool_roundtrip, (1,), flags, out, BLOCK=64)
    np.testing.assert_array_equal(out, flags ^ (np.arange(64) % 3 == 0))


@kl.jit
def block_pointer_copy(src, dst, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Copy a M x N matrix in BM x BN blocks; row blocks from program ids, columns in a loop."""
    row = tl.program_id(0) * BM
    source = tl.make_block_ptr(src, (M, N), (stride, 1), (row, 0), (BM, BN), (1, 0))
    target = tl.make_block_ptr(dst, (M, N), (N, 1), (row, 0), (BM, BN), (1, 0))
    for _ in tl.range(0, tl.cdiv(N, BN)):
        block = tl.load(source, boundary_check=(0, 1), padding_option="zero")
        tl.store(target, block + 1, boundary_check=(0, 1))
        source = tl.advance(source, (0, BN))
        target = tl.advance(target, (0, BN))


def test_block_pointers(launch, inputs) -> None:
    m, n, stride = 37, 45, 48
    src = inputs.normal((m, stride))
    dst = inputs.poisoned((m, n), np.float32)
    launch(block_pointer_copy, (-(-m // 16),), src, dst, m, n, stride, BM=16, BN=16)
    np.testing.assert_array_equal(dst, src[:, :n] + 1)


@kl.jit
def block_pointer_padding(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    block = tl.make_block_ptr(src, (M, N), (N, 1), (M - BM // 2, N - BN // 2), (BM, BN), (1, 0))
    grid = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out + grid, tl.load(block, boundary_check=(0, 1), padding_option="nan"))


def test_block_pointer_nan_padding(launch, inputs) -> None:
    src = inputs.normal((8, 8))
    out = np.zeros((4, 4), np.float32)
    launch(block_pointer_padding, (1,), src, out, 8, 8, BM=4, BN=4)
    want = np.full((4, 4), np.nan, np.float32)
    want[:2, :2] = src[6:, 6:]
    np.testing.assert_array_equal(out, want)


@kl.jit
def descriptor_copy(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
    source = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    target = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BM, BN])
    rows = tl.program_id(0) * BM
    cols = tl.program_id(1) * BN
    block = source.load([rows, cols])
    target.store([rows, cols], block * 3)


def test_tensor_descriptors(launch, inputs) -> None:
    m, n = 20, 24
    src = inputs.normal((m, n))
    dst = inputs.poisoned((m, n), np.float32)
    launch(descriptor_copy, (-(-m // 8), -(-n // 8)), src, dst, m, n, BM=8, BN=8)
    np.testing.assert_allclose(dst, src * 3, rtol=1e-6)


@kl.jit
def descriptor_functions(src, out, N, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(src, [N], [1], [BLOCK], padding_option="nan")
    tl.store_tensor_descriptor(tl.make_tensor_descriptor(out, [2 * BLOCK], [1], [BLOCK]), [BLOCK],
                               tl.load_tensor_descriptor(desc, [N - BLOCK // 2]))


def test_descriptor_functions_and_padding(launch, inputs) -> None:
    src = inputs.normal(32)
    out = np.zeros(64, np.float32)
    launch(descriptor_functions, (1,), src, out, 32, BLOCK=32)
    np.testing.assert_array_equal(out[32:48], src[16:])
    assert np.isnan(out[48:]).all() and not out[:32].any()


@kl.jit
def atomics(counts, values, floats, old_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(values + offs, mask=mask, other=0)
    tl.atomic_add(counts + v % 8, 1, mask=mask)  # a histogram: every program adds
    tl.atomic_max(counts + 8 + offs % 4, v, mask=mask, sem="relaxed")
    tl.atomic_min(counts + 12 + offs % 4, v, mask=mask, scope="cta")
    same = offs * 0  # every lane at one address
    tl.atomic_and(counts + 16 + same, v | 0x40, mask=mask)
    tl.atomic_or(counts + 17 + same, v, mask=mask)
    tl.atomic_xor(counts + 18 + same, v, mask=mask)
    f = tl.load(floats + offs % 4)
    old = tl.atomic_max(floats + 4 + offs % 4, f * (tl.program_id(0) + 1).to(tl.float32))
    tl.atomic_min(floats + 8 + offs % 4, -f)
    tl.store(old_out + tl.program_id(0) * BLOCK + offs, old)
    tl.atomic_xchg(counts + 19, tl.program_id(0) + 100)
    first = tl.atomic_cas(counts + 20, 0, tl.program_id(0) + 1)  # only the first program swaps
    tl.atomic_add(counts + 21, (first == 0).to(tl.int32))


def test_atomics(launch, inputs) -> None:
    n, block, programs = 50, 64, 3
    values = inputs.integers(block, 0, 60, np.int32)
    counts = np.zeros(22, np.int32)
    counts[12:16] = 1000
    counts[16] = -1
    floats = np.zeros(12, np.float32)
    floats[:4] = inputs.normal(4)
    floats[4:8] = -100.0
    floats[8:12] = 100.0
    old = inputs.poisoned((programs, block), np.float32)
    launch(atomics, (programs,), counts, values, floats, old, n, BLOCK=block)
    v = values[:n]
    np.testing.assert_array_equal(counts[:8], np.bincount(v % 8, minlength=8) * programs)
    np.testing.assert_array_equal(counts[8:12], [v[np.arange(n) % 4 == r].max() for r in range(4)])
    np.testing.assert_array_equal(counts[12:16], [v[np.arange(n) % 4 == r].min() for r in range(4)])
    assert counts[16] == np.bitwise_and.reduce(v | 0x40)
    assert counts[17] == np.bitwise_or.reduce(v)
    assert counts[18] == (np.bitwise_xor.reduce(v) if programs % 2 else 0)
    assert 100 <= counts[19] < 100 + programs
    assert 1 <= counts[20] <= programs and counts[21] == 1  # exactly one program saw the initial 0
    f = floats[:4]
    scaled = np.stack([f * (p + 1) for p in range(programs)])
    np.testing.assert_array_equal(floats[4:8], np.maximum(scaled.max(0), -100))
    np.testing.assert_array_equal(floats[8:12], np.minimum(-f, 100))
    assert np.isin(old, np.concatenate([[-100.0], scaled.ravel()])).all()  # old values are ones memory held
