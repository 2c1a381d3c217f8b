"""Shared expansions of arithmetic in a rounding mode, conversions in a rounding mode and bit
casts (for targets without libdevice: the host, whose floating-point unit stays in
round-to-nearest).

A directed rounding starts from the round-to-nearest result ``r`` and the sign of the exact
result's error ``exact - r`` (from error-free transformations: TwoSum, an FMA's exact
remainder), then steps ``r`` by one unit in the last place where the mode asks:

- f32 operations are computed as an exact f64 pair (``hi + lo``: products of two f32 are exact
  in f64, sums carried by TwoSum) and rounded to f32 once: exact, subnormals included;
- f64 operations use the same recipe in f64: exact except where the error itself underflows
  (results within a few units of f64's subnormal range).
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.mathfns.refs import MODES, cvt_nan
from ...ir.mathfns.rounding import FLOAT_TO_INT, INT_TYPES, TO_FLOAT
from .math import Signature, expansion
from .math_bits import I32, I64, const
from .target import F32, F64, ScalarTarget

_ROUND_TO_INT = {"rn": "rint", "rz": "trunc", "rd": "floor", "ru": "ceil"}


class Rounded:
    """A round-to-nearest result and what is known of the exact value it stands for."""

    def __init__(self, nearest: ll.Value, above: ll.Value, below: ll.Value, overflow: ll.Value):
        self.nearest, self.above, self.below, self.overflow = nearest, above, below, overflow


def _bits(t: ScalarTarget, x: ll.Value) -> ll.Value:
    return t.b.bitcast(x, ll.IntType(64 if x.type == F64 else 32))


def _next_up(t: ScalarTarget, x: ll.Value) -> ll.Value:
    """The next float above x (-inf gives the most negative finite value)."""
    b = t.b
    bits = _bits(t, x)
    one = const(bits.type, 1)
    stepped = b.select(b.fcmp_ordered(">", x, const(x.type, 0.0)), b.add(bits, one), b.sub(bits, one))
    stepped = b.select(b.fcmp_ordered("==", x, const(x.type, 0.0)), one, stepped)
    return b.bitcast(stepped, x.type)


def _next_down(t: ScalarTarget, x: ll.Value) -> ll.Value:
    return t.b.fneg(_next_up(t, t.b.fneg(x)))


def _toward_zero(t: ScalarTarget, x: ll.Value) -> ll.Value:
    """The next float toward zero from a nonzero x (infinities give the largest finite value)."""
    bits = _bits(t, x)
    return t.b.bitcast(t.b.sub(bits, const(bits.type, 1)), x.type)


def directed(t: ScalarTarget, value: Rounded, mode: str) -> ll.Value:
    b, r = t.b, value.nearest
    zero = const(r.type, 0.0)
    if mode == "rn":
        return r
    if mode == "rz":
        inward = b.or_(b.and_(b.fcmp_ordered(">", r, zero), value.below),
                       b.and_(b.fcmp_ordered("<", r, zero), value.above))
        return b.select(b.or_(inward, value.overflow), _toward_zero(t, r), r)
    if mode == "ru":
        up = b.or_(value.above, b.and_(value.overflow, b.fcmp_ordered("<", r, zero)))
        return b.select(up, _next_up(t, r), r)
    down = b.or_(value.below, b.and_(value.overflow, b.fcmp_ordered(">", r, zero)))
    return b.select(down, _next_down(t, r), r)


def _finite(t: ScalarTarget, x: ll.Value) -> ll.Value:
    return t.b.fcmp_ordered("<", t.intrinsic("fabs", [x]), const(x.type, float("inf")))


def _overflowed(t: ScalarTarget, r: ll.Value, operands: list) -> ll.Value:
    """r is infinite although every operand is finite."""
    flag = t.b.not_(_finite(t, r))
    for x in operands:
        flag = t.b.and_(flag, _finite(t, x))
    return flag


def _sign_flags(t: ScalarTarget, error: ll.Value) -> tuple[ll.Value, ll.Value]:
    zero = const(error.type, 0.0)
    return t.b.fcmp_ordered(">", error, zero), t.b.fcmp_ordered("<", error, zero)


def _two_sum(t: ScalarTarget, a: ll.Value, c: ll.Value) -> tuple[ll.Value, ll.Value]:
    """s = a + c rounded and its exact error (Knuth's TwoSum)."""
    b = t.b
    s = b.fadd(a, c)
    virtual = b.fsub(s, a)
    error = b.fadd(b.fsub(a, b.fsub(s, virtual)), b.fsub(c, virtual))
    return s, error


def pair_to_f32(t: ScalarTarget, hi: ll.Value, lo: ll.Value) -> Rounded:
    """An exact (or sign-exact) f64 pair hi + lo rounded to nearest f32, with its error's sign."""
    b = t.b
    r = b.fptrunc(hi, F32)
    gap = b.fsub(hi, b.fpext(r, F64))
    gap_above, gap_below = _sign_flags(t, gap)
    lo_above, lo_below = _sign_flags(t, lo)
    tie = b.fcmp_ordered("==", gap, const(F64, 0.0))
    above = b.or_(gap_above, b.and_(tie, lo_above))
    below = b.or_(gap_below, b.and_(tie, lo_below))
    overflow = b.and_(b.not_(_finite(t, r)), _finite(t, hi))
    return Rounded(r, above, below, overflow)


def _divide_error(t: ScalarTarget, q: ll.Value, a: ll.Value, d: ll.Value) -> ll.Value:
    """A value with the sign of a / d - q (FMA's exact remainder a - q*d, over d's sign)."""
    b = t.b
    remainder = t.intrinsic("fma", [b.fneg(q), d, a])
    return b.select(b.fcmp_ordered("<", d, const(d.type, 0.0)), b.fneg(remainder), remainder)


def _pair(t: ScalarTarget, op: str, x: list) -> tuple[ll.Value, ll.Value]:
    """The operation as hi (rounded to nearest) plus lo (its error, or a value of its sign)."""
    b = t.b
    if op in ("add", "sub"):
        return _two_sum(t, x[0], b.fneg(x[1]) if op == "sub" else x[1])
    if op == "mul":
        product = b.fmul(x[0], x[1])
        return product, t.intrinsic("fma", [x[0], x[1], b.fneg(product)])
    if op == "fma":
        return _fma_pair(t, x)
    if op in ("div", "rcp"):
        a, d = (const(x[0].type, 1.0), x[0]) if op == "rcp" else (x[0], x[1])
        q = b.fdiv(a, d)
        return q, _divide_error(t, q, a, d)
    root = t.intrinsic("sqrt", [x[0]])
    return root, t.intrinsic("fma", [b.fneg(root), root, x[0]])


def _fma_pair(t: ScalarTarget, x: list) -> tuple[ll.Value, ll.Value]:
    """fma's nearest result and (approximately, for f64) the sign of its error: the exact
    a*b + c is p + e + c with p + e the exact product; r - (p + c) is found by TwoSum."""
    b = t.b
    r = t.intrinsic("fma", x)
    product = b.fmul(x[0], x[1])
    product_error = t.intrinsic("fma", [x[0], x[1], b.fneg(product)])
    s, sum_error = _two_sum(t, product, x[2])
    error = b.fadd(b.fadd(b.fsub(s, r), sum_error), product_error)
    return r, error


def _overflow(t: ScalarTarget, op: str, r: ll.Value, x: list) -> ll.Value:
    """r is infinite from finite operands (a division by zero is an exact infinity instead)."""
    flag = _overflowed(t, r, x)
    if op not in ("div", "rcp"):
        return flag
    return t.b.and_(flag, t.b.fcmp_unordered("!=", x[-1], const(x[-1].type, 0.0)))


def _arithmetic(op: str, mode: str):
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        b = t.b
        if values[0].type == F32:
            wide = [b.fpext(v, F64) for v in values]
            if op == "fma":  # the product is exact in f64: only the sum rounds
                hi, lo = _two_sum(t, b.fmul(wide[0], wide[1]), wide[2])
            else:
                hi, lo = _pair(t, op, wide)
            value = pair_to_f32(t, hi, lo)
        else:
            value = _f64(t, op, values)
        out = directed(t, value, mode)
        if mode == "rd" and op in ("add", "sub", "fma"):
            out = _zero_sum_down(t, op, values, out)
        return out
    return lower


_TINY = 2.0 ** -900  # below this, an error term may be a subnormal and inexact
_UP = 600  # scaling that lifts such values back into the normal range


def _f64(t: ScalarTarget, op: str, values: list) -> Rounded:
    """An f64 operation's nearest result and its error's sign.  Where the error term would
    underflow (tiny products, dividends, radicands), the operation is redone on operands scaled
    by powers of two and its result scaled back (rounding once more into the subnormal range,
    with the error's sign carried through)."""
    b = t.b
    r, error = _pair(t, op, values)
    above, below = _sign_flags(t, error)
    plain = Rounded(r, above, below, _overflow(t, op, r, values))
    if op not in ("mul", "div", "sqrt", "fma"):
        return plain
    tiny, scaled, shift = _scaled(t, op, values)
    r2, error2 = _pair(t, op, scaled)
    down = _times_power(t, r2, -shift)  # may round twice: still a neighbour of the exact value
    gap = b.fsub(r2, _times_power(t, down, shift))
    gap_above, gap_below = _sign_flags(t, gap)
    error_above, error_below = _sign_flags(t, error2)
    tie = b.fcmp_ordered("==", gap, const(F64, 0.0))
    above2 = b.or_(gap_above, b.and_(tie, error_above))
    below2 = b.or_(gap_below, b.and_(tie, error_below))
    if op == "fma":  # a tiny product beside a c that is not tiny: the result is c, off by the product
        product_sign = b.fmul(_times_power(t, values[0], _UP), _times_power(t, values[1], _UP))
        beside = b.and_(tiny, b.fcmp_ordered(">=", t.intrinsic("fabs", [values[2]]), const(F64, 2.0 ** -800)))
        carried_above, carried_below = _sign_flags(t, product_sign)
        down = b.select(beside, r, down)
        above2 = b.select(beside, carried_above, above2)
        below2 = b.select(beside, carried_below, below2)
    return Rounded(b.select(tiny, down, r), b.select(tiny, above2, above), b.select(tiny, below2, below),
                   plain.overflow)


def _times_power(t: ScalarTarget, v: ll.Value, power: int) -> ll.Value:
    """v * 2**power, in steps of at most 2**600 (the constant itself must be a double)."""
    while power:
        step = max(-_UP, min(_UP, power))
        v = t.b.fmul(v, const(F64, 2.0 ** step))
        power -= step
    return v


def _scaled(t: ScalarTarget, op: str, x: list) -> tuple[ll.Value, list, int]:
    """Whether the operation is in the tiny regime, its operands scaled up, and the result's
    scale (a power of two)."""
    b = t.b

    def small(v: ll.Value) -> ll.Value:
        return b.fcmp_ordered("<", t.intrinsic("fabs", [v]), const(F64, _TINY))

    def up(v: ll.Value, power: int) -> ll.Value:
        return _times_power(t, v, power)

    nonzero = [b.fcmp_ordered("!=", v, const(F64, 0.0)) for v in x]
    if op == "sqrt":
        return b.and_(small(x[0]), nonzero[0]), [up(x[0], 2 * _UP)], _UP
    if op == "div":
        return b.and_(small(x[0]), nonzero[0]), [up(x[0], _UP), x[1]], _UP
    tiny = b.and_(small(b.fmul(x[0], x[1])), b.and_(nonzero[0], nonzero[1]))
    if op == "mul":
        return tiny, [up(x[0], _UP), up(x[1], _UP)], 2 * _UP
    return tiny, [up(x[0], _UP), up(x[1], _UP), up(x[2], 2 * _UP)], 2 * _UP


def _zero_sum_down(t: ScalarTarget, op: str, values: list, out: ll.Value) -> ll.Value:
    """An exact zero sum rounded down is -0 unless both addends are +0: -((-x) + (-y))."""
    b = t.b
    negated = [b.fneg(v) for v in values]
    if op == "add":
        flipped = b.fadd(negated[0], negated[1])
    elif op == "sub":
        flipped = b.fsub(negated[0], negated[1])
    else:
        flipped = t.intrinsic("fma", [negated[0], values[1], negated[2]])
    is_zero = b.fcmp_ordered("==", out, const(out.type, 0.0))
    return b.select(is_zero, b.fneg(flipped), out)


for _mode in MODES:
    for _op in ("add", "sub", "mul", "fma", "rcp"):
        expansion(f"{_op}_{_mode}")(_arithmetic(_op, _mode))
    if _mode != "rn":
        expansion(f"div_{_mode}")(_arithmetic("div", _mode))
        expansion(f"sqrt_{_mode}")(_arithmetic("sqrt", _mode))


@expansion("rsqrt_rn")
def _rsqrt_rn(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    """1 / sqrt(x) in f64 (two roundings, each 2**-53), then rounded to f32."""
    b = t.b
    wide = b.fpext(values[0], F64)
    return b.fptrunc(b.fdiv(const(F64, 1.0), t.intrinsic("sqrt", [wide])), F32)


# ---- conversions ------------------------------------------------------------------------------------

def _nan_as_cvt(t: ScalarTarget, x: ll.Value, out: ll.Value) -> ll.Value:
    """``out``, or where x is NaN the GPU's cvt result (``refs.cvt_nan``: LLVM's saturating
    conversions give 0)."""
    nan = cvt_nan("f64" if x.type == F64 else "f32", out.type.width)
    return t.b.select(t.b.fcmp_unordered("uno", x, x), const(out.type, nan), out)


def _float_to_int(target: str, mode: str):
    bits, signed = INT_TYPES[target]

    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        x = values[0]
        whole = t.intrinsic(_ROUND_TO_INT[mode], [x])
        kind = "fptosi" if signed else "fptoui"
        ret = ll.IntType(bits)
        out = t.call(f"llvm.{kind}.sat.i{bits}.{'f64' if x.type == F64 else 'f32'}", ret, [whole])
        return _nan_as_cvt(t, x, out)
    return lower


def _int_error(t: ScalarTarget, x: ll.Value, nearest: ll.Value, unsigned: bool) -> ll.Value:
    """x - nearest as an f64 (exact: small), for a 64-bit integer x and its nearest f64."""
    b = t.b
    kind = "fptoui" if unsigned else "fptosi"
    back = t.call(f"llvm.{kind}.sat.i64.f64", I64, [nearest])
    difference = b.sub(x, back)
    limit = 2.0 ** (64 if unsigned else 63)  # the one f64 the saturating conversion cannot hold
    beyond = b.fcmp_ordered(">=", nearest, const(F64, limit))
    difference = b.select(beyond, b.sub(difference, const(I64, 1)), difference)
    return b.sitofp(difference, F64)


def _to_float(source: str, target: str, mode: str):
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        b, x = t.b, values[0]
        if source == "f64":
            return directed(t, pair_to_f32(t, x, const(F64, 0.0)), mode)
        bits, signed = INT_TYPES[source]
        hi = b.sitofp(x, F64) if signed else b.uitofp(x, F64)
        lo = const(F64, 0.0) if bits == 32 else _int_error(t, x, hi, not signed)
        if target == "f32":
            return directed(t, pair_to_f32(t, hi, lo), mode)
        above, below = _sign_flags(t, lo)
        return directed(t, Rounded(hi, above, below, const(ll.IntType(1), 0)), mode)
    return lower


for _mode in MODES:
    for _stem, (_, _integer, _) in FLOAT_TO_INT.items():
        expansion(f"{_stem}_{_mode}")(_float_to_int(_integer, _mode))
    for _stem, (_source, _target) in TO_FLOAT.items():
        expansion(f"{_stem}_{_mode}")(_to_float(_source, _target, _mode))
expansion("int2double_rn")(_to_float("i32", "f64", "rn"))
expansion("uint2double_rn")(_to_float("u32", "f64", "rn"))


def _rounded_to_i64(rounding: str):
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        x = values[0]
        whole = t.intrinsic(rounding, [x])
        return _nan_as_cvt(t, x, t.call(f"llvm.fptosi.sat.i64.{'f64' if x.type == F64 else 'f32'}", I64, [whole]))
    return lower


expansion("llrint")(_rounded_to_i64("rint"))
expansion("llround")(_rounded_to_i64("round"))


# ---- bit casts ------------------------------------------------------------------------------------

@expansion("float_as_int", "float_as_uint", "int_as_float", "uint_as_float", "double_as_longlong",
           "longlong_as_double")
def _bit_cast(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    x = values[0]
    target = {"float": I32, "double": I64}.get(str(x.type)) or (F32 if x.type == I32 else F64)
    return t.b.bitcast(x, target)


@expansion("hiloint2double")
def _hiloint2double(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    b = t.b
    word = b.or_(b.shl(b.zext(values[0], I64), const(I64, 32)), b.zext(values[1], I64))
    return b.bitcast(word, F64)


def _word(shift: int):
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        b = t.b
        return b.trunc(b.lshr(b.bitcast(values[0], I64), const(I64, shift)), I32)
    return lower


expansion("double2hiint")(_word(32))
expansion("double2loint")(_word(0))
