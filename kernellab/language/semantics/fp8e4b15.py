"""Triton's fp8e4b15: fp8e4nv's bit layout (sign, 4 exponent bits, 3 mantissa bits) with exponent
bias 15 and no NaN or infinity, made for fast software conversion to fp16.  No target computes
with it (its IR values are its bits, ``ir.types.BITS_ONLY``): conversions are integer operations
on the bits, Triton's NVIDIA ones (``convert_custom_float8``), on every target:

* to fp16 (exact, fp16 has the same exponent bias): the magnitude bits shifted left by 7 and the
  sign moved to bit 15;
* from fp16: the magnitude clamped to 1.75 (0x3F00: NaN and infinity too), doubled, 0x80 added
  (ties round away from zero) and the high byte kept, with the sign; f32 first goes to fp16
  rounding toward zero, as Triton's does.

Other types convert through fp16 (f32 to it); arithmetic on fp8e4b15 computes in fp16
(``typing.computation_type``) and its constants are built in fp16 and converted.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ...ir.types import ScalarType
from ..core import tensor
from .arith import ArithMixin
from .typing import python_value

_MAX_MAGNITUDE = 0x3F00  # 1.75 in fp16: the largest fp8e4b15 the conversion gives


class Fp8E4B15Mixin(ArithMixin):
    """Casts to and from fp8e4b15, and its constants, through fp16."""

    def cast(self, x: Any, dtype: Any, fp_downcast_rounding: str | None = None) -> tensor:
        x = self.to_tensor(x)
        target = python_value(dtype)
        target = target.element_ty if isinstance(target, T.TileType) else target
        if isinstance(target, ScalarType) and target is not x.dtype and T.f8e4b15 in (target, x.dtype):
            if fp_downcast_rounding not in (None, "rtne", "rtz"):
                return super().cast(x, dtype, fp_downcast_rounding)  # its error
            if x.dtype is T.f8e4b15:
                return super().cast(self._fp8e4b15_to_f16(x), target)
            return self._to_fp8e4b15(x)
        return super().cast(x, dtype, fp_downcast_rounding)

    def scalar_constant(self, value: Any, dtype: ScalarType | None = None) -> tensor:
        if dtype is T.f8e4b15:
            return self.cast(super().scalar_constant(value, T.f16), dtype)
        return super().scalar_constant(value, dtype)

    def full_constant(self, shape: tuple[int, ...], value: Any, dtype: ScalarType) -> tensor:
        if dtype is T.f8e4b15:
            return self.cast(super().full_constant(shape, value, T.f16), dtype)
        return super().full_constant(shape, value, dtype)

    def _fp8e4b15_to_f16(self, x: tensor) -> tensor:
        bits = self.cast(self.bitcast(x, T.u8), T.u16)
        half = self.or_(self.shl(self.and_(bits, 0x7F), 7), self.shl(self.and_(bits, 0x80), 8))
        return self.bitcast(half, T.f16)

    def _to_fp8e4b15(self, x: tensor) -> tensor:
        if x.dtype is not T.f16:
            if x.dtype is not T.f32:
                x = super().cast(x, T.f32)
            x = super().cast(x, T.f16, "rtz")
        bits = self.cast(self.bitcast(x, T.u16), T.u32)
        magnitude = self.and_(bits, 0x7FFF)
        magnitude = self.where(self.less_than(magnitude, _MAX_MAGNITUDE), magnitude, _MAX_MAGNITUDE)
        rounded = self.shr(self.add(self.shl(magnitude, 1), 0x80), 8)
        byte = self.or_(rounded, self.and_(self.shr(bits, 8), 0x80))
        return self.bitcast(self.cast(byte, T.u8), T.f8e4b15)


__all__ = ["Fp8E4B15Mixin"]
