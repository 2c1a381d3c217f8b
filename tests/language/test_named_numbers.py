"""A number bound to a name (``one = 1``, ``eps = 1e-5``, ``n = BLOCK * 2``) is, as in Triton, a
0-d tensor of the number's type: it promotes as a tensor does, not as a Python number, and it has
``.dtype`` and ``.to()``.  A ``x: tl.constexpr = ...`` stays a compile-time number, and kernellab
still folds a named number where a constexpr is needed."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl

N = 16


@kl.jit
def promote_kernel(x_ptr, f32_ptr, i32_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    half = 0.5
    one = 1
    x = tl.load(x_ptr + offs)
    scaled = x * half  # f16 * f32 tensor: f32 (a literal 0.5 would keep f16)
    tl.static_assert(scaled.dtype == tl.float32)
    small = x.to(tl.int8) + one  # i8 + i32 tensor: i32
    tl.static_assert(small.dtype == tl.int32)
    tl.store(f32_ptr + offs, scaled)
    tl.store(i32_ptr + offs, small)


def test_a_named_number_promotes_as_a_tensor(launch, rng):
    x = (rng.standard_normal(N) * 50).astype(np.float16)
    f32, i32 = np.full(N, np.nan, np.float32), np.full(N, -7, np.int32)
    launch(promote_kernel, (1,), x, f32, i32, BLOCK=N)
    np.testing.assert_array_equal(f32, x.astype(np.float32) * np.float32(0.5))
    np.testing.assert_array_equal(i32, x.astype(np.float32).astype(np.int8).astype(np.int32) + 1)


@kl.jit
def attribute_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    value = 3
    literal: tl.constexpr = 2  # a constexpr stays a Python number: the tile keeps its f16
    output = tl.full([BLOCK], value=value, dtype=value.dtype)  # Triton's test_store_constant
    halves = tl.full([BLOCK], 1.5, tl.float16) * literal
    tl.static_assert(halves.dtype == tl.float16)
    tl.store(out_ptr + offs, (output + value.to(tl.float32) + halves).to(out_ptr.dtype.element_ty))


@pytest.mark.parametrize("dtype", [np.int16, np.float16, np.float32])
def test_a_named_number_has_tensor_attributes(launch, dtype):
    out = np.zeros(N, dtype)
    launch(attribute_kernel, (1,), out, BLOCK=N)
    np.testing.assert_array_equal(out, np.full(N, 9, dtype))


@kl.jit
def folding_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    width = BLOCK * 2  # still known at compile time: an arange bound, a loop count
    offs = tl.arange(0, width)
    acc = tl.load(x_ptr + offs)
    steps = 3
    for _ in range(steps):
        acc += 1.0
    tl.store(out_ptr + offs, acc)


def test_a_named_number_still_folds(launch, rng):
    x = rng.standard_normal(2 * N).astype(np.float32)
    out = np.full(2 * N, np.nan, np.float32)
    launch(folding_kernel, (1,), x, out, BLOCK=N)
    np.testing.assert_array_equal(out, ((x + np.float32(1)) + np.float32(1)) + np.float32(1))  # three f32 adds



@kl.jit
def division_kernel(x_ptr, out_ptr):
    a = -7
    b = 2.5
    tl.store(out_ptr + 0, a // 2)  # folded at compile time
    tl.store(out_ptr + 1, a % 2)
    tl.store(out_ptr + 2, -b % 2.0)
    tl.store(out_ptr + 3, b % -2.0)
    offs = tl.arange(0, 2)
    ints = tl.load(x_ptr + offs).to(tl.int32)  # -7, -7
    floats = tl.load(x_ptr + 2 + offs)  # 2.5, 2.5
    tl.store(out_ptr + 4 + offs, ints // 2)  # computed as tiles
    tl.store(out_ptr + 6 + offs, ints % 2)
    tl.store(out_ptr + 8 + offs, -floats % 2.0)
    tl.store(out_ptr + 10 + offs, floats % -2.0)


def test_a_named_number_divides_as_the_tensor_it_stands_for(launch):
    # an integer // and % truncate toward zero (sdiv/srem) and a float % keeps the dividend's sign
    # (frem), as a kernel's tensors compute them -- not Python's floor semantics
    x = np.array([-7, -7, 2.5, 2.5], np.float32)
    out = np.full(12, np.nan, np.float32)
    launch(division_kernel, (1,), x, out)
    np.testing.assert_array_equal(out[:4], [-3, -1, -0.5, 0.5])
    np.testing.assert_array_equal(out[4:], [-3, -3, -1, -1, -0.5, -0.5, 0.5, 0.5])


@kl.jit
def wrapping_kernel(out_ptr):
    big = 2147483647  # i32
    tl.store(out_ptr + 0, (big + 1).to(tl.int64))
    tl.store(out_ptr + 1, (big * 3 // 2).to(tl.int64))
    low = -2147483648
    tl.store(out_ptr + 2, (-low).to(tl.int64))
    u = 3000000000  # u32
    tl.store(out_ptr + 3, (u + u).to(tl.int64))
    wide = 9223372036854775807  # i64
    tl.store(out_ptr + 4, (wide + 1).to(tl.int64))
    tl.store(out_ptr + 5, (big + wide).to(tl.int64))  # i32 + i64: i64


def test_a_named_integer_wraps_as_the_tensor_it_stands_for(launch):
    # the values Triton's interpreter gives: a named int is a 0-d i32/u32/i64 tensor, so its
    # arithmetic wraps at that width (it was folded with Python's unbounded ints)
    out = np.zeros(6, np.int64)
    launch(wrapping_kernel, (1,), out)
    np.testing.assert_array_equal(out, [-2**31, 1073741822, -2**31, 1705032704, -2**63, -2**63 + 2147483646])


@kl.jit
def out_of_range_kernel(out_ptr):
    big = 2147483647
    tl.store(out_ptr, (big + 2**40).to(tl.int64))


def test_a_constant_out_of_a_named_numbers_range_is_refused(launch):
    # as Triton's: the plain int takes the named number's type (i32), which cannot hold it
    with pytest.raises(kl.CompilationError, match="out of range for int32"):
        launch(out_of_range_kernel, (1,), np.zeros(1, np.int64))


@kl.jit
def unsigned_kernel(out_ptr):
    u = 4294967295  # u32
    v = u + 1  # a u32 0, not an i32 0
    w = v - 1
    tl.store(out_ptr + 0, w.to(tl.int64))
    tl.store(out_ptr + 1, (v >> 1).to(tl.int64))
    acc = 4294967295
    for _ in range(3):  # carried through the loop as the u32 it is
        acc = acc + 1
    tl.store(out_ptr + 2, acc.to(tl.int64))
    tl.store(out_ptr + 3, (-u).to(tl.int64))
    tl.static_assert(v.dtype == tl.uint32)


def test_a_named_integer_keeps_its_type_when_it_wraps(launch):
    # Triton's interpreter: [4294967295, 0, 2, 1] (a u32 that wrapped to 0 is still u32)
    out = np.zeros(4, np.int64)
    launch(unsigned_kernel, (1,), out)
    np.testing.assert_array_equal(out, [4294967295, 0, 2, 1])
