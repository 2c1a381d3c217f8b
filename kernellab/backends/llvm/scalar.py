"""The scalar lowering of every elementwise op, shared by the LLVM targets.

``SCALAR_OPS[name](t, op, values) -> ll.Value`` computes one element of op ``name`` from its
operands' elements (LLVM values) on target ``t`` (a :class:`~.target.ScalarTarget`); the op's
Tile IR types say whether integers are signed and which float type is meant.  The CPU backend
lifts these to lazy tiles, the CUDA backend maps them over a layout's registers: neither
lowers an elementwise op itself.  Numerics are the references' (``kernellab/ir/ops``):
integers wrap, division truncates toward zero and never traps (x/0 is 0, MIN/-1 wraps),
shifts past the width give 0 (or the sign for arithmetic right shifts), half types compute in
the target's compute type and round.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import PointerType, ScalarType, Type, element_of
from .target import F32, I1, I64, ScalarTarget

ScalarLowering = Callable[[ScalarTarget, Op, list], ll.Value]
SCALAR_OPS: dict[str, ScalarLowering] = {}


def scalar(*names: str) -> Callable[[ScalarLowering], ScalarLowering]:
    """Register ``fn`` as the scalar lowering of each op in ``names``."""
    def register(fn: ScalarLowering) -> ScalarLowering:
        for name in names:
            if name in SCALAR_OPS:
                raise ValueError(f"op {name} has two scalar lowerings")
            SCALAR_OPS[name] = fn
        return fn
    return register


# ---- Tile IR type facts -------------------------------------------------------------------------

def operand_type(op: Op, i: int = 0) -> Type:
    return element_of(op.operands[i].type)


def result_type(op: Op) -> Type:
    return element_of(op.result.type)


def is_float(ty: Type) -> bool:
    """A float computed as one (fp8 types are bit patterns until converted)."""
    return isinstance(ty, ScalarType) and ty.is_floating() and not ty.is_fp8()


def is_signed(ty: Type) -> bool:
    """A signed integer (i1 is unsigned: 0 or 1)."""
    return isinstance(ty, ScalarType) and ty.is_int() and not ty.is_int_unsigned() and not ty.is_bool()


def is_bool(ty: Type) -> bool:
    return isinstance(ty, ScalarType) and ty.is_bool()


def in_compute_type(t: ScalarTarget, op: Op, values: list, compute: Callable[..., ll.Value]) -> ll.Value:
    """``compute`` applied in the target's compute type of the operands, rounded into the result."""
    ty = operand_type(op)
    return t.from_compute(compute(*[t.to_compute(v, ty) for v in values]), result_type(op))


# ---- arithmetic ---------------------------------------------------------------------------------

_FLOAT_ARITH = {"add": "fadd", "sub": "fsub", "mul": "fmul"}
_INT_ARITH = {"add": "add", "sub": "sub", "mul": "mul", "and": "and_", "or": "or_", "xor": "xor"}


@scalar("add", "sub", "mul")
def lower_add_sub_mul(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    if is_float(operand_type(op)):
        method = getattr(t.b, _FLOAT_ARITH[op.name])
        flags = t.float_flags
        return in_compute_type(t, op, values, lambda x, y: method(x, y, flags=flags))
    return getattr(t.b, _INT_ARITH[op.name])(*values)


@scalar("and", "or", "xor")
def lower_bitwise(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return getattr(t.b, _INT_ARITH[op.name])(*values)


def _float_divide(t: ScalarTarget, ieee: bool) -> Callable[[ll.Value, ll.Value], ll.Value]:
    """IEEE division, or the target's approximate one for f32 (CUDA's ``div.full``)."""
    def divide(a: ll.Value, b: ll.Value) -> ll.Value:
        if ieee or a.type != F32:
            return t.b.fdiv(a, b)
        return t.approx_divide(a, b)
    return divide


@scalar("div")
def lower_div(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """Floats: ``/`` may be approximate on targets that say so (as Triton's is on GPUs)."""
    if is_float(operand_type(op)):
        return in_compute_type(t, op, values, _float_divide(t, ieee=False))
    return int_div_rem(t, "div", values[0], values[1], is_signed(operand_type(op)))


@scalar("fdiv")
def lower_fdiv(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return in_compute_type(t, op, values, _float_divide(t, ieee=bool(op.attrs.get("ieee_rounding"))))


@scalar("div_rn")
def lower_div_rn(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return in_compute_type(t, op, values, _float_divide(t, ieee=True))


@scalar("rem")
def lower_rem(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """Floats: C ``fmod`` (the sign of the dividend); integers: C ``%``."""
    if is_float(operand_type(op)):
        return in_compute_type(t, op, values, t.float_remainder)
    return int_div_rem(t, "rem", values[0], values[1], is_signed(operand_type(op)))


def int_div_rem(t: ScalarTarget, name: str, a: ll.Value, divisor: ll.Value, signed: bool) -> ll.Value:
    """C division / remainder that never traps: x/0 and x%0 give 0, MIN/-1 wraps, MIN%-1 is 0."""
    b = t.b
    zero = ll.Constant(a.type, 0)
    one = ll.Constant(a.type, 1)
    by_zero = b.icmp_unsigned("==", divisor, zero)
    safe = b.select(by_zero, one, divisor)
    if signed:
        by_minus_one = b.icmp_signed("==", safe, ll.Constant(a.type, -1))
        safe = b.select(by_minus_one, one, safe)
        if name == "div":
            out = b.select(by_minus_one, b.sub(zero, a), b.sdiv(a, safe))
        else:
            out = b.select(by_minus_one, zero, b.srem(a, safe))
    else:
        out = b.udiv(a, safe) if name == "div" else b.urem(a, safe)
    return b.select(by_zero, zero, out)


@scalar("shl", "shr")
def lower_shift(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """Amounts of the width or more give 0 (an arithmetic right shift gives the sign)."""
    b = t.b
    a, amount = values
    too_far = b.icmp_unsigned(">=", amount, ll.Constant(a.type, a.type.width))
    zero = ll.Constant(a.type, 0)
    if op.name == "shr" and is_signed(operand_type(op)):
        return b.ashr(a, b.select(too_far, ll.Constant(a.type, a.type.width - 1), amount))
    shifted = b.shl(a, b.select(too_far, zero, amount)) if op.name == "shl" else b.lshr(a, b.select(too_far, zero,
                                                                                                    amount))
    return b.select(too_far, zero, shifted)


@scalar("minimum", "maximum")
def lower_min_max(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """Floats: with ``propagate_nan='all'`` a NaN wins (``llvm.minimum``), else the other
    operand does (``llvm.minnum``, or compare + select where the target says so)."""
    ty = operand_type(op)
    which = "min" if op.name == "minimum" else "max"
    if is_float(ty):
        if op.attrs.get("propagate_nan") == "all":
            return in_compute_type(t, op, values, lambda x, y: t.intrinsic(op.name, [x, y]))
        return in_compute_type(t, op, values, lambda x, y: ignoring_nan(t, x, y, which))
    if is_bool(ty):
        return t.b.and_(*values) if which == "min" else t.b.or_(*values)
    return t.intrinsic(("s" if is_signed(ty) else "u") + which, values)


def ignoring_nan(t: ScalarTarget, x: ll.Value, y: ll.Value, which: str) -> ll.Value:
    """minnum/maxnum: a NaN operand yields the other one.

    The host spells it compare + select, not ``llvm.maxnum``: LLVM 22's loop vectorizer
    miscompiles a maxnum recurrence carried across an outer loop (a reduce along a leading
    axis gave wrong maxima at -O2)."""
    if not t.minnum_as_select:
        return t.intrinsic(which + "num", [x, y])
    b = t.b
    better = b.fcmp_ordered("<" if which == "min" else ">", x, y)
    return b.select(b.fcmp_unordered("uno", y, y), x, b.select(better, x, y))


@scalar("umulhi")
def lower_umulhi(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    b = t.b
    width = values[0].type.width
    wide = ll.IntType(2 * width)
    product = b.mul(b.zext(values[0], wide), b.zext(values[1], wide))
    return b.trunc(b.lshr(product, ll.Constant(wide, width)), values[0].type)


@scalar("fma")
def lower_fma(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return in_compute_type(t, op, values, lambda a, b, c: t.intrinsic("fma", [a, b, c]))


@scalar("clamp")
def lower_clamp(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    low, high = ("maximum", "minimum") if op.attrs.get("propagate_nan") == "all" else ("maxnum", "minnum")
    return in_compute_type(t, op, values, lambda x, lo, hi: t.intrinsic(high, [t.intrinsic(low, [x, lo]), hi]))


# ---- unary ----------------------------------------------------------------------------------------

@scalar("neg")
def lower_neg(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    if is_float(operand_type(op)):
        return in_compute_type(t, op, values, t.b.fneg)
    return t.b.sub(ll.Constant(values[0].type, 0), values[0])


@scalar("not")
def lower_not(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return t.b.not_(values[0])


@scalar("abs")
def lower_abs(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    ty = operand_type(op)
    if is_float(ty):
        return in_compute_type(t, op, values, lambda x: t.intrinsic("fabs", [x]))
    if not is_signed(ty):
        return values[0]
    return t.intrinsic("abs", [values[0], ll.Constant(I1, 0)])


# ---- comparison and selection -----------------------------------------------------------------

_PREDICATES = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@scalar("cmp")
def lower_cmp(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """Floats compare ordered (``ne`` unordered: NaN != x); integers by their signedness;
    pointers (and fp8 bit patterns) unsigned."""
    b = t.b
    ty = operand_type(op)
    predicate = _PREDICATES[op.attrs["predicate"]]
    if is_float(ty):
        lhs, rhs = (t.to_compute(v, ty) for v in values)
        if predicate == "!=":
            return b.fcmp_unordered(predicate, lhs, rhs)
        return b.fcmp_ordered(predicate, lhs, rhs)
    if isinstance(ty, PointerType):
        values = [b.ptrtoint(v, I64) for v in values]
    if is_signed(ty):
        return b.icmp_signed(predicate, *values)
    return b.icmp_unsigned(predicate, *values)


@scalar("select")
def lower_select(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return t.b.select(t.as_bool(values[0]), values[1], values[2])
