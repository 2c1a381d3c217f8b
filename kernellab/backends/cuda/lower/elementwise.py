"""Elementwise ops on the GPU: the shared scalar lowering (``backends/llvm``) mapped over layouts.

``SCALAR[name](ctx, op, args) -> ir.Value`` computes one element from the operands' elements
(LLVM scalars) on the device's :class:`~.scalars.DeviceScalars` (``ctx.scalars``); one table
entry per op name maps it over every register of the result layout.  Only constants (one
value in every register) are lowered here.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from ....ir.core import Op
from ....ir.types import Type
from ...llvm import SCALAR_OPS, ScalarLowering
from ...llvm.convert import convert
from .context import FunctionLowering, TileVal, lowering
from .types import constant

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


for _name, _fn in SCALAR_OPS.items():
    SCALAR[_name] = _on_device(_fn)
    _register_elementwise(_name)


def cast_value(ctx: FunctionLowering, x: ir.Value, source: Type, target: Type, rounding: str = "rtne") -> ir.Value:
    """Convert one element from Tile IR type ``source`` to ``target`` (the cast op's rules)."""
    return convert(ctx.scalars, x, source, target, rounding)


@lowering("constant")
def _lower_constant(ctx: FunctionLowering, op: Op, layout) -> list:
    value = constant(op.result.type, op.attrs["value"])
    if layout is None:
        return [value]
    return [TileVal(layout, [value] * layout.num_regs)]
