"""The memory model: atomics in index order, duplicate stores, and the checked accesses whose
errors name the program, the argument and the offsets."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kernellab.errors import InterpreterError
from kernellab.ir import types as T

from .kit import F32P, I32P, Kit, poisoned, run, vector_add

BLOCK = 16


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def _program_offsets(k: Kit, block: int = BLOCK):
    pid = k.pid()
    return k.bin("add", k.splat(k.bin("mul", pid, k.const(block, T.i32)), (block,)), k.arange(block))


def _scatter_kernel(op: str, element: T.ScalarType, kind: str = "add", masked: bool = False):
    """old[i] = atomic(out + idx[i], val[i]) (or a plain store) for the program's BLOCK
    elements; with ``masked``, only where val's index is even."""
    k = Kit()
    ptr = T.pointer(element)
    fn = k.kernel("scatter", [("idx_ptr", I32P), ("val_ptr", ptr), ("out_ptr", ptr), ("old_ptr", ptr)])
    idx_ptr, val_ptr, out_ptr, old_ptr = fn.args
    with k.body(fn.body):
        offs = _program_offsets(k)
        idx = k.load(k.addptr(idx_ptr, offs))
        value = k.load(k.addptr(val_ptr, offs))
        target = k.addptr(out_ptr, idx)
        mask = None
        if masked:
            two = k.const(2, T.tile(T.i32, (BLOCK,)))
            mask = k.cmp("eq", k.bin("rem", offs, two), k.const(0, T.tile(T.i32, (BLOCK,))))
        if op == "store":
            k.store(target, value, mask)
        else:
            tile = T.tile(element, (BLOCK,))
            old = k.op("atomic_rmw", [target, value, mask], [tile], {"kind": kind}, grouped=True).result
            k.store(k.addptr(old_ptr, offs), old, mask)
        k.ret()
    return k.module


_SEQUENTIAL = {
    "add": lambda a, b: a + b, "max": max, "min": min, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b, "xchg": lambda a, b: b,
}


def _sequential_rmw(kind, out, idx, val, mask=None):
    """The model: element by element, program after program, in index order."""
    out, old = out.copy(), np.zeros_like(val)
    with np.errstate(over="ignore"):
        for j, (i, v) in enumerate(zip(idx, val)):
            if mask is not None and not mask[j]:
                continue
            old[j] = out[i]
            out[i] = _SEQUENTIAL[kind](out[i], v)
    return out, old


@pytest.mark.parametrize("kind", list(_SEQUENTIAL))
@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_atomic_rmw_with_duplicate_addresses(rng, kind, dtype):
    programs, slots = 3, 5
    n = programs * BLOCK
    idx = rng.integers(0, slots, n).astype(np.int32)  # many duplicates, within and across programs
    info = np.iinfo(dtype)
    val = rng.integers(info.min // 2, info.max // 2, n, dtype=np.int64).astype(dtype)
    val[::7] = info.max - rng.integers(0, 100, len(val[::7]))  # signed vs unsigned order matters for max/min
    out = rng.integers(0, 1000, slots).astype(dtype)
    expected_out, expected_old = _sequential_rmw(kind, out, idx, val)
    old = poisoned(n, dtype)
    run(_scatter_kernel("atomic", T.from_numpy(dtype), kind), (programs,), idx, val, out, old)
    np.testing.assert_array_equal(out, expected_out)
    np.testing.assert_array_equal(old, expected_old)


def test_atomic_float_add_applies_in_index_order(rng):
    programs, slots = 4, 3
    n = programs * BLOCK
    idx = rng.integers(0, slots, n).astype(np.int32)
    val = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)  # order-sensitive sums
    out = rng.standard_normal(slots).astype(np.float32)
    expected_out, expected_old = _sequential_rmw("add", out, idx, val)
    old = poisoned(n)
    run(_scatter_kernel("atomic", T.f32), (programs,), idx, val, out, old)
    np.testing.assert_array_equal(out, expected_out)
    np.testing.assert_array_equal(old[:n], expected_old)


def test_atomic_with_unique_addresses_and_mask(rng):
    n = 2 * BLOCK
    idx = rng.permutation(n).astype(np.int32)
    val = rng.integers(-50, 50, n).astype(np.int32)
    out = rng.integers(-50, 50, n).astype(np.int32)
    mask = np.arange(n) % 2 == 0
    expected_out, expected_old = _sequential_rmw("max", out, idx, val, mask)
    old = poisoned(n, np.int32)
    run(_scatter_kernel("atomic", T.i32, "max", masked=True), (2,), idx, val, out, old)
    np.testing.assert_array_equal(out, expected_out)
    np.testing.assert_array_equal(old[mask], expected_old[mask])
    assert (old[~mask] == poisoned(1, np.int32)[0]).all()


def test_out_of_bounds_atomic(rng):
    idx = np.full(BLOCK, 3, np.int32)
    val = np.ones(BLOCK, np.int32)
    with pytest.raises(InterpreterError, match=r"out-of-bounds atomic xor through argument 'out_ptr': element "
                                               r"offsets \[3, 3, 3, 3, 3\] and 11 more"):
        run(_scatter_kernel("atomic", T.i32, "xor"), (1,), idx, val, np.zeros(3, np.int32), poisoned(BLOCK, np.int32))


def test_bitwise_atomics_reject_floats(rng):
    n = BLOCK
    idx = np.zeros(n, np.int32)
    val = rng.standard_normal(n).astype(np.float32)
    with pytest.raises(InterpreterError, match="atomic or needs integer elements"):
        run(_scatter_kernel("atomic", T.f32, "or"), (1,), idx, val, np.ones(1, np.float32), poisoned(n))


def test_atomic_cas_sequential_semantics(rng):
    """Each program tries cas(slot, 0, pid + 1) on its elements' slots: per slot only the first
    attempt (in program, then index order) wins; every element sees the value before it."""
    programs, slots = 3, 4
    k = Kit()
    fn = k.kernel("claim", [("idx_ptr", I32P), ("slots_ptr", I32P), ("old_ptr", I32P)])
    idx_ptr, slots_ptr, old_ptr = fn.args
    tile = T.tile(T.i32, (BLOCK,))
    with k.body(fn.body):
        offs = _program_offsets(k)
        target = k.addptr(slots_ptr, k.load(k.addptr(idx_ptr, offs)))
        mine = k.splat(k.bin("add", k.pid(), k.const(1, T.i32)), (BLOCK,))
        old = k.one("atomic_cas", [target, k.const(0, tile), mine], tile)
        k.store(k.addptr(old_ptr, offs), old)
        k.ret()
    idx = rng.integers(0, slots, programs * BLOCK).astype(np.int32)
    table = np.zeros(slots, np.int32)
    table[0] = 99  # already claimed
    expected, expected_old = table.copy(), np.zeros_like(idx)
    for j, i in enumerate(idx):
        expected_old[j] = expected[i]
        if expected[i] == 0:
            expected[i] = j // BLOCK + 1
    old = poisoned(len(idx), np.int32)
    run(k.module, (programs,), idx, table, old)
    np.testing.assert_array_equal(table, expected)
    np.testing.assert_array_equal(old, expected_old)


def test_store_with_duplicate_addresses_last_write_wins(rng):
    n = 2 * BLOCK
    idx = rng.integers(0, 3, n).astype(np.int32)
    val = rng.standard_normal(n).astype(np.float32)
    out = poisoned(3)
    run(_scatter_kernel("store", T.f32), (2,), idx, val, out, poisoned(n))
    for slot in range(3):
        writers = np.flatnonzero(idx == slot)
        assert out[slot] == val[writers[-1]] if len(writers) else np.isnan(out[slot])


# ---- checked accesses ---------------------------------------------------------------------------

def test_out_of_bounds_load_names_program_argument_and_offsets(rng):
    n, block = 100, 32  # 4 programs; the last reads x[96:128] unmasked
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    with pytest.raises(InterpreterError) as caught:
        run(vector_add(block, masked=False), (4,), x, y, poisoned(n), n)
    message = str(caught.value)
    assert "out-of-bounds load" in message
    assert "program (3, 0, 0)" in message
    assert "'x_ptr'" in message
    assert "[100, 101, 102, 103, 104] and 23 more" in message
    assert "valid offsets are 0..99" in message
    assert re.search(r"kernels\.py:\d+:\d+", message)


def test_out_of_bounds_store_names_the_output_argument(rng):
    n, block = 50, 32
    x, y = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)
    out = poisoned(n)
    with pytest.raises(InterpreterError) as caught:
        run(vector_add(block, masked=True, mask_store=False), (2,), x, y, out, n)
    message = str(caught.value)
    assert "out-of-bounds store" in message and "program (1, 0, 0)" in message and "'out_ptr'" in message
    assert "[50, 51, 52, 53, 54] and 9 more" in message
    np.testing.assert_array_equal(out[:32], x[:32] + y[:32])  # program 0 ran


def test_negative_offsets_are_reported(rng):
    k = Kit()
    fn = k.kernel("behind", [("x_ptr", F32P), ("out_ptr", F32P)])
    x_ptr, out_ptr = fn.args
    with k.body(fn.body):
        offs = k.bin("sub", k.arange(8), k.const(3, T.tile(T.i32, (8,))))
        k.store(k.addptr(out_ptr, k.arange(8)), k.load(k.addptr(x_ptr, offs)))
        k.ret()
    alone = rng.standard_normal(8, dtype=np.float32)
    with pytest.raises(InterpreterError, match=r"'x_ptr': element offsets \[-3, -2, -1\]"):
        run(k.module, (1,), alone, poisoned(8))
    big = rng.standard_normal(16, dtype=np.float32)
    out = poisoned(8)
    run(k.module, (1,), big[4:12], out)  # a view: its allocation is all of `big`, so x[-3] is fine
    np.testing.assert_array_equal(out, big[1:9])


def test_misaligned_access(rng):
    k = Kit()
    fn = k.kernel("skew", [("x_ptr", F32P), ("out_ptr", F32P)])
    x_ptr, out_ptr = fn.args
    with k.body(fn.body):
        as_int = k.one("cast", [x_ptr], T.i64)
        skewed = k.one("cast", [k.bin("add", as_int, k.const(2, T.i64))], F32P)
        k.store(out_ptr, k.load(skewed))
        k.ret()
    with pytest.raises(InterpreterError, match=r"misaligned load through argument 'x_ptr': byte offsets \[2\]"):
        run(k.module, (1,), rng.standard_normal(4).astype(np.float32), poisoned(1))


def test_null_pointer_and_read_only_arguments(rng):
    x = rng.standard_normal(32, dtype=np.float32)
    with pytest.raises(InterpreterError, match="'y_ptr', which is a null pointer"):
        run(vector_add(32), (1,), x, None, poisoned(32), 32)
    frozen = poisoned(32)
    frozen.flags.writeable = False
    with pytest.raises(InterpreterError, match="read-only memory of argument 'out_ptr'"):
        run(vector_add(32), (1,), x, x, frozen, 32)


def test_fully_masked_access_touches_nothing(rng):
    x = rng.standard_normal(8, dtype=np.float32)
    out = poisoned(8)
    run(vector_add(8), (3,), x, x, out, 0)  # n = 0: every lane masked off, even past the end
    assert np.isnan(out).all()


@pytest.mark.parametrize("element", [T.bf16, T.f16, T.f8e4m3, T.i8, T.u16, T.i64, T.f64, T.i1])
def test_masked_copy_of_every_element_width(rng, element):
    k = Kit()
    ptr = T.pointer(element)
    fn = k.kernel("copy", [("x_ptr", ptr), ("out_ptr", ptr)])
    x_ptr, out_ptr = fn.args
    with k.body(fn.body):
        offs = k.arange(BLOCK)
        mask = k.cmp("lt", offs, k.const(11, T.tile(T.i32, (BLOCK,))))
        k.store(k.addptr(out_ptr, offs), k.load(k.addptr(x_ptr, offs), mask), mask)
        k.ret()
    if element is T.i1:  # booleans live in bytes; any nonzero byte reads as true
        x = rng.integers(0, 3, BLOCK).astype(np.uint8)
        expected = (x != 0).astype(np.uint8)
    else:
        x = (rng.standard_normal(BLOCK) * 10).astype(element.np_dtype)
        expected = x
    out = np.full(BLOCK, 7, np.uint8 if element is T.i1 else element.np_dtype)
    run(k.module, (1,), x, out)
    np.testing.assert_array_equal(out[:11], expected[:11])
    assert (out[11:].astype(np.float64) == 7).all()
