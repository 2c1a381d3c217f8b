"""The GPU as a :class:`~kernellab.backends.llvm.target.ScalarTarget`: halves computed natively,
float multiplies and adds contracted into ``fma`` under ``enable_fp_fusion``,
f32 ``/`` as ``div.full`` (2 ulp, as Triton's), float ``%`` as libdevice's ``fmod``,
round-toward-zero narrowing with ``cvt.rz``, fp8 through ``cvt`` (``math.py`` is its math
library)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import llvmlite.ir as ir

from ....ir.mathfns import MathFunction
from ....ir.types import ScalarType, Type
from ...llvm.target import ScalarTarget, float_bits
from . import math as device_math
from .nvvm import inline_asm
from .types import F16, F32, F64, I8, I16, I32, llvm_type

if TYPE_CHECKING:  # pragma: no cover
    from .context import FunctionLowering


class DeviceScalars(ScalarTarget):
    def __init__(self, ctx: FunctionLowering):
        self.ctx = ctx

    @property
    def b(self) -> ir.IRBuilder:
        return self.ctx.builder

    @property
    def float_flags(self) -> tuple[str, ...]:
        """``contract`` under ``enable_fp_fusion`` (Triton's default): LLVM may fuse a multiply
        and the add that consumes it into one ``fma`` (rounded once)."""
        return ("contract",) if self.ctx.module.fp_fusion else ()

    def llvm_type(self, ty: Type) -> ir.Type:
        return llvm_type(ty)

    def call(self, name: str, ret: ir.Type, values: list[ir.Value]) -> ir.Value:
        return self.ctx.nvvm.call(self.ctx.builder, name, ret, values)

    def library_call(self, fn: MathFunction, signature: tuple[str, ...], values: list[ir.Value],
                     ret: ir.Type) -> ir.Value | None:
        """libdevice's function for this signature (``__nv_tanhf``, ``__nv_popcll``...)."""
        symbol = fn.nv.get(signature)
        return None if symbol is None else self.ctx.nvvm.call(self.ctx.builder, symbol, ret, values)

    def lowers_intrinsic(self, name: str) -> bool:
        return name in device_math.NATIVE_INTRINSICS

    def math_override(self, name: str, values: list[ir.Value]) -> ir.Value | None:
        return device_math.math_override(self.ctx.nvvm, self.ctx.builder, name, values)

    def approx_divide(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.call("llvm.nvvm.div.full", F32, [a, b])

    def float_remainder(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """libdevice ``fmod`` (halves through f32): LLVM's ``frem`` is not C's fmod on NVPTX."""
        if float_bits(a.type) > 16:
            return device_math.libdevice_call(self.ctx.nvvm, self.ctx.builder, "fmod", [a, b])
        builder = self.ctx.builder
        wide = device_math.libdevice_call(self.ctx.nvvm, builder, "fmod",
                                          [builder.fpext(a, F32), builder.fpext(b, F32)])
        return builder.fptrunc(wide, a.type)

    def truncate_float(self, value: ir.Value, to: ir.Type, rounding: str) -> ir.Value:
        """``cvt.rz`` toward zero (f64 -> half types through f32); else LLVM's ``fptrunc``."""
        if rounding != "rtz":
            return self.ctx.builder.fptrunc(value, to)
        if value.type == F64 and float_bits(to) == 16:
            value = self.truncate_float(value, F32, rounding)
        destination = {16: "f16" if to == F16 else "bf16", 32: "f32"}[float_bits(to)]
        source = "f64" if value.type == F64 else "f32"
        constraint = f"={'f' if to == F32 else 'h'},{'d' if value.type == F64 else 'f'}"
        return inline_asm(self.ctx.builder, f"cvt.rz.{destination}.{source} $0, $1;", constraint, [to], [value],
                          side_effect=False)[0]

    def fp8_to_f16(self, value: ir.Value, source: ScalarType) -> ir.Value:
        kind = "e4m3" if source.ir == "f8e4m3" else "e5m2"
        b = self.ctx.builder
        out = inline_asm(b, f"cvt.rn.f16x2.{kind}x2 $0, $1;", "=r,h", [I32], [b.zext(value, I16)],
                         side_effect=False)[0]
        return b.bitcast(b.trunc(out, I16), F16)

    def f32_to_fp8(self, value: ir.Value, target: ScalarType) -> ir.Value:
        kind = "e4m3" if target.ir == "f8e4m3" else "e5m2"
        b = self.ctx.builder
        out = inline_asm(b, f"cvt.rn.satfinite.{kind}x2.f32 $0, $1, $2;", "=h,f,f", [I16],
                         [ir.Constant(F32, 0.0), value], side_effect=False)[0]
        return b.trunc(out, I8)
