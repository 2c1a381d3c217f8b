"""Shared expansions of libdevice's integer bit functions and float classification (for
targets without libdevice: the host).  Each computes one element from LLVM values."""

from __future__ import annotations

import llvmlite.ir as ll

from .math import Signature, expansion
from .target import I1, ScalarTarget, float_bits

I32 = ll.IntType(32)
I64 = ll.IntType(64)


def const(ty: ll.Type, value) -> ll.Constant:
    return ll.Constant(ty, value)


def float_bits_of(t: ScalarTarget, x: ll.Value) -> ll.Value:
    return t.b.bitcast(x, ll.IntType(float_bits(x.type)))


@expansion("isnan")
def _isnan(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    return t.b.fcmp_unordered("uno", values[0], values[0])


@expansion("isinf")
def _isinf(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    return t.b.fcmp_ordered("==", t.intrinsic("fabs", values), const(values[0].type, float("inf")))


@expansion("finitef", "isfinited")
def _isfinite(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    return t.b.fcmp_ordered("<", t.intrinsic("fabs", values), const(values[0].type, float("inf")))


@expansion("signbit")
def _signbit(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    bits = float_bits_of(t, values[0])
    return t.b.icmp_signed("<", bits, const(bits.type, 0))


@expansion("saturatef")
def _saturatef(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    b, x = t.b, values[0]
    one, zero = const(x.type, 1.0), const(x.type, 0.0)
    below_one = b.select(b.fcmp_ordered("<", x, one), x, one)
    return b.select(b.fcmp_ordered(">", x, zero), below_one, zero)  # NaN and -0 give +0


@expansion("rcp64h", "fast_dividef")
def _divide(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    if len(values) == 1:
        return t.b.fdiv(const(values[0].type, 1.0), values[0])
    return t.b.fdiv(values[0], values[1])


@expansion("clz")
def _clz(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    return t.intrinsic("ctlz", [values[0], const(I1, 0)])


@expansion("ffs")
def _ffs(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    x = values[0]
    trailing = t.intrinsic("cttz", [x, const(I1, 0)])
    found = t.b.add(trailing, const(x.type, 1))
    return t.b.select(t.b.icmp_unsigned("==", x, const(x.type, 0)), const(x.type, 0), found)


@expansion("byte_perm")
def _byte_perm(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    """Byte i of the result: byte ``(z >> 4i) & 7`` of the 8 bytes {y, x} (x the low word)."""
    b = t.b
    x, y, z = values
    pool = b.or_(b.zext(x, I64), b.shl(b.zext(y, I64), const(I64, 32)))
    out = const(I32, 0)
    for i in range(4):
        selector = b.and_(b.lshr(z, const(I32, 4 * i)), const(I32, 7))
        shift = b.zext(b.mul(selector, const(I32, 8)), I64)
        byte = b.and_(b.trunc(b.lshr(pool, shift), I32), const(I32, 0xFF))
        out = b.or_(out, b.shl(byte, const(I32, 8 * i)))
    return out


def _unsigned(sig: Signature) -> bool:
    return sig[0].startswith("u")


@expansion("mulhi")
def _mulhi(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    b = t.b
    ty = values[0].type
    wide = ll.IntType(2 * ty.width)
    extend = b.zext if _unsigned(sig) else b.sext
    product = b.mul(extend(values[0], wide), extend(values[1], wide))
    return b.trunc(b.lshr(product, const(wide, ty.width)), ty)


@expansion("mul24")
def _mul24(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    b = t.b
    shift = b.lshr if _unsigned(sig) else b.ashr
    low = [shift(b.shl(v, const(I32, 8)), const(I32, 8)) for v in values]
    return b.mul(low[0], low[1])


@expansion("sad")
def _sad(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
    """|x - y| + z, the difference exact (in 64 bits) and the sum modulo 2**32."""
    b = t.b
    extend = b.zext if _unsigned(sig) else b.sext
    x, y = (extend(v, I64) for v in values[:2])
    difference = b.sub(x, y)
    magnitude = b.select(b.icmp_signed("<", difference, const(I64, 0)), b.neg(difference), difference)
    return b.add(b.trunc(magnitude, I32), values[2])


def _halving(round_up: int):
    def lower(t: ScalarTarget, values: list, sig: Signature) -> ll.Value:
        b = t.b
        extend = b.zext if _unsigned(sig) else b.sext
        total = b.add(extend(values[0], I64), extend(values[1], I64))
        total = b.add(total, const(I64, round_up))
        return b.trunc(b.ashr(total, const(I64, 1)), I32)
    return lower


expansion("hadd")(_halving(0))
expansion("rhadd")(_halving(1))
