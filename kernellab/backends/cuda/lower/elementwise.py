"""Elementwise ops: one scalar function per op, applied to every register of a tile.

``SCALAR[name](ctx, op, args) -> ir.Value`` computes one element from the operands' elements
(LLVM scalars); the op's Tile IR types say whether integers are signed and which float type is
meant.  One table entry per op name maps the scalar function over the result layout.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from ....ir.core import Op
from ....ir.types import PointerType, ScalarType, element_of
from .context import FunctionLowering, TileVal, lowering
from .nvvm import inline_asm
from .types import F16, F32, GLOBAL_PTR, I1, I8, I16, I32, I64, constant, is_float, is_unsigned, llvm_type

ScalarFn = Callable[[FunctionLowering, Op, list], ir.Value]
SCALAR: dict[str, ScalarFn] = {}


def scalar(*names: str) -> Callable[[ScalarFn], ScalarFn]:
    def register(fn: ScalarFn) -> ScalarFn:
        for name in names:
            SCALAR[name] = fn
        return fn
    return register


def map_elementwise(ctx: FunctionLowering, op: Op, layout, fn: ScalarFn) -> list:
    """Apply ``fn`` to the operands' elements: scalars, or every register in ``layout``."""
    if layout is None:
        return [fn(ctx, op, [ctx.get(v) for v in op.operands])]
    tiles = [ctx.get(v, layout) for v in op.operands]
    regs = [fn(ctx, op, [t.regs[r] for t in tiles]) for r in range(layout.num_regs)]
    return [TileVal(layout, regs)]


def _register_elementwise(name: str) -> None:
    def lower(ctx: FunctionLowering, op: Op, layout) -> list:
        return map_elementwise(ctx, op, layout, SCALAR[name])
    lowering(name)(lower)


def element(op: Op, i: int = 0):
    return element_of(op.operands[i].type)


def intrinsic(ctx: FunctionLowering, name: str, args: list[ir.Value]) -> ir.Value:
    ty = args[0].type
    suffix = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}.get(str(ty)) or f"i{ty.width}"
    return ctx.nvvm.call(ctx.builder, f"llvm.{name}.{suffix}", ty, args)


# ---- arithmetic ---------------------------------------------------------------------------------

def _arith(float_fn: str, int_fn: str, unsigned_fn: str | None = None) -> ScalarFn:
    def fn(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
        b = ctx.builder
        ty = op.operands[0].type
        if is_float(ty):
            return getattr(b, float_fn)(*args)
        if unsigned_fn and is_unsigned(ty):
            return getattr(b, unsigned_fn)(*args)
        return getattr(b, int_fn)(*args)
    return fn


SCALAR["add"] = _arith("fadd", "add")
SCALAR["sub"] = _arith("fsub", "sub")
SCALAR["mul"] = _arith("fmul", "mul")
SCALAR["and"] = _arith("and_", "and_")
SCALAR["or"] = _arith("or_", "or_")
SCALAR["xor"] = _arith("xor", "xor")


@scalar("div")
def _div(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    """Floats: f32 uses ``div.full.f32`` (2 ulp, as Triton does for ``/``); ``div_rn`` is
    the IEEE division."""
    b = ctx.builder
    ty = op.operands[0].type
    if is_float(ty):
        if args[0].type == F32:
            return ctx.nvvm.call(b, "llvm.nvvm.div.full", F32, args)
        return b.fdiv(*args)
    if element(op).ir == "i1":
        return args[0]
    return b.udiv(*args) if is_unsigned(ty) else b.sdiv(*args)


@scalar("rem")
def _rem(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    ty = op.operands[0].type
    if is_float(ty):
        return _float_call(ctx, op, "fmod", args)
    if element(op).ir == "i1":
        return ir.Constant(I1, 0)
    return b.urem(*args) if is_unsigned(ty) else b.srem(*args)


@scalar("shl")
def _shl(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    a, s = args
    bits = a.type.width
    out = b.shl(a, s)
    too_far = b.icmp_unsigned(">=", s, ir.Constant(s.type, bits))
    return b.select(too_far, ir.Constant(a.type, 0), out)


@scalar("shr")
def _shr(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    a, s = args
    bits = a.type.width
    too_far = b.icmp_unsigned(">=", s, ir.Constant(s.type, bits))
    if is_unsigned(op.operands[0].type):
        return b.select(too_far, ir.Constant(a.type, 0), b.lshr(a, s))
    return b.ashr(a, b.select(too_far, ir.Constant(s.type, bits - 1), s))


def _min_max(which: str) -> ScalarFn:
    def fn(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
        ty = op.operands[0].type
        if is_float(ty):
            name = ("minimum" if which == "min" else "maximum") if op.attrs.get("propagate_nan") == "all" else (
                "minnum" if which == "min" else "maxnum")
            return intrinsic(ctx, name, args)
        if element(op).ir == "i1":
            return ctx.builder.and_(*args) if which == "min" else ctx.builder.or_(*args)
        prefix = "u" if is_unsigned(ty) else "s"
        return intrinsic(ctx, prefix + which, args)
    return fn


SCALAR["minimum"] = _min_max("min")
SCALAR["maximum"] = _min_max("max")


@scalar("umulhi")
def _umulhi(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    ty = args[0].type
    wide = ir.IntType(ty.width * 2)
    product = b.mul(b.zext(args[0], wide), b.zext(args[1], wide))
    return b.trunc(b.lshr(product, ir.Constant(wide, ty.width)), ty)


# ---- comparisons and selection -------------------------------------------------------------------

_FLOAT_PREDICATES = {"eq": ("==", True), "ne": ("!=", False), "lt": ("<", True), "le": ("<=", True),
                     "gt": (">", True), "ge": (">=", True)}
_INT_PREDICATES = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@scalar("cmp")
def _cmp(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    predicate = op.attrs["predicate"]
    ty = op.operands[0].type
    if is_float(ty):
        sign, ordered = _FLOAT_PREDICATES[predicate]
        return b.fcmp_ordered(sign, *args) if ordered else b.fcmp_unordered(sign, *args)
    if isinstance(element(op), PointerType) or is_unsigned(ty) or element(op).is_fp8():
        return b.icmp_unsigned(_INT_PREDICATES[predicate], *args)
    return b.icmp_signed(_INT_PREDICATES[predicate], *args)


@scalar("select")
def _select(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    return ctx.builder.select(*args)


# ---- conversions -------------------------------------------------------------------------------

@scalar("cast")
def _cast(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    return cast_value(ctx, args[0], element(op), element_of(op.result.type), op.attrs.get("rounding", "rtne"))


def cast_value(ctx: FunctionLowering, x: ir.Value, source, target, rounding: str = "rtne") -> ir.Value:
    """Convert one element from Tile IR type ``source`` to ``target`` (the cast op's rules)."""
    b = ctx.builder
    if source is target:
        return x
    if isinstance(source, PointerType) or isinstance(target, PointerType):
        if isinstance(source, PointerType) and isinstance(target, PointerType):
            return x
        if isinstance(source, PointerType):
            return b.ptrtoint(x, llvm_type(target))
        return b.inttoptr(b.sext(x, I64) if x.type.width < 64 else x, GLOBAL_PTR)
    if source.is_fp8():
        return cast_value(ctx, fp8_to_f16(ctx, x, source), _f16(), target, rounding)
    if target.is_fp8():
        wide = cast_value(ctx, x, source, _f32(), rounding) if source.ir != "f32" else x
        return f32_to_fp8(ctx, wide, target)
    if target.ir == "i1":
        if source.is_floating():
            return b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0))
        return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    to = llvm_type(target)
    if source.is_floating() and target.is_floating():
        return _float_to_float(ctx, x, source, target, rounding)
    if source.is_floating():
        return _float_to_int(b, x, target, to)
    if target.is_floating():
        unsigned = source.is_int_unsigned() or source.ir == "i1"
        return b.uitofp(x, to) if unsigned else b.sitofp(x, to)
    if source.primitive_bitwidth == target.primitive_bitwidth:
        return x
    if source.primitive_bitwidth > target.primitive_bitwidth:
        return b.trunc(x, to)
    unsigned = source.is_int_unsigned() or source.ir == "i1"
    return b.zext(x, to) if unsigned else b.sext(x, to)


def _float_to_int(b: ir.IRBuilder, x: ir.Value, target: ScalarType, to: ir.Type) -> ir.Value:
    """Truncate toward zero, then wrap into the target's width (as the reference does through
    int64): narrow and unsigned 32-bit targets convert to a wider signed integer first."""
    bits = target.primitive_bitwidth
    if bits == 64:
        return b.fptoui(x, to) if target.is_int_unsigned() else b.fptosi(x, to)
    if bits == 32 and not target.is_int_unsigned():
        return b.fptosi(x, to)
    return b.trunc(b.fptosi(x, I64 if bits == 32 else I32), to)


def _f16():
    from ....ir.types import f16

    return f16


def _f32():
    from ....ir.types import f32

    return f32


def _float_to_float(ctx: FunctionLowering, x: ir.Value, source: ScalarType, target: ScalarType, rounding: str):
    b = ctx.builder
    to = llvm_type(target)
    if source.primitive_bitwidth == target.primitive_bitwidth:  # f16 <-> bf16
        return _float_to_float(ctx, b.fpext(x, F32), _f32(), target, rounding)
    if source.primitive_bitwidth < target.primitive_bitwidth:
        return b.fpext(x, to)
    if rounding == "rtz":
        if source.ir == "f64" and target.ir != "f32":
            x = _float_to_float(ctx, x, source, _f32(), "rtz")
            source = _f32()
        suffix = {"f16": "f16", "bf16": "bf16", "f32": "f32"}[target.ir]
        return inline_asm(b, f"cvt.rz.{suffix}.{'f64' if source.ir == 'f64' else 'f32'} $0, $1;",
                          f"={'f' if target.ir == 'f32' else 'h'},{'d' if source.ir == 'f64' else 'f'}",
                          [to], [x], side_effect=False)[0]
    return b.fptrunc(x, to)


def fp8_to_f16(ctx: FunctionLowering, x: ir.Value, source: ScalarType) -> ir.Value:
    kind = "e4m3" if source.ir == "f8e4m3" else "e5m2"
    b = ctx.builder
    packed = b.zext(x, I16)
    out = inline_asm(b, f"cvt.rn.f16x2.{kind}x2 $0, $1;", "=r,h", [I32], [packed], side_effect=False)[0]
    return b.bitcast(b.trunc(out, I16), F16)


def f32_to_fp8(ctx: FunctionLowering, x: ir.Value, target: ScalarType) -> ir.Value:
    kind = "e4m3" if target.ir == "f8e4m3" else "e5m2"
    b = ctx.builder
    out = inline_asm(b, f"cvt.rn.satfinite.{kind}x2.f32 $0, $1, $2;", "=h,f,f", [I16],
                     [ir.Constant(F32, 0.0), x], side_effect=False)[0]
    return b.trunc(out, I8)


@scalar("bitcast")
def _bitcast(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    b = ctx.builder
    source, target = element(op), element_of(op.result.type)
    to = llvm_type(target)
    if args[0].type == to:
        return args[0]
    if isinstance(source, PointerType):
        return b.ptrtoint(args[0], to)
    if isinstance(target, PointerType):
        return b.inttoptr(args[0], to)
    return b.bitcast(args[0], to)


# ---- unary -------------------------------------------------------------------------------------

@scalar("neg")
def _neg(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    if is_float(op.operands[0].type):
        return ctx.builder.fneg(args[0])
    return ctx.builder.sub(ir.Constant(args[0].type, 0), args[0])


@scalar("not")
def _not(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    return ctx.builder.not_(args[0])


@scalar("abs")
def _abs(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    ty = op.operands[0].type
    if is_float(ty):
        return intrinsic(ctx, "fabs", args)
    if is_unsigned(ty):
        return args[0]
    return ctx.nvvm.call(ctx.builder, f"llvm.abs.i{args[0].type.width}", args[0].type,
                         [args[0], ir.Constant(I1, 0)])


@scalar("constant")
def _constant(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
    return constant(op.result.type, op.attrs["value"])


def _float_call(ctx: FunctionLowering, op: Op, name: str, args: list) -> ir.Value:
    from .math import libdevice_call

    return libdevice_call(ctx, name, args)


for _name in ("add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "minimum", "maximum", "umulhi",
              "cmp", "select", "cast", "bitcast", "neg", "not", "abs"):
    _register_elementwise(_name)


@lowering("constant")
def _lower_constant(ctx: FunctionLowering, op: Op, layout) -> list:
    value = constant(op.result.type, op.attrs["value"])
    if layout is None:
        return [value]
    return [TileVal(layout, [value] * layout.num_regs)]
