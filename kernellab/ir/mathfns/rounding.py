"""Arithmetic in a chosen IEEE rounding mode (``add_rz``, ``sqrt_ru``...), conversions between
floats and integers in a rounding mode (``float2int_rd``, ``ll2float_ru``...) and bit casts
(``float_as_int``...), with libdevice's names and signatures.

The references are exact: the operation is done on Python ``Fraction``s and rounded once
(``refs.round_exact``), so they are the IEEE definition itself, independent of any float
hardware (and slow: the interpreter computes these a few microseconds per element)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from . import FLOAT2, FLOAT3, math_function, refs
from .refs import MODES, round_exact

if TYPE_CHECKING:  # pragma: no cover
    from fractions import Fraction

_MODE_WORDS = {"rn": "to nearest even", "rz": "toward zero", "rd": "down (toward -inf)", "ru": "up (toward +inf)"}
_ROUND_TO_INT = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}
INT_TYPES = {"i32": (32, True), "u32": (32, False), "i64": (64, True), "u64": (64, False)}  # bits, signed
_NUMPY = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "u32": np.uint32, "i64": np.int64,
          "u64": np.uint64}


def _negative(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def _sqrt_fraction(a: Fraction) -> tuple[Fraction, int]:
    """sqrt(a) as a rational just below it (sticky +1) or exactly (sticky 0)."""
    from fractions import Fraction

    radicand = a.numerator * a.denominator
    k = max(0, 100 - radicand.bit_length() // 2)
    scaled = radicand << (2 * k)
    root = math.isqrt(scaled)
    return Fraction(root, a.denominator << k), (0 if root * root == scaled else 1)


def _exact_value(op: str, values: list[float]) -> tuple[Fraction, int] | None:
    """The exact result (and a sticky sign for irrational ones); None where IEEE's special
    cases decide (non-finite operands, division by zero, square roots of negatives, zeros)."""
    from fractions import Fraction

    if not all(math.isfinite(v) for v in values):
        return None
    f = [Fraction(v) for v in values]
    if op in ("div", "rcp") and values[-1] == 0:
        return None
    if op in ("sqrt", "rsqrt") and values[0] <= 0:
        return None
    exact = {"add": lambda: f[0] + f[1], "sub": lambda: f[0] - f[1], "mul": lambda: f[0] * f[1],
             "fma": lambda: f[0] * f[1] + f[2], "div": lambda: f[0] / f[1], "rcp": lambda: 1 / f[0]}
    if op in exact:
        return exact[op](), 0
    root, sticky = _sqrt_fraction(f[0])
    if op == "sqrt":
        return root, sticky
    if sticky == 0:
        return 1 / root, 0
    return 1 / root, -1  # the true root is a little above `root`: its reciprocal a little below 1 / root


def _special(op: str, values: list[float], dtype) -> float:
    """IEEE's result where the rounding mode cannot matter (computed by numpy in ``dtype``)."""
    v = [dtype(x) for x in values]
    with np.errstate(all="ignore"):
        result = {"add": lambda: v[0] + v[1], "sub": lambda: v[0] - v[1], "mul": lambda: v[0] * v[1],
                  "fma": lambda: np.float64(v[0]) * np.float64(v[1]) + np.float64(v[2]),
                  "div": lambda: v[0] / v[1], "rcp": lambda: dtype(1) / v[0], "sqrt": lambda: np.sqrt(v[0]),
                  "rsqrt": lambda: dtype(1) / np.sqrt(v[0])}[op]()
    return float(result)


def _zero_sign(op: str, values: list[float], mode: str) -> bool:
    """Whether an exact zero result is -0: a product takes its operands' signs; a zero sum is
    -0 when both addends are -0, or in rounding mode down (IEEE 754 6.3)."""
    signs = [_negative(v) for v in values]
    if op in ("mul", "div"):
        return signs[0] != signs[1]
    if op == "fma":
        addends = [(values[0] * values[1], signs[0] != signs[1]), (values[2], signs[2])]
    else:
        addends = [(values[0], signs[0]), (values[1], signs[1] != (op == "sub"))]
    if all(value == 0 for value, _ in addends) and addends[0][1] == addends[1][1]:
        return addends[0][1]
    return mode == "rd"


def _arith_reference(op: str, mode: str) -> Callable:
    def scalar(dtype, *values: float) -> float:
        found = _exact_value(op, list(values))
        if found is None:
            return _special(op, list(values), dtype)
        value, sticky = found
        if value == 0 and sticky == 0:
            return -0.0 if _zero_sign(op, list(values), mode) else 0.0
        return round_exact(value, dtype, mode, sticky)

    def run(*args):
        dtype = np.asarray(args[0]).dtype.type
        arrays = np.broadcast_arrays(*(np.asarray(a) for a in args))
        out = np.empty(arrays[0].shape, dtype)
        for index in np.ndindex(out.shape):
            out[index] = scalar(dtype, *(float(a[index]) for a in arrays))
        return out
    run.__name__ = f"{op}_{mode}"
    return run


def _to_float_reference(target: str, mode: str) -> Callable:
    """A float or an integer rounded to float type ``target`` in ``mode``."""
    dtype = _NUMPY[target]

    def scalar(x) -> float:
        from fractions import Fraction

        if isinstance(x, float) and not math.isfinite(x):
            return x
        if x == 0:
            return float(x)  # keeps -0.0
        return round_exact(Fraction(x), dtype, mode)

    def run(x):
        x = np.asarray(x)
        out = np.empty(x.shape, dtype)
        for index in np.ndindex(x.shape):
            out[index] = scalar(x[index].item())
        return out
    return run


def _to_int_reference(source: str, target: str, mode: str) -> Callable:
    """A float rounded in ``mode`` to an integer of ``target``, saturating, NaN as the GPU's
    ``cvt`` (``refs.cvt_nan``); unsigned results are returned as the signed type's bits, as
    Triton's table."""
    bits, signed = INT_TYPES[target]
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2 ** bits - 1)
    nan = refs.cvt_nan(source, bits) if signed else refs.cvt_nan(source, bits) % (1 << bits)

    def run(x):
        x = np.asarray(x, np.float64)
        out = np.zeros(x.shape, np.dtype(f"{'i' if signed else 'u'}{bits // 8}"))
        rounded = _ROUND_TO_INT[mode](x)
        for index in np.ndindex(x.shape):
            value = rounded[index]
            if math.isnan(value):
                out[index] = nan
            else:
                out[index] = low if value <= low else high if value >= high else int(value)
        return out if signed else out.view(np.dtype(f"i{bits // 8}"))
    return run


def _bits_as(source, target) -> Callable:
    def run(x):
        return np.asarray(x).astype(source, copy=False).view(target)
    return run


def _hiloint2double(hi, lo):
    hi, lo = np.broadcast_arrays(np.asarray(hi).view(np.uint32).astype(np.uint64),
                                 np.asarray(lo).view(np.uint32).astype(np.uint64))
    return ((hi << np.uint64(32)) | lo).view(np.float64)


def _word(shift: int) -> Callable:
    def run(x):
        bits = np.asarray(x, np.float64).view(np.uint64)
        return ((bits >> np.uint64(shift)) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    return run


# ---- arithmetic in a rounding mode ----------------------------------------------------------------

for _mode in MODES:
    _words = _MODE_WORDS[_mode]
    math_function(f"add_{_mode}", _arith_reference("add", _mode), f"x + y rounded {_words}", signatures=FLOAT2,
                  expand=True, nv=f"{{fd}}add_{_mode}")
    math_function(f"sub_{_mode}", _arith_reference("sub", _mode), f"x - y rounded {_words}", signatures=FLOAT2,
                  expand=True, nv=f"{{fd}}sub_{_mode}")
    math_function(f"mul_{_mode}", _arith_reference("mul", _mode), f"x * y rounded {_words}", signatures=FLOAT2,
                  expand=True, nv=f"{{fd}}mul_{_mode}")
    math_function(f"fma_{_mode}", refs.fma if _mode == "rn" else _arith_reference("fma", _mode),
                  f"x * y + z rounded once {_words}",
                  signatures=FLOAT3, expand=True, nv=f"fma{{f}}_{_mode}")
    math_function(f"rcp_{_mode}", _arith_reference("rcp", _mode), f"1 / x rounded {_words}", expand=True,
                  nv=f"{{fd}}rcp_{_mode}")
    if _mode != "rn":  # div_rn is tl.math.div_rn; sqrt_rn is declared in core
        math_function(f"div_{_mode}", _arith_reference("div", _mode), f"x / y rounded {_words}",
                      signatures=FLOAT2, expand=True, nv=f"{{fd}}div_{_mode}")
        math_function(f"sqrt_{_mode}", _arith_reference("sqrt", _mode), f"sqrt(x) rounded {_words}",
                      expand=True, nv=f"{{fd}}sqrt_{_mode}")
math_function("rsqrt_rn", _arith_reference("rsqrt", "rn"), "1 / sqrt(x) rounded to nearest even",
              signatures=(("f32",),), expand=True, nv="frsqrt_rn")

# ---- conversions in a rounding mode -----------------------------------------------------------

# stem: (argument type, the integer it rounds to, the result type: Triton returns an unsigned
# value's bits as the signed type)
FLOAT_TO_INT = {"float2int": ("f32", "i32", "i32"), "float2uint": ("f32", "u32", "i32"),
                "double2int": ("f64", "i32", "i32"), "double2uint": ("f64", "u32", "i32"),
                "float2ll": ("f32", "i64", "i64"), "float2ull": ("f32", "u64", "i64"),
                "double2ll": ("f64", "i64", "i64"), "double2ull": ("f64", "u64", "i64")}
TO_FLOAT = {"double2float": ("f64", "f32"), "int2float": ("i32", "f32"), "uint2float": ("u32", "f32"),
            "ll2float": ("i64", "f32"), "ull2float": ("u64", "f32"), "ll2double": ("i64", "f64"),
            "ull2double": ("u64", "f64")}

for _mode in MODES:
    _words = _MODE_WORDS[_mode]
    for _stem, (_source, _integer, _result) in FLOAT_TO_INT.items():
        _unsigned = " (an unsigned value's bits)" if _integer != _result else ""
        _nan = "0" if refs.cvt_nan(_source, INT_TYPES[_integer][0]) == 0 else "the top bit alone"
        math_function(f"{_stem}_{_mode}", _to_int_reference(_source, _integer, _mode),
                      f"x rounded {_words} to {_integer}, saturating (NaN gives {_nan}, as the GPU's cvt){_unsigned}",
                      signatures={(_source,): _result}, expand=True, nv=f"{_stem}_{_mode}")
    for _stem, (_source, _target) in TO_FLOAT.items():
        math_function(f"{_stem}_{_mode}", _to_float_reference(_target, _mode), f"x as {_target} rounded {_words}",
                      signatures={(_source,): _target}, expand=True, nv=f"{_stem}_{_mode}")
math_function("int2double_rn", lambda x: np.asarray(x, np.float64), "x as f64 (exact)",
              signatures={("i32",): "f64"}, expand=True, nv="int2double_rn")
math_function("uint2double_rn", lambda x: np.asarray(x, np.float64), "x as f64 (exact)",
              signatures={("u32",): "f64"}, expand=True, nv="uint2double_rn")

# ---- bit casts ----------------------------------------------------------------------------------

for _name, _source, _target, _result in [("float_as_int", "f32", "i32", "i32"), ("float_as_uint", "f32", "i32", "i32"),
                                         ("int_as_float", "i32", "f32", "f32"), ("uint_as_float", "u32", "f32", "f32"),
                                         ("double_as_longlong", "f64", "i64", "i64"),
                                         ("longlong_as_double", "i64", "f64", "f64")]:
    math_function(_name, _bits_as(_NUMPY[_source], _NUMPY[_target]), f"the bits of x as {_target}",
                  signatures={(_source,): _result}, expand=True, nv=_name)
math_function("hiloint2double", _hiloint2double, "the f64 whose high word is x and low word y",
              signatures={("i32", "i32"): "f64"}, expand=True, nv="hiloint2double")
math_function("double2hiint", _word(32), "the high 32 bits of x", signatures={("f64",): "i32"}, expand=True,
              nv="double2hiint")
math_function("double2loint", _word(0), "the low 32 bits of x", signatures={("f64",): "i32"}, expand=True,
              nv="double2loint")
