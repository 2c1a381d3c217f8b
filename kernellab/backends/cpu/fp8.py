"""fp8 on the host: values are their 8 bits in an ``i8``; :func:`fp8_to_f16` and
:func:`f32_to_fp8` convert them in integer and f32 arithmetic, with the reference's semantics
(``ir.ops.arith.to_fp8``, what the interpreter runs): to nearest even, gradual underflow, and
past the largest finite value that value for fp8e4nv and fp8e5 (Triton's NVIDIA ``satfinite``,
infinities too: ``ir.types.SATURATING_FP8``) or NaN for the "fnuz" fp8e4b8/fp8e5b16, whose one
NaN is -0's encoding, 0x80.
fp8e4b15 values are only their bits (``ir.types.BITS_ONLY``): the language converts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.ops.arith import to_fp8
from ...ir.types import BITS_ONLY, ScalarType

I8 = ll.IntType(8)
I32 = ll.IntType(32)
F32 = ll.FloatType()


@dataclass(frozen=True)
class Fp8Format:
    mantissa: int
    bias: int
    max_code: int  # the largest finite magnitude's code
    overflow_code: int  # what a magnitude past it becomes (the largest finite, or NaN; the sign is added)
    nan_code: int
    has_inf: bool
    fnuz: bool  # no -0: 0x80 is the NaN

    @property
    def exponent_mask(self) -> int:
        return 0x7F >> self.mantissa


FORMATS = {
    "f8e4m3": Fp8Format(3, 7, 0x7E, 0x7E, 0x7F, has_inf=False, fnuz=False),  # saturating
    "f8e5m2": Fp8Format(2, 15, 0x7B, 0x7B, 0x7E, has_inf=True, fnuz=False),  # saturating
    "f8e4b8": Fp8Format(3, 8, 0x7F, 0x80, 0x80, has_inf=False, fnuz=True),
    "f8e5b16": Fp8Format(2, 16, 0x7F, 0x80, 0x80, has_inf=False, fnuz=True),
}


def fp8_format(ty: ScalarType) -> Fp8Format:
    found = FORMATS.get(ty.ir)
    if found is None:
        raise CompilationError(f"{ty.name} has no conversion on the CPU target; the language converts it through "
                               "fp16")
    return found


def _i32(value: int) -> ll.Constant:
    return ll.Constant(I32, value)


def _power_of_two(b: ll.IRBuilder, exponent: ll.Value) -> ll.Value:
    """2.0 ** exponent (an i32 in f32's normal range) as an f32."""
    return b.bitcast(b.shl(b.add(exponent, _i32(127)), _i32(23)), F32)


def fp8_to_f16(b: ll.IRBuilder, value: ll.Value, ty: ScalarType) -> ll.Value:
    """The fp8 bits ``value`` (i8) as an f16 (exact: every fp8 value is one)."""
    fmt = fp8_format(ty)
    bits = b.zext(value, I32)
    exponent = b.and_(b.lshr(bits, _i32(fmt.mantissa)), _i32(fmt.exponent_mask))
    mantissa = b.and_(bits, _i32((1 << fmt.mantissa) - 1))
    normal = b.icmp_unsigned("!=", exponent, _i32(0))
    significand = b.select(normal, b.or_(mantissa, _i32(1 << fmt.mantissa)), mantissa)
    scale_exponent = b.sub(b.select(normal, exponent, _i32(1)), _i32(fmt.bias + fmt.mantissa))
    magnitude = b.fmul(b.uitofp(significand, F32), _power_of_two(b, scale_exponent))
    negative = b.icmp_unsigned("!=", b.and_(bits, _i32(0x80)), _i32(0))
    signed = b.select(negative, b.fneg(magnitude), magnitude)
    top = fmt.exponent_mask
    if fmt.fnuz:
        is_nan = b.icmp_unsigned("==", bits, _i32(0x80))
    elif fmt.has_inf:
        is_nan = b.and_(b.icmp_unsigned("==", exponent, _i32(top)), b.icmp_unsigned("!=", mantissa, _i32(0)))
        infinite = b.select(negative, ll.Constant(F32, float("-inf")), ll.Constant(F32, float("inf")))
        all_ones = b.icmp_unsigned("==", exponent, _i32(top))
        signed = b.select(all_ones, infinite, signed)
    else:
        is_nan = b.icmp_unsigned("==", b.and_(bits, _i32(0x7F)), _i32(0x7F))
    out = b.select(is_nan, ll.Constant(F32, float("nan")), signed)
    return b.fptrunc(out, ll.HalfType())


def f32_to_fp8(b: ll.IRBuilder, rint: Callable[[ll.Value], ll.Value], value: ll.Value, ty: ScalarType) -> ll.Value:
    """The f32 ``value`` rounded to nearest even into fp8 ``ty``'s bits (i8); ``rint`` emits
    ``llvm.rint.f32`` (to nearest even in the default floating-point environment)."""
    fmt = fp8_format(ty)
    bits = b.bitcast(value, I32)
    negative = b.icmp_unsigned("!=", b.lshr(bits, _i32(31)), _i32(0))
    magnitude_bits = b.and_(bits, _i32(0x7FFFFFFF))
    magnitude = b.bitcast(magnitude_bits, F32)
    # normal fp8 range: round f32's mantissa to fmt.mantissa bits (ties to even), then rebias
    shift = 23 - fmt.mantissa
    lsb = b.and_(b.lshr(magnitude_bits, _i32(shift)), _i32(1))
    rounded = b.lshr(b.add(magnitude_bits, b.add(lsb, _i32((1 << (shift - 1)) - 1))), _i32(shift))
    normal_code = b.sub(rounded, _i32((127 - fmt.bias) << fmt.mantissa))
    # subnormal range: the count of the smallest subnormal's steps, rounded to nearest even
    steps = b.fmul(magnitude, ll.Constant(F32, float(2.0 ** (fmt.bias - 1 + fmt.mantissa))))
    subnormal_code = b.fptoui(rint(steps), I32)
    smallest_normal = ll.Constant(F32, float(2.0 ** (1 - fmt.bias)))
    is_subnormal = b.fcmp_ordered("<", magnitude, smallest_normal)
    code = b.select(is_subnormal, subnormal_code, normal_code)
    overflow = b.icmp_signed(">", code, _i32(fmt.max_code))  # infinities too: their code is larger
    code = b.select(overflow, _i32(fmt.overflow_code), code)
    is_nan = b.fcmp_unordered("uno", value, value)
    code = b.select(is_nan, _i32(fmt.nan_code), code)
    sign = b.select(negative, _i32(0x80), _i32(0))
    if fmt.fnuz:  # no -0; the NaN/overflow code carries its own bit
        sign = b.select(b.icmp_unsigned("==", b.and_(code, _i32(0x7F)), _i32(0)), _i32(0), sign)
    return b.trunc(b.or_(code, sign), I8)


def constant_bits(ty: ScalarType, value: float) -> int:
    """The fp8 bits of ``value`` (the reference's conversion)."""
    import numpy as np

    if ty.ir in BITS_ONLY:  # a constant of fp8e4b15 holds its bits (ir.types.BITS_ONLY)
        return int(value) & 0xFF
    fp8_format(ty)
    return int(to_fp8(np.array(value, dtype=np.float32), ty).view(np.uint8))


__all__ = ["fp8_to_f16", "f32_to_fp8", "constant_bits", "FORMATS"]
