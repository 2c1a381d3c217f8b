"""The fuzzer's numpy reference: each operation's value and a bound on its error.

A reference value is a pair ``(value, err)``: ``value`` a numpy array of the operation's dtype
(shape ``(G, BM|1, BN|1)``: every program of the grid at once), ``err`` a float64 array bounding
``|target's result - value|`` elementwise.  Integers are exact (``err == 0``).  A float operation
adds its own rounding (``u * |r|``, ``u`` the dtype's unit roundoff; several for math functions
and division, which GPUs approximate) to the errors its operands bring, propagated by first-order
rules.  An ``err`` of ``inf`` means "not comparable" (the value may have overflowed, or a NaN's
place is implementation-defined): such elements are skipped.

Nothing here calls ``kernellab``: the semantics are :mod:`.dtypes`' own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .dtypes import BOOL, FP8, MAX_FINITE, NUMPY, SMALLEST_NORMAL, UNIT_ROUNDOFF, cast, is_float, is_signed, to_fp8

Ref = tuple[np.ndarray, np.ndarray]

MATH_ULPS = 4.0  # per math function and division (GPUs' approximations are within a few ulps)


def zero_err(value: np.ndarray) -> np.ndarray:
    return np.zeros(np.shape(value), np.float64)


def magnitude(value: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(np.asarray(value, dtype=np.float64))


def finish(value: np.ndarray, err: np.ndarray, dtype: str) -> Ref:
    """Mark as not comparable what may have overflowed or is NaN with an error."""
    if not is_float(dtype):
        return value, zero_err(value)
    size = magnitude(value)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.nan_to_num(np.asarray(err, np.float64), nan=np.inf)
        risky = (err > 0) & (~np.isfinite(size) | (size + err >= MAX_FINITE[dtype]))
    return value, np.where(risky, np.inf, err)


def reassociable(err: np.ndarray, magnitude_sum: np.ndarray, dtype: str) -> np.ndarray:
    """``err``, infinite where a sum whose terms' magnitudes add up to ``magnitude_sum`` may
    overflow in ``dtype`` in some order of its additions: a target may add in another order
    than the reference (a tree of shuffles, a parallel scan), and a partial sum of such terms can
    pass the type's largest finite value although the reference's sum (or prefix) does not."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(magnitude_sum >= MAX_FINITE[dtype], np.inf, err)


def rounding(value: np.ndarray, dtype: str, ulps: float = 1.0) -> np.ndarray:
    if not is_float(dtype):
        return zero_err(value)
    return ulps * UNIT_ROUNDOFF[dtype] * magnitude(value)


def convert(ref: Ref, source: str, target: str) -> Ref:
    value, err = ref
    if source == target:
        return ref
    out = cast(value, source, target)
    if not is_float(target):
        return out, zero_err(out)
    with np.errstate(invalid="ignore", over="ignore"):
        if target in FP8:  # one rounding, the same on every target: exact from an exact value
            return finish(out, np.where(err > 0, err + rounding(out, target), 0.0), target)
        return finish(out, err + rounding(out, target), target)


# ---- elementwise ----

def _int_divide(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """C's truncating quotient and remainder, for ``b >= 1``."""
    q = a // b
    r = a - q * b
    fix = (r != 0) & (a < 0) if a.dtype.kind == "i" else np.zeros(a.shape, bool)
    q = np.where(fix, q + a.dtype.type(1), q).astype(a.dtype)
    r = np.where(fix, r - b, r).astype(a.dtype)
    return q, r


def _denominator(b: np.ndarray) -> np.ndarray:
    """``(b & 7) + 1`` in b's dtype: the generator's divisors (1..8, never 0 or -1)."""
    return ((b & b.dtype.type(7)) + b.dtype.type(1)).astype(b.dtype)


def _shift_amount(b: np.ndarray) -> np.ndarray:
    return (b & b.dtype.type(7)).astype(b.dtype)


INT_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "max": np.maximum, "min": np.minimum,
    "floordiv": lambda a, b: _int_divide(a, _denominator(b))[0],
    "mod": lambda a, b: _int_divide(a, _denominator(b))[1],
    "shl": lambda a, b: np.left_shift(a, _shift_amount(b)),
    "shr": lambda a, b: np.right_shift(a, _shift_amount(b)),
}

COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "eq": np.equal, "ne": np.not_equal,
}

BOOL_BINARY = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def binary(op: str, a: Ref, b: Ref, dtype: str) -> Ref:
    """``a op b`` with both operands already converted to ``dtype``."""
    (va, ea), (vb, eb) = a, b
    if dtype in FP8:  # computed on the values widened to f32 (exactly)
        va, vb = va.astype(np.float32), vb.astype(np.float32)
    with np.errstate(all="ignore"):
        if op in COMPARE:
            out = COMPARE[op](va, vb)
            return out, zero_err(out)
        if dtype == BOOL:
            out = BOOL_BINARY[op](va, vb)
            return out, zero_err(out)
        if not is_float(dtype):
            out = INT_BINARY[op](va, vb).astype(NUMPY[dtype])
            return out, zero_err(out)
        if dtype in FP8:
            return _fp8_binary(op, va, ea, vb, eb, dtype)
        return _float_binary(op, va, ea, vb, eb, dtype)


def _fp8_binary(op: str, va, ea, vb, eb, dtype: str) -> Ref:
    """An fp8 op on operands widened to f32: computed in f32, rounded back to ``dtype`` (nearest
    even, saturating).  From exact operands, + - * max min are exact (IEEE f32, then one rounding),
    NaN included (but which operand maximum/minimum return beside a NaN is not defined)."""
    wide, wide_err = _float_binary(op, va, ea, vb, eb, "float32")
    out = to_fp8(wide, dtype)
    exact = (ea == 0) & (eb == 0) & (op != "div")  # a target's f32 division may be approximate
    if op in ("max", "min"):
        exact = exact & np.isfinite(wide_err)
    return finish(out, np.where(exact, 0.0, wide_err + rounding(out, dtype)), dtype)


def _float_binary(op: str, va, ea, vb, eb, dtype: str) -> Ref:
    ma, mb = magnitude(va), magnitude(vb)
    if op in ("max", "min"):
        out = (np.fmax if op == "max" else np.fmin)(va, vb)
        nan = np.isnan(ma) | np.isnan(mb)  # which one a target returns is implementation-defined
        return finish(out, np.where(nan, np.inf, np.maximum(ea, eb)), dtype)
    if op == "add":
        out = va + vb
        return finish(out, ea + eb + rounding(out, dtype), dtype)
    if op == "sub":
        out = va - vb
        return finish(out, ea + eb + rounding(out, dtype), dtype)
    if op == "mul":
        out = va * vb
        return finish(out, ma * eb + mb * ea + ea * eb + rounding(out, dtype), dtype)
    if op == "div":
        out = va / vb
        mo = magnitude(out)
        safe = mb > 2 * eb
        err = np.where(safe, (ea + mo * eb) / np.where(safe, mb - eb, 1.0), np.inf)
        return finish(out, err + rounding(out, dtype, MATH_ULPS), dtype)
    raise ValueError(f"no float reference for {op}")


def unary(op: str, a: Ref, dtype: str) -> Ref:
    value, err = a
    if dtype in FP8:  # -x and |x| are exact: the sign flipped or cleared
        out, out_err = unary(op, (value.astype(np.float32), err), "float32")
        return out.astype(NUMPY[dtype]), out_err
    with np.errstate(all="ignore"):
        if op == "neg":
            return finish((-value).astype(NUMPY[dtype]), err, dtype)
        if op == "abs":
            out = np.abs(value) if is_float(dtype) or is_signed(dtype) else value
            return finish(out.astype(NUMPY[dtype]), err, dtype)
        if op == "invert":
            return ~value, zero_err(value)
        if op == "not":
            return ~value, zero_err(value)
        return _math(op, value, err, dtype)


def _math(op: str, value, err, dtype: str) -> Ref:
    wide = np.asarray(value, np.float64)
    size = np.abs(wide)
    u = UNIT_ROUNDOFF[dtype]
    if op == "exp":
        out = np.exp(wide)
        grow = np.expm1(np.minimum(err + u * size, 700.0))  # the input's error and exp2's argument scaling
        bound = np.abs(out) * (grow + MATH_ULPS * u)
    elif op in ("sin", "cos"):
        out = np.sin(wide) if op == "sin" else np.cos(wide)
        bound = err + MATH_ULPS * u * np.maximum(1.0, size)
    elif op == "sqrt":  # of |x|
        out = np.sqrt(size)
        bound = np.minimum(np.where(out > 0, err / np.where(out > 0, 2 * out, 1.0), np.inf), np.sqrt(err))
        bound = bound + MATH_ULPS * u * out
    else:
        raise ValueError(f"no reference for {op}")
    rounded = out.astype(NUMPY[dtype])
    return finish(rounded, bound + rounding(rounded, dtype), dtype)


def where(cond: Ref, a: Ref, b: Ref) -> Ref:
    return np.where(cond[0], a[0], b[0]), np.where(cond[0], a[1], b[1])


# ---- reductions, scans, dots (numpy axes 1 and 2 are the tile's axes 0 and 1) ----

def reduce(op: str, a: Ref, axes: tuple[int, ...], dtype: str) -> Ref:
    value, err = a
    count = int(np.prod([value.shape[k] for k in axes]))
    with np.errstate(all="ignore"):
        if op == "sum":
            out = np.sum(value, axis=axes, keepdims=True, dtype=NUMPY[dtype])
            if not is_float(dtype):
                return out, zero_err(out)
            total = np.sum(magnitude(value), axis=axes, keepdims=True)
            bound = np.sum(err, axis=axes, keepdims=True) + count * UNIT_ROUNDOFF[dtype] * total
            return finish(out, reassociable(bound, total, dtype), dtype)
        pick = np.fmax if op == "max" else np.fmin
        out = pick.reduce(value, axis=axes, keepdims=True)
        if not is_float(dtype):
            return out, zero_err(out)
        nan = np.any(np.isnan(magnitude(value)), axis=axes, keepdims=True)
        return finish(out, np.where(nan, np.inf, np.max(err, axis=axes, keepdims=True)), dtype)


def cumsum(a: Ref, axis: int, reverse: bool, dtype: str) -> Ref:
    value, err = a
    if reverse:
        value, err = np.flip(value, axis), np.flip(err, axis)
    with np.errstate(all="ignore"):
        out = np.cumsum(value, axis=axis, dtype=NUMPY[dtype])
        if is_float(dtype):
            count = value.shape[axis]
            prefix = np.cumsum(magnitude(value), axis=axis)
            bound = reassociable(np.cumsum(err, axis=axis) + count * UNIT_ROUNDOFF[dtype] * prefix, prefix, dtype)
        else:
            bound = zero_err(out)
    if reverse:
        out, bound = np.flip(out, axis), np.flip(bound, axis)
    return finish(np.ascontiguousarray(out), np.ascontiguousarray(bound), dtype)


def dot(a: Ref, w: np.ndarray, out_dtype: str) -> Ref:
    """``a @ w`` per program (``a``: (G, BM, K), ``w``: (K, N)), accumulated in ``out_dtype``."""
    value, err = a
    if not is_float(out_dtype):
        out = np.matmul(value.astype(np.int64), w.astype(np.int64)).astype(NUMPY[out_dtype])
        return out, zero_err(out)
    wide_a, wide_w = np.asarray(value, np.float64), np.asarray(w, np.float64)
    with np.errstate(all="ignore"):
        out = np.matmul(wide_a, wide_w).astype(NUMPY[out_dtype])
        k = wide_w.shape[0]
        bound = np.matmul(err, np.abs(wide_w)) + \
            (k + 1) * UNIT_ROUNDOFF[out_dtype] * np.matmul(np.abs(wide_a), np.abs(wide_w))
    return finish(out, bound, out_dtype)


def atomic(op: str, initial: np.ndarray, contributions: Ref, dtype: str) -> Ref:
    """``initial`` combined with every program's contribution (axis 0), in any order."""
    value, err = contributions
    with np.errstate(all="ignore"):
        if op == "add":
            out = (initial + np.sum(value, axis=0, dtype=NUMPY[dtype])).astype(NUMPY[dtype])
            if not is_float(dtype):
                return out, zero_err(out)
            count = value.shape[0] + 1
            bound = np.sum(err, axis=0) + count * UNIT_ROUNDOFF[dtype] * \
                (magnitude(initial) + np.sum(magnitude(value), axis=0))
            return finish(out, bound, dtype)
        pick = {"max": np.fmax, "min": np.fmin, "and": np.bitwise_and, "or": np.bitwise_or,
                "xor": np.bitwise_xor}[op]
        out = pick(initial, pick.reduce(value, axis=0)).astype(NUMPY[dtype])
        bound = np.max(err, axis=0) if is_float(dtype) else zero_err(out)
        return finish(out, bound, dtype) if is_float(dtype) else (out, bound)


def agrees(got: np.ndarray, want: np.ndarray, err: np.ndarray, dtype: str) -> np.ndarray:
    """Elementwise: whether a target's ``got`` is within the reference's bound."""
    if not is_float(dtype):
        return got == want
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        slack = 2.0 * err + 4.0 * UNIT_ROUNDOFF[dtype] * np.abs(w) + 4.0 * SMALLEST_NORMAL[dtype]
        close = np.abs(g - w) <= slack
    return same | close | np.isinf(err)

