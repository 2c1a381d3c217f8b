"""The fuzzer's own semantics (its reference must be right for its verdicts to mean anything),
and the comparison that turns a wrong value into a finding."""

from __future__ import annotations

import numpy as np
import pytest

from kernellab.fuzz import reference as ref
from kernellab.fuzz.dtypes import NUMPY, cast, promote, promote_with_literal


@pytest.mark.parametrize("a, b, div_or_mod, expected", [
    ("int8", "int16", False, "int16"), ("int32", "uint32", False, "uint32"), ("uint8", "int32", False, "int32"),
    ("uint64", "int8", False, "uint64"), ("float16", "bfloat16", False, "float16"),
    ("bfloat16", "int8", False, "float32"), ("bfloat16", "bfloat16", False, "bfloat16"),
    ("float16", "float16", True, "float32"), ("int64", "float16", False, "float16"),
    ("float32", "float64", False, "float64"),
])
def test_promotion_follows_tritons_computation_type(a, b, div_or_mod, expected):
    assert promote(a, b, div_or_mod) == expected
    assert promote(b, a, div_or_mod) == expected


def test_literals_take_the_tensors_type_except_half_division():
    assert promote_with_literal("uint8") == "uint8"
    assert promote_with_literal("bfloat16", div_or_mod=True) == "float32"


def test_float_to_int_casts_truncate_saturate_and_send_nan_to_zero():
    values = np.array([2.9, -2.9, 300.0, -300.0, np.nan, np.inf, -np.inf], np.float32)
    assert cast(values, "float32", "int8").tolist() == [2, -2, 127, -128, 0, 127, -128]
    assert cast(values, "float32", "uint8").tolist() == [2, 0, 255, 0, 0, 255, 0]
    assert cast(np.array([2.0**70]), "float64", "int64")[0] == np.iinfo(np.int64).max


def test_integer_division_truncates_toward_zero():
    a, b = np.array([-7, 7, -8, -128], np.int8), np.array([1, 1, 1, 0], np.int8)  # divisors (b & 7) + 1 = 2, 2, 2, 1
    quotient, _ = ref.binary("floordiv", (a, ref.zero_err(a)), (b, ref.zero_err(b)), "int8")
    remainder, _ = ref.binary("mod", (a, ref.zero_err(a)), (b, ref.zero_err(b)), "int8")
    assert quotient.tolist() == [-3, 3, -4, -128] and remainder.tolist() == [-1, 1, 0, 0]


def test_a_wrong_value_is_found_and_a_rounding_difference_is_not():
    want = np.array([1.0, 1000.0, -3.0], np.float32)
    value, err = ref.binary("add", (want, ref.zero_err(want)), (want, ref.zero_err(want)), "float32")
    close = value * np.float32(1 + 2**-23)
    assert ref.agrees(close, value, err, "float32").all()
    wrong = value.copy()
    wrong[1] += 1.0
    assert ref.agrees(wrong, value, err, "float32").tolist() == [True, False, True]
    ints = np.array([1, 2], NUMPY["int16"])
    assert ref.agrees(ints + np.int16(1), ints, ref.zero_err(ints), "int16").tolist() == [False, False]


def test_an_overflowing_value_is_not_compared():
    big = np.array([60000.0], np.float16)
    value, err = ref.binary("mul", (big, ref.rounding(big, "float16")), (big, ref.zero_err(big)), "float16")
    assert np.isinf(err).all()


def test_sums_whose_partial_sums_may_overflow_in_another_order_are_not_compared():
    """The H200 run's finding (seed 20263316): a reverse fp16 cumsum whose reference prefix is
    finite, but whose terms' magnitudes pass 65504, gave -inf on CUDA (a parallel scan adds in
    another order): such elements are not compared; prefixes that cannot overflow still are."""
    x = np.array([[[-30000.0], [-25000.0], [20000.0], [-30000.0]]], np.float16)  # (programs, BM, BN)
    value, err = ref.cumsum((x, ref.zero_err(x)), 1, True, "float16")
    assert np.isfinite(value).all() and np.isinf(err.ravel()[:2]).all() and np.isfinite(err.ravel()[2:]).all()
    assert ref.agrees(np.array([-np.inf], np.float16), value.ravel()[:1], err.ravel()[:1], "float16").all()
    wrong = value.ravel()[2:] + np.float16(1024)  # far outside the rounding bound (~100 and ~60 here)
    assert not ref.agrees(wrong, value.ravel()[2:], err.ravel()[2:], "float16").any()
    total, total_err = ref.reduce("sum", (x, ref.zero_err(x)), (1,), "float16")
    assert np.isinf(total_err).all()
