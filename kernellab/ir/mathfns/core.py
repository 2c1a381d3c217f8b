"""Elementary functions, rounding to integers, classification and libdevice's fast variants."""

from __future__ import annotations

import math

import numpy as np

from . import FLOAT, FLOAT2, FLOAT3, FLOAT_32, math_function
from .refs import cvt_nan, elementwise, wide

_TL = ("math", "libdevice")
_TO_I32 = {("f32",): "i32", ("f64",): "i32"}
FLOAT4 = (("f32",) * 4, ("f64",) * 4)


# ---- references numpy does not spell directly ------------------------------------------------------

def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _pow(x, y):
    return np.power(x, np.asarray(y).astype(np.asarray(x).dtype))


def _round_half_away(x):
    """C's ``round``: halfway cases away from zero (``x - trunc(x)`` is exact)."""
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.copysign(1.0, x), whole).astype(x.dtype)


def _saturating_i64(x):
    """An integral float as int64, clamped to int64's range; NaN is INT64_MIN (the GPU's ``cvt``
    to a 64-bit integer, ``refs.cvt_nan``)."""
    x = np.asarray(x, np.float64)
    top = 2.0 ** 63
    safe = np.where(np.isnan(x) | (np.abs(x) >= top), 0.0, x).astype(np.int64)
    safe = np.where(x >= top, np.iinfo(np.int64).max, safe)
    return np.where((x <= -top) | np.isnan(x), cvt_nan("f64", 64), safe)


def _remainder(x: float, y: float) -> float:
    """IEEE remainder (``x - n*y`` with ``n`` the nearest integer to ``x/y``, ties even)."""
    try:
        return math.remainder(x, y)
    except ValueError:
        return math.nan


def _fdim(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0)).astype(x.dtype)


def _frexp_exponent(x):
    return np.frexp(x)[1].astype(np.int64) - 1


def _ilogb(x):
    """The unbiased exponent; INT_MIN for 0 and NaN, INT_MAX for infinities (C99 / CUDA)."""
    x = np.asarray(x)
    out = np.where(np.isfinite(x) & (x != 0), _frexp_exponent(np.where(np.isfinite(x), x, 1)), 0)
    out = np.where((x == 0) | np.isnan(x), np.iinfo(np.int32).min, out)
    return np.where(np.isinf(x), np.iinfo(np.int32).max, out).astype(np.int32)


def _logb(x):
    x = np.asarray(x)
    finite = np.isfinite(x) & (x != 0)
    exponent = _frexp_exponent(np.where(finite, x, 1)).astype(x.dtype)
    return np.where(finite, exponent, np.where(x == 0, -np.inf, np.abs(x))).astype(x.dtype)


def _norm(*xs):
    """sqrt of the sum of squares, scaled by the largest magnitude (no overflow or underflow)."""
    big = np.max(np.abs(np.stack(np.broadcast_arrays(*xs))), axis=0)
    scale = np.where((big == 0) | ~np.isfinite(big), 1.0, big)
    total = sum((np.asarray(x) / scale) ** 2 for x in xs)
    out = scale * np.sqrt(total)
    return np.where(np.isinf(big), np.inf, out)


def _sinpi_cospi(x, want_cos: bool):
    """sin(pi x) / cos(pi x) with the exact reduction x = n/2 + t, |t| <= 1/4."""
    x = np.asarray(x, np.float64)
    reduced = np.where(np.abs(x) < 2.0 ** 53, x, 0)  # beyond: even integers
    n = np.rint(2 * np.where(np.isfinite(x), reduced, 0))
    t = np.where(np.isfinite(x), reduced - n / 2, np.nan)
    quadrant = np.mod(n + (1 if want_cos else 0), 4)
    s, c = np.sin(np.pi * t), np.cos(np.pi * t)
    out = np.select([quadrant == 0, quadrant == 1, quadrant == 2], [s, c, -s], -c)
    return np.where(out == 0, 0.0 if want_cos else np.copysign(0.0, x), out)


def _saturate(x):
    """x clamped to [+0, 1]: NaN and -0 give +0 (libdevice's __nv_saturatef, PTX's .sat)."""
    return np.where(x > 0, np.minimum(x, 1), 0).astype(x.dtype)


def _classify(test):
    def run(x):
        return test(np.asarray(x)).astype(np.int32)
    run.__name__ = test.__name__
    return run


# ---- tl.math (and libdevice) ------------------------------------------------------------------

math_function("exp", np.exp, "e ** x", intrinsic="exp", c_name="exp", modules=_TL)
math_function("exp2", np.exp2, "2 ** x", intrinsic="exp2", c_name="exp2", modules=_TL)
math_function("log", np.log, "the natural logarithm", intrinsic="log", c_name="log", modules=_TL)
math_function("log2", np.log2, "the base-2 logarithm", intrinsic="log2", c_name="log2", modules=_TL)
math_function("sin", np.sin, "the sine", intrinsic="sin", c_name="sin", modules=_TL)
math_function("cos", np.cos, "the cosine", intrinsic="cos", c_name="cos", modules=_TL)
math_function("sqrt", np.sqrt, "the square root (may be approximate)", intrinsic="sqrt", c_name="sqrt",
              modules=_TL)
math_function("sqrt_rn", np.sqrt, "the square root rounded to nearest (IEEE)", intrinsic="sqrt",
              nv="{fd}sqrt_rn")  # tl.math.sqrt_rn is this function for fp32 only (language/math.py)
math_function("rsqrt", _rsqrt, "the reciprocal square root", c_name="rsqrt", modules=_TL)
math_function("floor", np.floor, "the largest integral value <= x", intrinsic="floor", modules=_TL)
math_function("ceil", np.ceil, "the smallest integral value >= x", intrinsic="ceil", modules=_TL)

# ---- elementary functions (libm on the host, libdevice on CUDA) -------------------------------------

for _name, _ref, _doc in [
        ("tan", np.tan, "the tangent"), ("sinh", np.sinh, "the hyperbolic sine"),
        ("cosh", np.cosh, "the hyperbolic cosine"), ("tanh", np.tanh, "the hyperbolic tangent"),
        ("atan", np.arctan, "the arc tangent"), ("asin", np.arcsin, "the arc sine"),
        ("acos", np.arccos, "the arc cosine"), ("asinh", np.arcsinh, "the inverse hyperbolic sine"),
        ("acosh", np.arccosh, "the inverse hyperbolic cosine"), ("atanh", np.arctanh, "the inverse hyperbolic tangent"),
        ("log10", np.log10, "the base-10 logarithm"), ("exp10", lambda x: np.power(10.0, x), "10 ** x"),
        ("log1p", np.log1p, "log(1 + x), accurate near 0"), ("expm1", np.expm1, "e ** x - 1, accurate near 0"),
        ("cbrt", np.cbrt, "the cube root")]:
    math_function(_name, wide(_ref), _doc, c_name=_name)

for _name, _ref, _doc in [
        ("atan2", np.arctan2, "the arc tangent of x / y in the quadrant of (y, x)"),
        ("hypot", np.hypot, "sqrt(x*x + y*y) without overflow")]:
    math_function(_name, wide(_ref), _doc, signatures=FLOAT2, c_name=_name)

math_function("pow", wide(_pow), "x ** y (an i32 exponent is exact for |y| < 2**24)",
              signatures={("f32", "f32"): "f32", ("f64", "f64"): "f64", ("f32", "i32"): "f32", ("f64", "i32"): "f64"},
              c_name="pow", nv={("f32", "f32"): "powf", ("f64", "f64"): "pow", ("f32", "i32"): "powif",
                                ("f64", "i32"): "powi"})
math_function("fmod", np.fmod, "C's fmod: x - trunc(x / y) * y, exactly", signatures=FLOAT2, c_name="fmod")
math_function("remainder", elementwise(_remainder), "the IEEE remainder x - rint(x / y) * y, exactly",
              signatures=FLOAT2, c_name="remainder")
math_function("nextafter", np.nextafter, "the next representable value after x toward y", signatures=FLOAT2,
              c_name="nextafter")
math_function("copysign", np.copysign, "|x| with the sign of y", signatures=FLOAT2, intrinsic="copysign")
math_function("fdim", _fdim, "x - y if x > y, else +0", signatures=FLOAT2, c_name="fdim")
math_function("ldexp", np.ldexp, "x * 2 ** y", signatures=(("f32", "i32"), ("f64", "i32")), c_name="ldexp")
math_function("scalbn", np.ldexp, "x * 2 ** y", signatures=(("f32", "i32"), ("f64", "i32")), c_name="scalbn")
math_function("ilogb", _ilogb, "the unbiased exponent of x (INT_MIN for 0 and NaN, INT_MAX for inf)",
              signatures=_TO_I32, c_name="ilogb")
math_function("logb", _logb, "the unbiased exponent of x, as a float", c_name="logb")

math_function("rcbrt", wide(lambda x: 1 / np.cbrt(x)), "1 / cbrt(x)", expand=True)
math_function("rhypot", wide(lambda x, y: 1 / np.hypot(x, y)), "1 / hypot(x, y)", signatures=FLOAT2, expand=True)
math_function("norm3d", wide(_norm), "sqrt(x*x + y*y + z*z) without overflow", signatures=FLOAT3, expand=True)
math_function("rnorm3d", wide(lambda *xs: 1 / _norm(*xs)), "1 / norm3d(x, y, z)", signatures=FLOAT3, expand=True)
math_function("norm4d", wide(_norm), "sqrt(x*x + y*y + z*z + w*w) without overflow", signatures=FLOAT4, expand=True)
math_function("rnorm4d", wide(lambda *xs: 1 / _norm(*xs)), "1 / norm4d(x, y, z, w)", signatures=FLOAT4,
              expand=True)
math_function("sinpi", lambda x: _sinpi_cospi(x, False), "sin(pi * x), exact at integers", expand=True)
math_function("cospi", lambda x: _sinpi_cospi(x, True), "cos(pi * x), exact at half-integers", expand=True)
math_function("saturatef", _saturate, "x clamped to [+0, 1] (NaN and -0 give +0)", signatures=FLOAT_32, expand=True,
              nv="saturatef")
math_function("rcp64h", lambda x: 1 / np.asarray(x), "an approximate 1 / x (on CUDA: about 20 bits, from "
              "the high word of x)", signatures=(("f64",),), expand=True, nv="rcp64h")

# ---- rounding to integral values --------------------------------------------------------------------

math_function("trunc", np.trunc, "x rounded toward zero", intrinsic="trunc")
math_function("round", _round_half_away, "x rounded to the nearest integer, halfway cases away from zero",
              intrinsic="round")
math_function("rint", np.rint, "x rounded to the nearest integer, ties to even", intrinsic="rint")
math_function("nearbyint", np.rint, "x rounded to the nearest integer, ties to even", intrinsic="nearbyint")
math_function("llrint", lambda x: _saturating_i64(np.rint(x)), "rint(x) as an i64 (saturating, NaN gives INT64_MIN)",
              signatures=FLOAT, result="i64", expand=True, nv="llrint{f}")
math_function("llround", lambda x: _saturating_i64(_round_half_away(np.asarray(x))),
              "round(x) as an i64 (saturating, NaN gives INT64_MIN)", signatures=FLOAT, result="i64", expand=True)

# ---- classification (1 or 0 as an i32) ------------------------------------------------------------

math_function("isnan", _classify(np.isnan), "1 if x is NaN, else 0", signatures=_TO_I32, expand=True,
              nv="isnan{fd}")
math_function("isinf", _classify(np.isinf), "1 if x is infinite, else 0", signatures=_TO_I32, expand=True,
              nv="isinf{fd}")
math_function("signbit", _classify(np.signbit), "1 if x's sign bit is set (-0.0 too), else 0",
              signatures=_TO_I32, expand=True, nv="signbit{fd}")
math_function("finitef", _classify(np.isfinite), "1 if x is finite, else 0", signatures={("f32",): "i32"},
              expand=True, nv="finitef")
math_function("isfinited", _classify(np.isfinite), "1 if x is finite, else 0", signatures={("f64",): "i32"},
              expand=True, nv="isfinited")

# ---- fast approximations (the exact function on the host; approximate instructions on CUDA) --------

for _name, _ref, _c in [("fast_sinf", np.sin, "sin"), ("fast_cosf", np.cos, "cos"), ("fast_tanf", np.tan, "tan"),
                        ("fast_expf", np.exp, "exp"), ("fast_exp10f", lambda x: np.power(10.0, x), "exp10"),
                        ("fast_logf", np.log, "log"), ("fast_log2f", np.log2, "log2"),
                        ("fast_log10f", np.log10, "log10")]:
    math_function(_name, wide(_ref), f"{_c}(x); approximate on CUDA", signatures=FLOAT_32, c_name=_c, nv=_name)
math_function("fast_powf", wide(np.power), "pow(x, y); approximate on CUDA", signatures=(("f32", "f32"),),
              c_name="pow", nv="fast_powf")
math_function("fast_dividef", wide(np.divide), "x / y; approximate on CUDA", signatures=(("f32", "f32"),),
              expand=True, nv="fast_fdividef")
math_function("fast_tanhf", wide(np.tanh), "tanh(x); approximate on CUDA (tanh.approx)", signatures=FLOAT_32,
              c_name="tanh", nv=None)
