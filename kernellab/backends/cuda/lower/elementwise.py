"""Elementwise ops on the GPU: the shared scalar lowering (``backends/llvm``) mapped over layouts.

``SCALAR[name](ctx, op, args) -> ir.Value`` computes one element from the operands' elements
(LLVM scalars) on the device's :class:`~.scalars.DeviceScalars` (``ctx.scalars``); one table
entry per op name maps it over every register of the result layout.  Only constants (one
value in every register) are lowered here.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from ....ir import types as T
from ....ir.core import Op
from ....ir.types import Type, element_of
from ...llvm import SCALAR_OPS, ScalarLowering
from ...llvm.convert import convert
from .context import FunctionLowering, TileVal, lowering
from .nvvm import inline_asm
from .types import BF16, F16, constant

I32_0, I32_1 = ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), 1)

ScalarFn = Callable[[FunctionLowering, Op, list], ir.Value]
SCALAR: dict[str, ScalarFn] = {}


def map_elementwise(ctx: FunctionLowering, op: Op, layout, fn: ScalarFn) -> list:
    """Apply ``fn`` to the operands' elements: scalars, or every register in ``layout``."""
    if layout is None:
        return [fn(ctx, op, [ctx.get(v) for v in op.operands])]
    tiles = [ctx.get(v, layout) for v in op.operands]
    regs = [fn(ctx, op, [t.regs[r] for t in tiles]) for r in range(layout.num_regs)]
    return [TileVal(layout, regs)]


def _on_device(fn: ScalarLowering) -> ScalarFn:
    def compute(ctx: FunctionLowering, op: Op, args: list) -> ir.Value:
        return fn(ctx.scalars, op, args)
    return compute


def _register_elementwise(name: str) -> None:
    def lower(ctx: FunctionLowering, op: Op, layout) -> list:
        return map_elementwise(ctx, op, layout, SCALAR[name])
    lowering(name)(lower)


def _packed_narrowing(op: Op, layout) -> str | None:
    """The half type (PTX's name) an f32 tile is cast to, nearest even, two registers at a time."""
    if layout is None or layout.num_regs % 2 or op.attrs.get("rounding", "rtne") != "rtne":
        return None
    if element_of(op.operands[0].type) is not T.f32:
        return None
    return {T.f16: "f16", T.bf16: "bf16"}.get(element_of(op.result.type))


def _lower_cast(ctx: FunctionLowering, op: Op, layout) -> list:
    """Casts map over the registers like every elementwise op, but f32 -> f16/bf16 (nearest even)
    goes two registers at a time through ``cvt.rn.f16x2.f32`` (``bf16x2``): ptxas serializes
    every wgmma of a kernel where a scalar ``cvt.rn.f16.f32`` reads an accumulator (its C7514
    "Potential Performance Loss"; the matmul's epilogue did for a bf16 output, 441 against 550
    TFLOP/s on the H200). Inline PTX, since LLVM turns a ``fptrunc <2 x float>`` whose halves are
    used apart back into scalar conversions."""
    half = _packed_narrowing(op, layout)
    if half is None:
        return map_elementwise(ctx, op, layout, SCALAR["cast"])
    b = ctx.builder
    regs = ctx.get(op.operands[0], layout).regs
    halves = ir.VectorType(F16 if half == "f16" else BF16, 2)
    out = []
    for low, high in zip(regs[0::2], regs[1::2]):
        packed = inline_asm(b, f"cvt.rn.{half}x2.f32 $0, $1, $2;", "=r,f,f", [ir.IntType(32)], [high, low],
                            side_effect=False)[0]
        pair = b.bitcast(packed, halves)
        out += [b.extract_element(pair, I32_0), b.extract_element(pair, I32_1)]
    return [TileVal(layout, out)]


for _name, _fn in SCALAR_OPS.items():
    SCALAR[_name] = _on_device(_fn)
    if _name != "cast":
        _register_elementwise(_name)
lowering("cast")(_lower_cast)


def cast_value(ctx: FunctionLowering, x: ir.Value, source: Type, target: Type, rounding: str = "rtne") -> ir.Value:
    """Convert one element from Tile IR type ``source`` to ``target`` (the cast op's rules)."""
    return convert(ctx.scalars, x, source, target, rounding)


@lowering("constant")
def _lower_constant(ctx: FunctionLowering, op: Op, layout) -> list:
    value = constant(op.result.type, op.attrs["value"])
    if layout is None:
        return [value]
    return [TileVal(layout, [value] * layout.num_regs)]
