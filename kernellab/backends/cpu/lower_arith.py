"""Elementwise ops: constants, arithmetic, comparisons, selection, conversions and math.

Each function computes one element (LLVM scalars in, one out); :func:`.table.elementwise`
lifts it to tiles.  Numerics follow the references in ``kernellab.ir.ops.arith``: integers
wrap, division truncates toward zero and never traps (x/0 is 0, MIN/-1 wraps), shifts past the
width give 0 (or the sign for arithmetic right shifts), half types compute in f32 and round.
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import PointerType, ScalarType, TileType, element_of
from . import mathlib
from .emitter import Emitter
from .llvm_types import (
    F32,
    I1,
    I64,
    PTR,
    compute_type,
    constant,
    is_float,
    is_half,
    is_signed,
    llvm_type,
    narrow,
    widen,
)
from .table import elementwise, lowering
from .tiles import Lazy


def _operand_type(op: Op, i: int = 0):
    return element_of(op.operands[i].type)


def _result_type(op: Op):
    return element_of(op.result.type)


# ---- constants --------------------------------------------------------------------------------

@lowering("constant")
def lower_constant(em: Emitter, op: Op, args: list) -> list:
    ty = _result_type(op)
    value = constant(ty, op.attrs["value"])
    if isinstance(op.result.type, TileType):
        return [Lazy(op.result.type.shape, ty, lambda em2, idx: value, cheap=True)]
    return [value]


# ---- float arithmetic in the compute type -----------------------------------------------------

def _float_op(em: Emitter, op: Op, values: list, compute) -> ll.Value:
    """Widen half operands to f32, compute, round back."""
    ty = _operand_type(op)
    wide = [widen(em.b, v, ty) for v in values]
    return narrow(em.b, compute(*wide), _result_type(op))


_FLOAT_BINARY = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv", "rem": "frem", "div_rn": "fdiv",
                 "fdiv": "fdiv"}


@elementwise("add", "sub", "mul")
def lower_add_sub_mul(em: Emitter, op: Op, values: list) -> ll.Value:
    if is_float(_operand_type(op)):
        method = getattr(em.b, _FLOAT_BINARY[op.name])
        flags = em.float_flags
        return _float_op(em, op, values, lambda x, y: method(x, y, flags=flags))
    method = {"add": em.b.add, "sub": em.b.sub, "mul": em.b.mul}[op.name]
    return method(*values)


@elementwise("div", "rem", "div_rn", "fdiv")
def lower_div_rem(em: Emitter, op: Op, values: list) -> ll.Value:
    ty = _operand_type(op)
    if is_float(ty):
        return _float_op(em, op, values, getattr(em.b, _FLOAT_BINARY[op.name]))
    return _int_div_rem(em, op.name, values[0], values[1], is_signed(ty))


def _int_div_rem(em: Emitter, name: str, a: ll.Value, b_: ll.Value, signed: bool) -> ll.Value:
    """C division / remainder that never traps: x/0 and x%0 give 0, MIN/-1 wraps, MIN%-1 is 0."""
    b = em.b
    zero = ll.Constant(a.type, 0)
    one = ll.Constant(a.type, 1)
    by_zero = b.icmp_unsigned("==", b_, zero)
    safe = b.select(by_zero, one, b_)
    if signed:
        minus_one = ll.Constant(a.type, -1)
        by_minus_one = b.icmp_signed("==", safe, minus_one)
        safe = b.select(by_minus_one, one, safe)
        if name == "div":
            out = b.select(by_minus_one, b.sub(zero, a), b.sdiv(a, safe))
        else:
            out = b.select(by_minus_one, zero, b.srem(a, safe))
    else:
        out = b.udiv(a, safe) if name == "div" else b.urem(a, safe)
    return b.select(by_zero, zero, out)


@elementwise("and", "or", "xor")
def lower_bitwise(em: Emitter, op: Op, values: list) -> ll.Value:
    method = {"and": em.b.and_, "or": em.b.or_, "xor": em.b.xor}[op.name]
    return method(*values)


@elementwise("shl", "shr")
def lower_shift(em: Emitter, op: Op, values: list) -> ll.Value:
    b = em.b
    a, amount = values
    width = ll.Constant(a.type, a.type.width)
    too_far = b.icmp_unsigned(">=", amount, width)
    if op.name == "shl":
        return b.select(too_far, ll.Constant(a.type, 0), b.shl(a, b.select(too_far, ll.Constant(a.type, 0), amount)))
    if is_signed(_operand_type(op)):
        return b.ashr(a, b.select(too_far, ll.Constant(a.type, a.type.width - 1), amount))
    return b.select(too_far, ll.Constant(a.type, 0), b.lshr(a, b.select(too_far, ll.Constant(a.type, 0), amount)))


@elementwise("minimum", "maximum")
def lower_min_max(em: Emitter, op: Op, values: list) -> ll.Value:
    ty = _operand_type(op)
    if is_float(ty):
        if op.attrs["propagate_nan"] == "all":
            name = "minimum" if op.name == "minimum" else "maximum"
            return _float_op(em, op, values, lambda x, y: mathlib.call_intrinsic(em, name, [x, y]))
        return _float_op(em, op, values, lambda x, y: _ignoring_nan(em, x, y, op.name == "maximum"))
    prefix = "s" if is_signed(ty) else "u"
    return mathlib.call_intrinsic(em, prefix + ("min" if op.name == "minimum" else "max"), values)


def _ignoring_nan(em: Emitter, x: ll.Value, y: ll.Value, greater: bool) -> ll.Value:
    """maxnum/minnum semantics (a NaN operand yields the other) as compare + select.

    Not ``llvm.maxnum``: LLVM 22's loop vectorizer miscompiles a maxnum recurrence carried
    across an outer loop (a reduce along a leading axis gave wrong maxima at -O2).
    """
    b = em.b
    better = b.fcmp_ordered(">" if greater else "<", x, y)
    pick = b.select(better, x, y)
    return b.select(b.fcmp_unordered("uno", y, y), x, pick)


@elementwise("umulhi")
def lower_umulhi(em: Emitter, op: Op, values: list) -> ll.Value:
    b = em.b
    width = values[0].type.width
    wide = ll.IntType(2 * width)
    product = b.mul(b.zext(values[0], wide), b.zext(values[1], wide))
    return b.trunc(b.lshr(product, ll.Constant(wide, width)), values[0].type)


# ---- comparison and selection -----------------------------------------------------------------

_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@elementwise("cmp")
def lower_cmp(em: Emitter, op: Op, values: list) -> ll.Value:
    b = em.b
    ty = _operand_type(op)
    pred = _CMP[op.attrs["predicate"]]
    if is_float(ty):
        lhs, rhs = (widen(b, v, ty) for v in values)
        if pred == "!=":
            return b.fcmp_unordered(pred, lhs, rhs)
        return b.fcmp_ordered(pred, lhs, rhs)
    if isinstance(ty, PointerType):
        values = [b.ptrtoint(v, I64) for v in values]
        return b.icmp_unsigned(pred, *values)
    if is_signed(ty):
        return b.icmp_signed(pred, *values)
    return b.icmp_unsigned(pred, *values)


@elementwise("select")
def lower_select(em: Emitter, op: Op, values: list) -> ll.Value:
    return em.b.select(em.as_bool(values[0]), values[1], values[2])


# ---- conversions ------------------------------------------------------------------------------

@elementwise("cast")
def lower_cast(em: Emitter, op: Op, values: list) -> ll.Value:
    return convert(em, values[0], _operand_type(op), _result_type(op), op.attrs["rounding"])


def convert(em: Emitter, x: ll.Value, src, dst, rounding: str = "rtne") -> ll.Value:
    """Value conversion from Tile IR scalar type ``src`` to ``dst`` (the cast op's reference)."""
    b = em.b
    if src is dst:
        return x
    if isinstance(src, PointerType) or isinstance(dst, PointerType):
        return _convert_pointer(em, x, src, dst)
    if dst.is_bool():
        if is_float(src):
            return b.fcmp_unordered("!=", widen(b, x, src), ll.Constant(compute_type(src), 0.0))
        return b.icmp_unsigned("!=", x, ll.Constant(x.type, 0))
    if is_float(src) and is_float(dst):
        return _convert_float(em, widen(b, x, src), src, dst, rounding)
    if is_float(src):
        return _float_to_int(em, widen(b, x, src), dst)
    if is_float(dst):
        signed = is_signed(src)
        target = compute_type(dst)
        out = b.sitofp(x, target) if signed else b.uitofp(x, target)
        return narrow(b, out, dst)
    return _int_to_int(em, x, src, dst)


def _int_to_int(em: Emitter, x: ll.Value, src, dst) -> ll.Value:
    b = em.b
    target = llvm_type(dst)
    if target.width == x.type.width:
        return x
    if target.width < x.type.width:
        return b.trunc(x, target)
    return b.sext(x, target) if is_signed(src) else b.zext(x, target)


def _float_to_int(em: Emitter, x: ll.Value, dst) -> ll.Value:
    """Truncation toward zero; NaN gives 0 and out-of-range values saturate (never poison)."""
    target = llvm_type(dst)
    kind = "fptosi" if is_signed(dst) else "fptoui"
    name = f"llvm.{kind}.sat.i{target.width}.{'f32' if x.type == F32 else 'f64'}"
    fn = em.ml.function(name, ll.FunctionType(target, [x.type]))
    return em.b.call(fn, [x])


def _convert_float(em: Emitter, x: ll.Value, src, dst, rounding: str) -> ll.Value:
    """``x`` is in src's compute type; returns dst's storage."""
    b = em.b
    target = compute_type(dst)
    if x.type != target:
        wider = _bits(x.type) < _bits(target)
        x = b.fpext(x, target) if wider else _narrow_float(em, x, target, rounding)
    if not is_half(dst):
        return x
    near = narrow(b, x, dst)
    if rounding != "rtz":
        return near
    return _toward_zero(em, x, near, dst)


def _narrow_float(em: Emitter, x: ll.Value, target: ll.Type, rounding: str) -> ll.Value:
    near = em.b.fptrunc(x, target)
    if rounding != "rtz":
        return near
    b = em.b
    back = b.fpext(near, x.type)
    fabs_x = mathlib.call_intrinsic(em, "fabs", [x])
    over = b.fcmp_ordered(">", mathlib.call_intrinsic(em, "fabs", [back]), fabs_x)
    bits = b.bitcast(near, ll.IntType(_bits(target)))
    lowered = b.bitcast(b.sub(bits, ll.Constant(bits.type, 1)), target)
    finite = b.fcmp_ordered("<", fabs_x, ll.Constant(x.type, float("inf")))
    return b.select(b.and_(over, finite), lowered, near)


def _toward_zero(em: Emitter, x: ll.Value, near: ll.Value, dst) -> ll.Value:
    """Round-toward-zero f32 -> half type: step the nearest result back where it overshot."""
    b = em.b
    back = widen(b, near, dst)
    fabs_x = mathlib.call_intrinsic(em, "fabs", [x])
    over = b.fcmp_ordered(">", mathlib.call_intrinsic(em, "fabs", [back]), fabs_x)
    finite = b.fcmp_ordered("<", fabs_x, ll.Constant(F32, float("inf")))
    bits = b.bitcast(near, ll.IntType(16)) if near.type != ll.IntType(16) else near
    stepped = b.sub(bits, ll.Constant(bits.type, 1))
    out = b.select(b.and_(over, finite), stepped, bits)
    return out if near.type == ll.IntType(16) else b.bitcast(out, near.type)


def _bits(ty: ll.Type) -> int:
    return {"half": 16, "float": 32, "double": 64}[str(ty)]


def _convert_pointer(em: Emitter, x: ll.Value, src, dst) -> ll.Value:
    b = em.b
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        as_int = b.ptrtoint(x, I64)
        return _int_to_int(em, as_int, _i64_type(), dst) if dst.is_int() else as_int
    wide = _int_to_int(em, x, src, _i64_type())
    return b.inttoptr(wide, PTR)


def _i64_type():
    from ...ir.types import i64 as i64_type

    return i64_type


@elementwise("bitcast")
def lower_bitcast(em: Emitter, op: Op, values: list) -> ll.Value:
    src, dst = _operand_type(op), _result_type(op)
    x = values[0]
    target = llvm_type(dst)
    if x.type == target:
        return x
    if isinstance(src, PointerType):
        return em.b.ptrtoint(x, target)
    if isinstance(dst, PointerType):
        return em.b.inttoptr(x, target)
    return em.b.bitcast(x, target)


# ---- unary and math ---------------------------------------------------------------------------

def _math(em: Emitter, name: str, x: ll.Value) -> ll.Value:
    if name == "exp" and x.type == F32:
        return mathlib.exp_f32(em, x)
    if name == "exp2" and x.type == F32:
        return mathlib.exp2_f32(em, x)
    if name == "erf":
        return mathlib.libm(em, "erf", x)
    if name == "rsqrt":
        return em.b.fdiv(ll.Constant(x.type, 1.0), mathlib.call_intrinsic(em, "sqrt", [x]))
    intrinsic = {"sqrt_rn": "sqrt"}.get(name, name)
    return mathlib.call_intrinsic(em, intrinsic, [x])


@elementwise("exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "sqrt_rn", "rsqrt", "erf", "floor", "ceil")
def lower_math(em: Emitter, op: Op, values: list) -> ll.Value:
    return _float_op(em, op, values, lambda x: _math(em, op.name, x))


@elementwise("neg")
def lower_neg(em: Emitter, op: Op, values: list) -> ll.Value:
    if is_float(_operand_type(op)):
        return _float_op(em, op, values, em.b.fneg)
    return em.b.sub(ll.Constant(values[0].type, 0), values[0])


@elementwise("not")
def lower_not(em: Emitter, op: Op, values: list) -> ll.Value:
    return em.b.xor(values[0], ll.Constant(values[0].type, -1 if values[0].type != I1 else 1))


@elementwise("abs")
def lower_abs(em: Emitter, op: Op, values: list) -> ll.Value:
    ty = _operand_type(op)
    if is_float(ty):
        return _float_op(em, op, values, lambda x: mathlib.call_intrinsic(em, "fabs", [x]))
    if not is_signed(ty):
        return values[0]
    fn = em.ml.function(f"llvm.abs.i{values[0].type.width}", ll.FunctionType(values[0].type, [values[0].type, I1]))
    return em.b.call(fn, [values[0], ll.Constant(I1, 0)])


@elementwise("fma")
def lower_fma(em: Emitter, op: Op, values: list) -> ll.Value:
    return _float_op(em, op, values, lambda a, b_, c: mathlib.call_intrinsic(em, "fma", [a, b_, c]))


@elementwise("clamp")
def lower_clamp(em: Emitter, op: Op, values: list) -> ll.Value:
    nan_all = op.attrs["propagate_nan"] == "all"
    low, high = ("maximum", "minimum") if nan_all else ("maxnum", "minnum")

    def compute(x, lo, hi):
        return mathlib.call_intrinsic(em, high, [mathlib.call_intrinsic(em, low, [x, lo]), hi])
    return _float_op(em, op, values, compute)


__all__ = ["convert", "ScalarType"]
