"""Value conversions (the ``cast`` op) and bit reinterpretation (``bitcast``), shared by the
LLVM targets.

One semantics for every target and the reference (``kernellab/ir/ops/arith.py``), Triton's on
GPUs: float -> integer truncates toward zero and **saturates** (values past the target's
range give its minimum or maximum, infinities too) and **NaN gives 0**; integer -> integer
wraps (sign-extending signed sources); int -> float and float -> float round to nearest even
(float narrowing toward zero with ``rounding='rtz'``); anything -> ``i1`` is ``x != 0``;
pointers <-> i64 keep the address.
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir import types as T
from ...ir.core import Op
from ...ir.types import PointerType, Type
from .scalar import is_float, is_signed, operand_type, result_type, scalar
from .target import F32, I64, ScalarTarget, float_bits


@scalar("cast")
def lower_cast(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    return convert(t, values[0], operand_type(op), result_type(op), op.attrs.get("rounding", "rtne"))


def convert(t: ScalarTarget, x: ll.Value, src: Type, dst: Type, rounding: str = "rtne") -> ll.Value:
    """One value of Tile IR type ``src`` (in its storage) as ``dst`` (the module's semantics)."""
    if src is dst:
        return x
    if isinstance(src, PointerType) or isinstance(dst, PointerType):
        return _convert_pointer(t, x, src, dst)
    if src.is_fp8():
        return convert(t, t.fp8_to_f16(x, src), T.f16, dst, rounding)
    if dst.is_fp8():
        return t.f32_to_fp8(convert(t, x, src, T.f32, rounding), dst)
    if dst.is_bool():
        return _to_bool(t, x, src)
    if is_float(src) and is_float(dst):
        return _float_to_float(t, t.to_compute(x, src), dst, rounding)
    if is_float(src):
        return _float_to_int(t, t.to_compute(x, src), dst)
    if is_float(dst):
        target = t.compute_type(dst)
        out = t.b.sitofp(x, target) if is_signed(src) else t.b.uitofp(x, target)
        return t.from_compute(out, dst)
    return int_to_int(t, x, src, dst)


def _to_bool(t: ScalarTarget, x: ll.Value, src: Type) -> ll.Value:
    if is_float(src):
        value = t.to_compute(x, src)
        return t.b.fcmp_unordered("!=", value, ll.Constant(value.type, 0.0))
    return t.b.icmp_unsigned("!=", x, ll.Constant(x.type, 0))


def int_to_int(t: ScalarTarget, x: ll.Value, src: Type, dst: Type) -> ll.Value:
    """Wrap into a narrower type; sign-extend signed sources, zero-extend the others."""
    target = t.llvm_type(dst)
    if target.width == x.type.width:
        return x
    if target.width < x.type.width:
        return t.b.trunc(x, target)
    return t.b.sext(x, target) if is_signed(src) else t.b.zext(x, target)


def _float_to_int(t: ScalarTarget, x: ll.Value, dst: Type) -> ll.Value:
    """Toward zero, saturating, NaN -> 0: ``llvm.fpto[su]i.sat`` (from f32 or f64)."""
    if float_bits(x.type) < 32:
        x = t.b.fpext(x, F32)
    target = t.llvm_type(dst)
    kind = "fptosi" if is_signed(dst) else "fptoui"
    return t.call(f"llvm.{kind}.sat.i{target.width}.{'f32' if x.type == F32 else 'f64'}", target, [x])


def _float_to_float(t: ScalarTarget, x: ll.Value, dst: Type, rounding: str) -> ll.Value:
    """``x`` in its compute type; returns ``dst``'s storage."""
    target = t.compute_type(dst)
    if x.type != target:
        if float_bits(x.type) == float_bits(target):  # f16 <-> bf16 computed natively: through f32
            x = t.b.fpext(x, F32)
        if float_bits(x.type) < float_bits(target):
            x = t.b.fpext(x, target)
        else:
            x = t.truncate_float(x, target, rounding)
    return t.from_compute(x, dst, rounding)


def _convert_pointer(t: ScalarTarget, x: ll.Value, src: Type, dst: Type) -> ll.Value:
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        return int_to_int(t, t.b.ptrtoint(x, I64), T.i64, dst)
    return t.b.inttoptr(int_to_int(t, x, src, T.i64), t.llvm_type(dst))


@scalar("bitcast")
def lower_bitcast(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    src, dst = operand_type(op), result_type(op)
    x = values[0]
    target = t.llvm_type(dst)
    if x.type == target:
        return x
    if isinstance(src, PointerType):
        return t.b.ptrtoint(x, target)
    if isinstance(dst, PointerType):
        return t.b.inttoptr(x, target)
    return t.b.bitcast(x, target)
