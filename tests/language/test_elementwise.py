"""Operators, promotion, math functions and casts, end to end on every target."""

from __future__ import annotations

import numpy as np

import kernellab as kl
import kernellab.language as tl

BLOCK = 64


@kl.jit
def integer_ops(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    shift = b & 7
    results = (a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, a << shift, a >> shift, -a, ~a,
               tl.abs(a), tl.minimum(a, b), tl.maximum(a, b), tl.where(a < b, a, b), tl.umulhi(a, b),
               tl.cdiv(tl.abs(a), tl.abs(b)), (a == b).to(tl.int32), (a >= b).to(tl.int32))
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * BLOCK + offs, results[i])


def test_integer_operators(launch, inputs) -> None:
    a = inputs.integers(BLOCK, -1000, 1000)
    b = inputs.integers(BLOCK, -40, 40)
    b[:4] = a[:4]  # some equal pairs
    out = inputs.poisoned((20, BLOCK), np.int32)
    launch(integer_ops, (1,), a, b, out, BLOCK=BLOCK)
    shift = b & 7
    unsigned_product = a.view(np.uint32).astype(np.uint64) * b.view(np.uint32).astype(np.uint64)
    high_half = (unsigned_product >> np.uint64(32)).astype(np.uint32).view(np.int32)
    expected = [a + b, a - b, a * b, np.trunc(a / b), np.fmod(a, b), a & b, a | b, a ^ b, a << shift, a >> shift,
                -a, ~a, np.abs(a), np.minimum(a, b), np.maximum(a, b), np.where(a < b, a, b), high_half,
                -(-np.abs(a) // np.abs(b)), a == b, a >= b]
    for row, want in enumerate(expected):
        np.testing.assert_array_equal(out[row], np.asarray(want).astype(np.int32), err_msg=f"row {row}")


@kl.jit
def promotion(i8_ptr, u8_ptr, f16_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(i8_ptr + offs)
    y = tl.load(u8_ptr + offs)
    h = tl.load(f16_ptr + offs)
    tl.store(out_ptr + offs, x + y)  # uint8 arithmetic (wraps)
    tl.store(out_ptr + BLOCK + offs, x * 3)  # stays int8 (wraps)
    tl.store(out_ptr + 2 * BLOCK + offs, x.to(tl.int16) * y)  # int16
    tl.store(out_ptr + 3 * BLOCK + offs, (h * 2.5).to(tl.float32) * 1000.0)  # fp16 product
    tl.store(out_ptr + 4 * BLOCK + offs, (x / y.to(tl.int16)) * 1000.0)  # float32 division
    tl.store(out_ptr + 5 * BLOCK + offs, y >> 1)  # logical shift of uint8
    tl.store(out_ptr + 6 * BLOCK + offs, x >> 1)  # arithmetic shift of int8


def test_promotion_wraps_in_the_promoted_type(launch, inputs) -> None:
    x = inputs.integers(BLOCK, -128, 128, np.int8)
    y = inputs.integers(BLOCK, 1, 256, np.uint8)
    h = inputs.normal(BLOCK, np.float16)
    out = inputs.poisoned((7, BLOCK), np.float64)
    launch(promotion, (1,), x, y, h, out, BLOCK=BLOCK)
    np.testing.assert_array_equal(out[0], (x.view(np.uint8) + y).astype(np.float64))
    np.testing.assert_array_equal(out[1], (x * np.int8(3)).astype(np.float64))
    np.testing.assert_array_equal(out[2], (x.astype(np.int16) * y.astype(np.int16)).astype(np.float64))
    np.testing.assert_array_equal(out[3], ((h * np.float16(2.5)).astype(np.float32) * np.float32(1000)))
    np.testing.assert_allclose(out[4], (x.astype(np.float32) / y.astype(np.float32)) * np.float32(1000), rtol=1e-6)
    np.testing.assert_array_equal(out[5], y >> 1)
    np.testing.assert_array_equal(out[6], x >> 1)


@kl.jit
def float_math(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    results = (x + y, x - y, x * y, x / y, x % y, -x, tl.exp(x), tl.exp2(x), tl.log(tl.abs(x)), tl.log2(tl.abs(x)),
               tl.sin(x), tl.cos(x), tl.sqrt(tl.abs(x)), tl.sqrt_rn(tl.abs(x)), tl.rsqrt(tl.abs(x)), tl.erf(x),
               tl.floor(x), tl.ceil(x), tl.abs(x), tl.fdiv(x, y), tl.div_rn(x, y), tl.fma(x, y, 0.5),
               tl.sigmoid(x), tl.clamp(x, -0.5, 0.5), tl.minimum(x, y), tl.maximum(x, y), x.exp(), x.cos())
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * BLOCK + offs, results[i])


def test_float_math(launch, inputs) -> None:
    x = inputs.uniform(BLOCK, -3, 3)
    y = inputs.uniform(BLOCK, 0.5, 2) * inputs.rng.choice([-1, 1], BLOCK).astype(np.float32)
    out = inputs.poisoned((28, BLOCK), np.float32)
    launch(float_math, (1,), x, y, out, BLOCK=BLOCK)
    ax = np.abs(x)
    expected = [x + y, x - y, x * y, x / y, np.fmod(x, y), -x, np.exp(x), np.exp2(x), np.log(ax), np.log2(ax),
                np.sin(x), np.cos(x), np.sqrt(ax), np.sqrt(ax), 1 / np.sqrt(ax), [np.float32(_erf(v)) for v in x],
                np.floor(x), np.ceil(x), ax, x / y, x / y, x * y + np.float32(0.5), 1 / (1 + np.exp(-x)),
                np.clip(x, -0.5, 0.5), np.minimum(x, y), np.maximum(x, y), np.exp(x), np.cos(x)]
    for row, want in enumerate(expected):
        np.testing.assert_allclose(out[row], np.asarray(want, np.float32), rtol=2e-6, atol=2e-6,
                                   err_msg=f"row {row}")


def _erf(v: float) -> float:
    import math

    return math.erf(float(v))


@kl.jit
def nan_handling(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.minimum(x, y))
    tl.store(out_ptr + BLOCK + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.clamp(x, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL))


def test_nan_propagation(launch, inputs) -> None:
    x = inputs.normal(BLOCK)
    y = inputs.normal(BLOCK)
    x[::3] = np.nan
    out = inputs.poisoned((3, BLOCK), np.float32)
    out[:] = 7.0  # NaN is an expected value here: poison with a sentinel instead
    launch(nan_handling, (1,), x, y, out, BLOCK=BLOCK)
    np.testing.assert_array_equal(out[0], np.fmin(x, y))
    np.testing.assert_array_equal(out[1], np.maximum(x, y))
    np.testing.assert_array_equal(out[2], np.clip(x, -1, 1))


@kl.jit
def casts(x_ptr, f_out, i_out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(f_out + offs, x.to(tl.float16).to(tl.float32))
    tl.store(f_out + BLOCK + offs, x.to(tl.float16, fp_downcast_rounding="rtz").to(tl.float32))
    tl.store(f_out + 2 * BLOCK + offs, x.to(tl.bfloat16).to(tl.float32))
    tl.store(f_out + 3 * BLOCK + offs, tl.cast(x.to(tl.int32, bitcast=True) & 0x7FFFFFFF, tl.float32, bitcast=True))
    tl.store(i_out + offs, x.to(tl.int8))
    tl.store(i_out + BLOCK + offs, x.to(tl.int1).to(tl.int32))
    tl.store(i_out + 2 * BLOCK + offs, (x * 1000).to(tl.int32))
    tl.store(i_out + 3 * BLOCK + offs, x.to(tl.int32, bitcast=True))


def test_casts(launch, inputs) -> None:
    x = inputs.normal(BLOCK) * np.float32(50)
    x[0] = 0.0
    floats = inputs.poisoned((4, BLOCK), np.float32)
    ints = inputs.poisoned((4, BLOCK), np.int32)
    launch(casts, (1,), x, floats, ints, BLOCK=BLOCK)
    np.testing.assert_array_equal(floats[0], x.astype(np.float16).astype(np.float32))
    assert np.all(np.abs(floats[1]) <= np.abs(x)) and np.all(np.abs(x - floats[1]) <= np.abs(x) * 2**-10)
    import ml_dtypes

    np.testing.assert_array_equal(floats[2], x.astype(ml_dtypes.bfloat16).astype(np.float32))
    np.testing.assert_array_equal(floats[3], np.abs(x))
    # float -> int truncates and saturates (the documented cast semantics; x reaches past +-127)
    np.testing.assert_array_equal(ints[0], np.clip(np.trunc(x), -128, 127).astype(np.int8))
    np.testing.assert_array_equal(ints[1], (x != 0).astype(np.int32))
    np.testing.assert_array_equal(ints[2], np.trunc(x * np.float32(1000)).astype(np.int32))
    np.testing.assert_array_equal(ints[3], x.view(np.int32))
