"""Elementwise ops: constants, arithmetic, comparisons, selection, conversions and math.

Operands of an elementwise op have one type (the semantics layer promotes and broadcasts
before it builds them); the numpy reference below is the definition of each op.  Integer
arithmetic wraps (two's complement); ``div``/``rem`` on integers truncate toward zero as in C;
``shr`` is arithmetic for signed and logical for unsigned types; floats follow IEEE 754.
"""

from __future__ import annotations

import numpy as np

from ..mathfns.refs import fma as exact_fma
from ..types import SATURATING_FP8, ScalarType, element_of
from .checks import all_of, element_is, is_float, is_integer, require, result_is_bool, same_shape, same_type
from .registry import COMMUTATIVE, ELEMENTWISE, PURE, SAME_TYPE, declare, is_float_dtype, numpy_dtype

EW = (PURE, ELEMENTWISE)


# ---- constants --------------------------------------------------------------------------------

def _constant(*, value, result_types):
    ty = result_types[0]
    dtype = numpy_dtype(ty)
    if hasattr(ty, "shape"):
        return np.full(ty.shape, value, dtype=dtype)
    return dtype.type(value)


def _verify_constant(op):
    element = element_of(op.result.type)
    value = op.attrs["value"]
    require(isinstance(element, ScalarType), f"constant of non-scalar element type {element.ir}", op)
    if element.is_int() and not element.is_bool():
        require(isinstance(value, (int, bool)) and element.get_int_min_value() <= value <= element.get_int_max_value(),
                f"constant {value!r} does not fit {element.ir}", op)


declare("constant", attrs=[("value", "number")], traits=EW, reference=_constant, wants_types=True,
        verify=_verify_constant, doc="A scalar, or a tile filled with one value.")


# ---- binary arithmetic ------------------------------------------------------------------------

def _int_div(a, b):
    """C division: truncate toward zero."""
    q = np.floor_divide(a, b)
    r = np.subtract(a, np.multiply(q, b))
    fix = (r != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return np.where(fix, q + 1, q).astype(q.dtype) if np.ndim(q) else (q + 1 if fix else q)


def _div(a, b):
    if np.asarray(a).dtype.kind in "iub":
        if np.asarray(a).dtype.kind == "u":
            return np.floor_divide(a, b)
        return _int_div(a, b)
    return np.true_divide(a, b)


def _rem(a, b):
    return np.fmod(a, b)


def _shl(a, b):
    bits = np.asarray(a).dtype.itemsize * 8
    out = np.left_shift(a, b)
    return np.where(np.asarray(b) >= bits, np.zeros_like(out), out) if np.ndim(out) else (
        out if b < bits else type(out)(0))


def _shr(a, b):
    return np.right_shift(a, b)


def _verify_integer_binary(op):
    same_type(op)
    element_is(is_integer, "integer")(op)


# name: (reference, commutative, integer only, doc)
_BINARY = {
    "add": (np.add, True, False, "a + b (wrapping for integers)"),
    "sub": (np.subtract, False, False, "a - b"),
    "mul": (np.multiply, True, False, "a * b"),
    "div": (_div, False, False, "floats: a / b; integers: quotient truncated toward zero"),
    "rem": (_rem, False, False, "C fmod: the remainder has the sign of a"),
    "and": (np.bitwise_and, True, True, "bitwise and (logical for i1)"),
    "or": (np.bitwise_or, True, True, "bitwise or"),
    "xor": (np.bitwise_xor, True, True, "bitwise xor"),
    "shl": (_shl, False, True, "shift left (0 when the amount reaches the width)"),
    "shr": (_shr, False, True, "shift right: arithmetic for signed, logical for unsigned types"),
}
for _name, (_fn, _comm, _int_only, _doc) in _BINARY.items():
    declare(_name, operands=["lhs", "rhs"], traits=EW + ((COMMUTATIVE,) if _comm else ()) + (SAME_TYPE,),
            verify=_verify_integer_binary if _int_only else same_type, reference=_fn, doc=_doc)


def _minimum(a, b, *, propagate_nan):
    if is_float_dtype(np.asarray(a).dtype) and propagate_nan != "all":
        return np.fmin(a, b)
    return np.minimum(a, b)


def _maximum(a, b, *, propagate_nan):
    if is_float_dtype(np.asarray(a).dtype) and propagate_nan != "all":
        return np.fmax(a, b)
    return np.maximum(a, b)


_NAN_ATTR = ("propagate_nan", "str", "none")
declare("minimum", operands=["lhs", "rhs"], attrs=[_NAN_ATTR], traits=EW + (COMMUTATIVE, SAME_TYPE),
        verify=same_type, reference=_minimum,
        doc="elementwise minimum; propagate_nan='all' returns NaN if either is NaN, 'none' the other")
declare("maximum", operands=["lhs", "rhs"], attrs=[_NAN_ATTR], traits=EW + (COMMUTATIVE, SAME_TYPE),
        verify=same_type, reference=_maximum, doc="elementwise maximum (see minimum)")


def _umulhi(a, b):
    dtype = np.asarray(a).dtype
    bits = dtype.itemsize * 8
    unsigned = np.dtype(f"u{dtype.itemsize}")
    ua = np.asarray(a).view(unsigned) if np.ndim(a) else np.asarray(a).reshape(1).view(unsigned)[0]
    ub = np.asarray(b).view(unsigned) if np.ndim(b) else np.asarray(b).reshape(1).view(unsigned)[0]
    if bits <= 32:
        wide = np.multiply(np.asarray(ua, np.uint64), np.asarray(ub, np.uint64)) >> np.uint64(bits)
        out = np.asarray(wide).astype(unsigned)
    else:  # 64 x 64 -> high 64 bits through 32-bit halves
        mask = np.uint64(0xFFFFFFFF)
        sh = np.uint64(32)
        a_lo, a_hi = np.asarray(ua, np.uint64) & mask, np.asarray(ua, np.uint64) >> sh
        b_lo, b_hi = np.asarray(ub, np.uint64) & mask, np.asarray(ub, np.uint64) >> sh
        lo_lo = a_lo * b_lo
        hi_lo = a_hi * b_lo
        lo_hi = a_lo * b_hi
        cross = (lo_lo >> sh) + (hi_lo & mask) + lo_hi
        out = a_hi * b_hi + (hi_lo >> sh) + (cross >> sh)
    out = np.asarray(out).view(dtype)
    return out if np.ndim(a) else out[()]


declare("umulhi", operands=["lhs", "rhs"], traits=EW + (COMMUTATIVE, SAME_TYPE),
        verify=all_of(same_type, element_is(is_integer, "integer")), reference=_umulhi,
        doc="the high half of the full-width unsigned product")


# ---- comparison and selection -----------------------------------------------------------------

_PREDICATES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal}


def _cmp(a, b, *, predicate):
    return _PREDICATES[predicate](a, b)


def _verify_cmp(op):
    require(op.attrs["predicate"] in _PREDICATES, f"unknown predicate {op.attrs['predicate']!r}", op)
    require(op.operands[0].type is op.operands[1].type, "compared operands must have one type", op)
    same_shape(op)
    result_is_bool(op)


declare("cmp", operands=["lhs", "rhs"], attrs=[("predicate", "str")], traits=EW, verify=_verify_cmp,
        reference=_cmp,
        doc="comparison by the operands' type: signed, unsigned or float (ordered; 'ne' is unordered)")


def _select(cond, a, b):
    out = np.where(cond, a, b)
    return out if np.ndim(out) else out[()]


def _verify_select(op):
    require(element_of(op.operands[0].type).ir == "i1", "select condition must be i1", op)
    require(op.operands[1].type is op.operands[2].type is op.result.type, "select branches and result differ", op)
    same_shape(op)


declare("select", operands=["cond", "true_value", "false_value"], traits=EW, verify=_verify_select,
        reference=_select, doc="cond ? true_value : false_value, per element")


# ---- conversions ------------------------------------------------------------------------------

def _round_toward_zero(x, target):
    """Convert floats to a narrower float type rounding toward zero."""
    wide = np.asarray(x, np.float64)
    with np.errstate(over="ignore"):  # overflow to inf is stepped back to the largest finite value
        near = wide.astype(target)
    back = near.astype(np.float64)
    overshoot = np.abs(back) > np.abs(wide)
    if not np.any(overshoot):
        return near
    # one step toward zero in the target type: floats are sign-magnitude, so the bit pattern minus one
    bits = np.dtype(f"u{np.dtype(target).itemsize}")
    toward = (np.asarray(near).view(bits) - bits.type(1)).view(target)
    return np.where(overshoot & np.isfinite(wide), toward, near)


def _float_to_int(x, target: np.dtype):
    """Toward zero, saturating at the target's range (infinities too), NaN -> 0 (Triton's
    semantics on GPUs, ``cvt.rzi``): the one rule of every target."""
    wide = np.trunc(np.asarray(x, np.float64))
    info = np.iinfo(target)
    low, high = float(info.min), float(info.max) + 1.0  # high is a power of two: exact in f64
    clipped = np.where(np.isnan(wide), 0.0, np.maximum(wide, low))
    over = clipped >= high
    as_int = np.where(over, 0.0, clipped).astype(target)
    return np.where(over, info.max, as_int).astype(target)


def to_fp8(x, ty: ScalarType) -> np.ndarray:
    """``x`` (floats or integers) converted to the fp8 type ``ty``: to nearest even, and for
    :data:`SATURATING_FP8` magnitudes past the largest finite one (infinities too) give it."""
    target = numpy_dtype(ty)
    if ty.ir not in SATURATING_FP8:
        return np.asarray(x).astype(target)
    import ml_dtypes

    limit = float(ml_dtypes.finfo(target).max)
    return np.clip(np.asarray(x, np.float64), -limit, limit).astype(target)  # NaN stays NaN


def _cast(x, *, rounding, result_types):
    target = numpy_dtype(result_types[0])
    source = np.asarray(x).dtype
    if rounding == "rtz" and is_float_dtype(source) and target.itemsize < source.itemsize:
        out = _round_toward_zero(x, target)
    elif element_of(result_types[0]).ir in SATURATING_FP8:
        out = to_fp8(x, element_of(result_types[0]))
    elif target == np.bool_:
        out = np.not_equal(x, 0)
    elif is_float_dtype(source) and target.kind in "iu":
        out = _float_to_int(x, target)
    else:
        out = np.asarray(x).astype(target)
    return out if np.ndim(x) else np.asarray(out).reshape(())[()]


def _verify_cast(op):
    same_shape(op)


declare("cast", operands=["x"], attrs=[("rounding", "str", "rtne")], traits=EW, verify=_verify_cast,
        reference=_cast, wants_types=True,
        doc="value conversion: int<->int (wrap, sign-extending signed sources), int<->float, "
            "float->int toward zero, saturating, NaN -> 0, "
            "float<->float (round to nearest even, or toward zero with rounding='rtz'), "
            "anything -> i1 is x != 0; pointers <-> i64 keep the address")


def _bitcast(x, *, result_types):
    target = numpy_dtype(result_types[0])
    return np.asarray(x).view(target) if np.ndim(x) else np.asarray(x).reshape(1).view(target)[0]


def _verify_bitcast(op):
    same_shape(op)
    source, target = element_of(op.operands[0].type), element_of(op.result.type)
    require(getattr(source, "primitive_bitwidth", 0) == getattr(target, "primitive_bitwidth", -1),
            f"bitcast between types of different widths ({source.ir} -> {target.ir})", op)


declare("bitcast", operands=["x"], traits=EW, verify=_verify_bitcast, reference=_bitcast, wants_types=True,
        doc="reinterpret the bits as another type of the same width")


# ---- unary and math ---------------------------------------------------------------------------

def _neg(x):
    return np.negative(x)


def _not(x):
    return np.invert(x)


def _abs(x):
    return np.abs(x)


declare("neg", operands=["x"], traits=EW + (SAME_TYPE,), verify=same_type, reference=_neg, doc="-x (wrapping)")
declare("not", operands=["x"], traits=EW + (SAME_TYPE,), verify=all_of(same_type, element_is(is_integer, "integer")),
        reference=_not, doc="bitwise not (logical not for i1)")
declare("abs", operands=["x"], traits=EW + (SAME_TYPE,), verify=same_type, reference=_abs,
        doc="|x| (integers wrap at the minimum)")


def _fdiv(a, b, *, ieee_rounding):
    return np.true_divide(a, b)


declare("div_rn", operands=["lhs", "rhs"], traits=EW + (SAME_TYPE,),
        verify=all_of(same_type, element_is(is_float, "floating-point")), reference=np.true_divide,
        doc="IEEE division rounded to nearest")
declare("fdiv", operands=["lhs", "rhs"], attrs=[("ieee_rounding", "bool", False)], traits=EW + (SAME_TYPE,),
        verify=all_of(same_type, element_is(is_float, "floating-point")), reference=_fdiv,
        doc="float division; without ieee_rounding a backend may use a faster, approximate divide")


def _fma(a, b, c):
    """One rounding (``mathfns.refs.fma``); halves through the f32 computation."""
    dtype = np.asarray(a).dtype
    wide = np.float64 if dtype == np.float64 else np.float32
    out = exact_fma(*(np.asarray(v, wide) for v in (a, b, c))).astype(dtype)
    return out if np.ndim(a) else np.asarray(out)[()]


declare("fma", operands=["a", "b", "c"], traits=EW + (SAME_TYPE,),
        verify=all_of(same_type, element_is(is_float, "floating-point")), reference=_fma,
        doc="a * b + c with one rounding")


def _clamp(x, lo, hi, *, propagate_nan):
    if propagate_nan == "all":
        out = np.minimum(np.maximum(x, lo), hi)
    else:
        out = np.fmin(np.fmax(x, lo), hi)
    return out


declare("clamp", operands=["x", "lo", "hi"], attrs=[_NAN_ATTR], traits=EW + (SAME_TYPE,),
        verify=all_of(same_type, element_is(is_float, "floating-point")), reference=_clamp,
        doc="min(max(x, lo), hi) for floats; propagate_nan='all' keeps a NaN x")
