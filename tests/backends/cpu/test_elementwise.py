"""Every elementwise op on the CPU target against its numpy reference, per dtype."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from kernellab.ir import types as T

from .harness import random_array, reference, run_op

SHAPE = (4, 32)
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]
FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def _tile(dtype, shape=SHAPE):
    return T.tile(T.from_numpy(dtype), shape)


def _check(name, inputs, result_type, attrs=None, exact=True, rtol=1e-6):
    got = run_op(name, inputs, [result_type], attrs)[0]
    want = reference(name, inputs, [result_type], attrs)[0]
    got64 = np.asarray(got).astype(np.float64) if np.asarray(got).dtype.kind == "V" or "float" in str(
        np.asarray(got).dtype) else np.asarray(got)
    want64 = np.asarray(want).astype(got64.dtype)
    if exact:
        np.testing.assert_array_equal(got64, want64)
    else:
        np.testing.assert_allclose(got64, want64, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["add", "sub", "mul"])
def test_arithmetic(name, dtype):
    rng = np.random.default_rng(1)
    a, b = random_array(rng, SHAPE, dtype), random_array(rng, SHAPE, dtype)
    _check(name, [a, b], _tile(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.uint32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["div", "rem"])
def test_integer_division_truncates(name, dtype):
    rng = np.random.default_rng(2)
    a = random_array(rng, SHAPE, dtype)
    b = random_array(rng, SHAPE, dtype)
    b[b == 0] = 3
    b.flat[0] = 0  # x / 0 and x % 0 are 0, never a trap
    want = reference(name, [a, b], [_tile(dtype)])[0]
    want.flat[0] = 0
    got = run_op(name, [a, b], [_tile(dtype)])[0]
    np.testing.assert_array_equal(got, want)


def test_signed_division_edge_cases():
    a = np.array([[-7, 7, -7, 7, -128, -128, 5, -5]], dtype=np.int8)
    b = np.array([[2, -2, -2, 2, -1, 1, 3, 3]], dtype=np.int8)
    ty = _tile(np.int8, (1, 8))
    np.testing.assert_array_equal(run_op("div", [a, b], [ty])[0], [[-3, -3, 3, 3, -128, -128, 1, -1]])
    np.testing.assert_array_equal(run_op("rem", [a, b], [ty])[0], [[-1, 1, -1, 1, 0, 0, 2, -2]])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["div", "rem", "div_rn", "fdiv"])
def test_float_division(name, dtype):
    rng = np.random.default_rng(3)
    a, b = random_array(rng, SHAPE, dtype), random_array(rng, SHAPE, dtype)
    _check(name, [a, b], _tile(dtype), exact=np.dtype(dtype) != np.float64 or name != "rem")


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint32, np.int64, np.uint64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["and", "or", "xor", "shl", "shr", "umulhi"])
def test_bitwise(name, dtype):
    rng = np.random.default_rng(4)
    a = random_array(rng, SHAPE, dtype)
    b = random_array(rng, SHAPE, dtype)
    if name in ("shl", "shr"):
        bits = np.dtype(dtype).itemsize * 8
        b = rng.integers(0, bits + 4, size=SHAPE).astype(dtype)  # includes shifts past the width
    _check(name, [a, b], _tile(dtype))


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["minimum", "maximum"])
@pytest.mark.parametrize("nan", ["none", "all"])
def test_min_max(name, dtype, nan):
    rng = np.random.default_rng(5)
    a, b = random_array(rng, SHAPE, dtype), random_array(rng, SHAPE, dtype)
    if np.dtype(dtype).kind == "f":  # (the reference treats bfloat16 NaNs as propagate_nan='all')
        a[0, :3] = np.nan
        b[0, 1:4] = np.nan
    _check(name, [a, b], _tile(dtype), {"propagate_nan": nan})


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float16, np.int64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("predicate", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_cmp(predicate, dtype):
    rng = np.random.default_rng(6)
    a, b = random_array(rng, SHAPE, dtype), random_array(rng, SHAPE, dtype)
    b[:, ::3] = a[:, ::3]
    if np.dtype(dtype).kind == "f":
        a[0, 0] = np.nan
    _check("cmp", [a, b], _tile(np.bool_), {"predicate": predicate})


def test_select():
    rng = np.random.default_rng(7)
    cond = rng.random(SHAPE) < 0.5
    a, b = random_array(rng, SHAPE, np.float32), random_array(rng, SHAPE, np.float32)
    _check("select", [cond, a, b], _tile(np.float32))


CASTS = [(np.float32, np.int32), (np.float32, np.uint8), (np.float64, np.int64), (np.int32, np.float32),
         (np.uint32, np.float64), (np.int8, np.int64), (np.uint8, np.int32), (np.int64, np.int16),
         (np.float32, np.float16), (np.float16, np.float32), (np.float32, ml_dtypes.bfloat16),
         (ml_dtypes.bfloat16, np.float32), (np.float64, np.float32), (np.float32, np.bool_), (np.int32, np.bool_),
         (np.bool_, np.int32), (np.bool_, np.float32), (np.float16, ml_dtypes.bfloat16), (np.int32, np.float16)]


@pytest.mark.parametrize("src,dst", CASTS, ids=lambda d: np.dtype(d).name)
def test_cast(src, dst):
    rng = np.random.default_rng(8)
    x = random_array(rng, SHAPE, src)
    if np.dtype(src).kind == "f" and np.dtype(dst).kind == "u":
        x = np.abs(x)
    _check("cast", [x], _tile(dst))


def _toward_zero(x: np.ndarray, dtype) -> np.ndarray:
    """Round-toward-zero conversion computed independently: the nearest value, stepped one ulp
    toward zero where it overshot."""
    near = x.astype(dtype)
    over = np.abs(near.astype(np.float64)) > np.abs(x.astype(np.float64))
    if np.dtype(dtype) == ml_dtypes.bfloat16:
        truncated = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(dtype)
        return np.where(over, truncated, near)
    return np.where(over, np.nextafter(near, np.zeros_like(near)), near)


@pytest.mark.parametrize("src,dst", [(np.float32, np.float16), (np.float32, ml_dtypes.bfloat16),
                                     (np.float64, np.float32)], ids=lambda d: np.dtype(d).name)
def test_cast_round_toward_zero(src, dst):
    rng = np.random.default_rng(9)
    x = random_array(rng, SHAPE, src)
    got = run_op("cast", [x], [_tile(dst)], {"rounding": "rtz"})[0]
    want = _toward_zero(x, dst)
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    assert np.all(np.abs(got.astype(np.float64)) <= np.abs(x.astype(np.float64)))


@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.int32, np.float32), (np.float16, np.int16),
                                     (np.float64, np.uint64)], ids=lambda d: np.dtype(d).name)
def test_bitcast(src, dst):
    rng = np.random.default_rng(10)
    _check("bitcast", [random_array(rng, SHAPE, src)], _tile(dst))


MATH = ["exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "sqrt_rn", "rsqrt", "erf", "floor", "ceil"]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", MATH)
def test_math(name, dtype):
    rng = np.random.default_rng(11)
    x = random_array(rng, SHAPE, dtype)
    if name in ("log", "log2", "sqrt", "sqrt_rn", "rsqrt"):
        x = np.abs(x) + np.asarray(0.5, dtype)
    exact = name in ("floor", "ceil", "sqrt", "sqrt_rn")
    half = np.dtype(dtype).itemsize == 2
    _check(name, [x], _tile(dtype), exact=exact, rtol=1e-2 if half else 2e-6)


def test_exp_special_values():
    x = np.array([[0.0, 1.0, -1.0, 88.7, 89.0, -87.0, -100.0, -104.5, np.inf, -np.inf, np.nan, 1e-8, 20.5,
                   -20.5, 0.693147, 10.0]], dtype=np.float32)
    got = run_op("exp", [x], [_tile(np.float32, x.shape)])[0]
    want = np.exp(x.astype(np.float64))
    finite = (want < 3.4e38) & (want > 1e-37)
    np.testing.assert_allclose(got[finite], want[finite], rtol=3e-7)
    assert got[0, 4] == np.inf and got[0, 8] == np.inf and got[0, 9] == 0 and np.isnan(got[0, 10])
    assert 0 < got[0, 6] < 1e-38 and got[0, 7] == 0.0


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["neg", "abs"])
def test_unary(name, dtype):
    rng = np.random.default_rng(12)
    _check(name, [random_array(rng, SHAPE, dtype)], _tile(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_not(dtype):
    rng = np.random.default_rng(13)
    _check("not", [random_array(rng, SHAPE, dtype)], _tile(dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_fma(dtype):
    rng = np.random.default_rng(14)
    a, b, c = (random_array(rng, SHAPE, dtype) for _ in range(3))
    _check("fma", [a, b, c], _tile(dtype), exact=np.dtype(dtype) == np.float32)


@pytest.mark.parametrize("nan", ["none", "all"])
def test_clamp(nan):
    rng = np.random.default_rng(15)
    x = random_array(rng, SHAPE, np.float32)
    x[0, 0] = np.nan
    lo = np.full(SHAPE, -1.0, np.float32)
    hi = np.full(SHAPE, 2.0, np.float32)
    _check("clamp", [x, lo, hi], _tile(np.float32), {"propagate_nan": nan})


def test_scalar_ops():
    """Scalars (not tiles) take the same lowerings."""
    for name, a, b in [("add", np.int32(-5), np.int32(9)), ("div", np.int32(-7), np.int32(2)),
                       ("mul", np.float32(1.5), np.float32(-2.25)), ("shr", np.int64(-64), np.int64(3))]:
        got = run_op(name, [a, b], [T.from_numpy(np.asarray(a).dtype)])[0]
        want = reference(name, [a, b], [T.from_numpy(np.asarray(a).dtype)])[0]
        assert got == want, name
