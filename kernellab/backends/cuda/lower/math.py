"""Math ops: NVVM approximate instructions where Triton uses them (``ex2.approx``,
``lg2.approx``, ``sqrt.approx``, ``rsqrt.approx``, ``div.full``), LLVM intrinsics for exact
ones (``llvm.sqrt``, ``llvm.fma``, ``llvm.floor``...), libdevice (``__nv_*``, linked into the
module when used) for the rest.  Half-precision inputs are computed in f32 and rounded back.
"""

from __future__ import annotations

import math

import llvmlite.ir as ir

from ....ir.core import Op
from .context import FunctionLowering
from .elementwise import SCALAR, _register_elementwise, intrinsic, scalar
from .types import F32, F64

LOG2E = 1.0 / math.log(2.0)
LN2 = math.log(2.0)


def _is_half(ty: ir.Type) -> bool:
    return str(ty) in ("half", "bfloat")


def _in_f32(ctx: FunctionLowering, args: list[ir.Value], fn) -> ir.Value:
    """Compute ``fn`` in f32 for half inputs, natively otherwise."""
    b = ctx.builder
    ty = args[0].type
    if _is_half(ty):
        return b.fptrunc(fn([b.fpext(a, F32) for a in args]), ty)
    return fn(args)


def libdevice_call(ctx: FunctionLowering, name: str, args: list[ir.Value]) -> ir.Value:
    """``__nv_<name>f`` for f32 (and halves, through f32), ``__nv_<name>`` for f64."""
    def call(values: list[ir.Value]) -> ir.Value:
        ty = values[0].type
        symbol = f"__nv_{name}" if ty == F64 else f"__nv_{name}f"
        return ctx.nvvm.call(ctx.builder, symbol, ty, values)
    return _in_f32(ctx, args, call)


def _nvvm_approx(ctx: FunctionLowering, name: str, x: ir.Value) -> ir.Value:
    return ctx.nvvm.call(ctx.builder, f"llvm.nvvm.{name}.approx.f", F32, [x])


def _unary(f32_fn, libdevice_name: str):
    def fn(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
        if args[0].type == F64:
            return libdevice_call(ctx, libdevice_name, args)
        return _in_f32(ctx, args, lambda xs: f32_fn(ctx, xs[0]))
    return fn


def _exp(ctx: FunctionLowering, x: ir.Value) -> ir.Value:
    return _nvvm_approx(ctx, "ex2", ctx.builder.fmul(x, ir.Constant(F32, LOG2E)))


def _log(ctx: FunctionLowering, x: ir.Value) -> ir.Value:
    return ctx.builder.fmul(_nvvm_approx(ctx, "lg2", x), ir.Constant(F32, LN2))


SCALAR["exp"] = _unary(_exp, "exp")
SCALAR["exp2"] = _unary(lambda ctx, x: _nvvm_approx(ctx, "ex2", x), "exp2")
SCALAR["log"] = _unary(_log, "log")
SCALAR["log2"] = _unary(lambda ctx, x: _nvvm_approx(ctx, "lg2", x), "log2")
SCALAR["sqrt"] = _unary(lambda ctx, x: _nvvm_approx(ctx, "sqrt", x), "sqrt")
SCALAR["rsqrt"] = _unary(lambda ctx, x: _nvvm_approx(ctx, "rsqrt", x), "rsqrt")


def _libdevice(name: str):
    def fn(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
        return libdevice_call(ctx, name, args)
    return fn


SCALAR["sin"] = _libdevice("sin")
SCALAR["cos"] = _libdevice("cos")
SCALAR["erf"] = _libdevice("erf")


def _exact(name: str):
    def fn(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
        if _is_half(args[0].type) and name == "sqrt":
            return _in_f32(ctx, args, lambda xs: intrinsic(ctx, name, xs))
        return intrinsic(ctx, name, args)
    return fn


SCALAR["sqrt_rn"] = _exact("sqrt")
SCALAR["floor"] = _exact("floor")
SCALAR["ceil"] = _exact("ceil")
SCALAR["fma"] = _exact("fma")


@scalar("div_rn")
def _div_rn(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    return ctx.builder.fdiv(*args)


@scalar("fdiv")
def _fdiv(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    if op.attrs.get("ieee_rounding") or args[0].type != F32:
        return ctx.builder.fdiv(*args)
    return ctx.nvvm.call(ctx.builder, "llvm.nvvm.div.full", F32, args)


@scalar("clamp")
def _clamp(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    x, lo, hi = args
    if op.attrs.get("propagate_nan") == "all":
        return intrinsic(ctx, "minimum", [intrinsic(ctx, "maximum", [x, lo]), hi])
    return intrinsic(ctx, "minnum", [intrinsic(ctx, "maxnum", [x, lo]), hi])


for _name in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "sqrt_rn", "floor", "ceil", "fma",
              "div_rn", "fdiv", "clamp"):
    _register_elementwise(_name)
