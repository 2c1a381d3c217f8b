"""bfloat16 is a float in every reference (ml_dtypes gives it numpy kind 'V', not 'f')."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from kernellab.ir import types as T
from kernellab.ir.ops import arith, reduce
from kernellab.ir.ops.registry import is_float_dtype

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_extended_float_dtypes_are_floats():
    assert is_float_dtype(BF16) and is_float_dtype(np.float16) and is_float_dtype(T.f8e5m2.np_dtype)
    assert not is_float_dtype(np.int16) and not is_float_dtype(np.bool_)


def test_bf16_minimum_maximum_ignore_nan_by_default():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(8).astype(BF16)
    b = a.copy()
    b[::2] = np.nan
    assert not np.isnan(arith._minimum(a, b, propagate_nan="none").astype(np.float32)).any()
    assert not np.isnan(arith._maximum(b, a, propagate_nan="none").astype(np.float32)).any()
    assert np.isnan(arith._maximum(a, b, propagate_nan="all").astype(np.float32)[::2]).all()


def test_bf16_dot_multiplies_values_not_bits():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((16, 16)).astype(BF16)
    b = rng.standard_normal((16, 16)).astype(BF16)
    acc = np.zeros((16, 16), np.float32)
    out = reduce._dot(a, b, acc, input_precision="ieee", max_num_imprecise_acc=0,
                      result_types=[T.tile(T.f32, (16, 16))])
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert np.linalg.norm(out - expected) / np.linalg.norm(expected) < 1e-6


def test_bf16_to_int_cast_truncates():
    x = np.array([2.75, -2.75, 100.5], dtype=BF16)
    out = arith._cast(x, rounding="rtne", result_types=[T.tile(T.i32, (3,))])
    np.testing.assert_array_equal(out, [2, -2, 100])
