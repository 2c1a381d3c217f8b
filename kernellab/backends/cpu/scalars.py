"""The host as a :class:`~kernellab.backends.llvm.target.ScalarTarget`: f16/bf16 computed in f32
(bf16 stored as its 16 bits in an i16), libm for the C math library, and an ``exp``/``exp2``
for f32 that vectorizes (``mathlib.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import llvmlite.ir as ll

from ...ir.mathfns import MathFunction
from ...ir.types import ScalarType, Type
from ..llvm.target import ScalarTarget
from . import fp8, mathlib
from .llvm_types import F32, compute_type, is_half, llvm_type, narrow, widen

if TYPE_CHECKING:  # pragma: no cover
    from .emitter import Emitter


class HostScalars(ScalarTarget):
    minnum_as_select = True

    def __init__(self, em: Emitter):
        self.em = em

    @property
    def b(self) -> ll.IRBuilder:
        return self.em.b

    @property
    def float_flags(self) -> tuple[str, ...]:
        return self.em.float_flags

    def llvm_type(self, ty: Type) -> ll.Type:
        return llvm_type(ty)

    def compute_type(self, ty: Type) -> ll.Type:
        return compute_type(ty)

    def to_compute(self, value: ll.Value, ty: Type) -> ll.Value:
        return widen(self.em.b, value, ty)

    def from_compute(self, value: ll.Value, ty: Type, rounding: str = "rtne") -> ll.Value:
        if not is_half(ty):
            return value
        near = narrow(self.em.b, value, ty)
        if rounding != "rtz":
            return near
        return self._toward_zero(value, near, ty)

    def _toward_zero(self, value: ll.Value, near: ll.Value, ty: Type) -> ll.Value:
        """Round-toward-zero f32 -> half type: step the nearest result back where it overshot."""
        b = self.em.b
        magnitude = self.intrinsic("fabs", [value])
        over = b.fcmp_ordered(">", self.intrinsic("fabs", [widen(b, near, ty)]), magnitude)
        finite = b.fcmp_ordered("<", magnitude, ll.Constant(F32, float("inf")))
        i16 = ll.IntType(16)
        bits = near if near.type == i16 else b.bitcast(near, i16)
        out = b.select(b.and_(over, finite), b.sub(bits, ll.Constant(i16, 1)), bits)
        return out if near.type == i16 else b.bitcast(out, near.type)

    def fp8_to_f16(self, value: ll.Value, source: ScalarType) -> ll.Value:
        return fp8.fp8_to_f16(self.em.b, value, source)

    def f32_to_fp8(self, value: ll.Value, target: ScalarType) -> ll.Value:
        return fp8.f32_to_fp8(self.em.b, lambda x: self.intrinsic("rint", [x]), value, target)

    def call(self, name: str, ret: ll.Type, values: list[ll.Value]) -> ll.Value:
        fn = self.em.ml.function(name, ll.FunctionType(ret, [v.type for v in values]))
        return self.em.b.call(fn, values)

    def library_call(self, fn: MathFunction, signature: tuple[str, ...], values: list[ll.Value],
                     ret: ll.Type) -> ll.Value | None:
        """libm: ``tanhf`` for f32, ``tanh`` for f64 (by the first float operand: ``jnf(int, float)``)."""
        if fn.c_name is None:
            return None
        single = next(ty == "f32" for ty in signature if ty in ("f32", "f64"))
        return self.call(fn.c_name + ("f" if single else ""), ret, values)

    def math_override(self, name: str, values: list[ll.Value]) -> ll.Value | None:
        x = values[0]
        if name == "exp" and x.type == F32:
            return mathlib.exp_f32(self.em, x)
        if name == "exp2" and x.type == F32:
            return mathlib.exp2_f32(self.em, x)
        if name == "pow" and isinstance(values[1].type, ll.IntType):  # powf(x, (float)n): exact for |n| < 2**24
            return self.call("powf" if x.type == F32 else "pow", x.type, [x, self.em.b.sitofp(values[1], x.type)])
        if name == "rsqrt":
            return self.em.b.fdiv(ll.Constant(x.type, 1.0), self.intrinsic("sqrt", [x]))
        if name in ("jn", "yn"):
            return self._bessel_order(name, values)
        return None

    def _bessel_order(self, name: str, values: list[ll.Value]) -> ll.Value:
        """libm's jn/yn, NaN for a negative order as libdevice's (libm gives (-1)^n J_n)."""
        b, (n, x) = self.em.b, values
        out = self.call(name + ("f" if x.type == F32 else ""), x.type, values)
        negative = b.icmp_signed("<", n, ll.Constant(n.type, 0))
        return b.select(negative, ll.Constant(x.type, float("nan")), out)

    def as_bool(self, value: ll.Value) -> ll.Value:
        return self.em.as_bool(value)
