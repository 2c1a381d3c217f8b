"""Structured control flow (``for``, ``if``, ``while``, ``call``, ``return``) and the program
model (``program_id``, ``num_programs``).

Control flow is uniform across the CTA (conditions are scalars), so barriers inside loops and
branches are legal.  Carried tiles become one phi per register, in the layout the plan gave the
carried value; yielded values are converted to it first.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.core import Block, Op, Value
from ....ir.types import PointerType, ScalarType, TileType, Type
from ...llvm.loops import annotate_latch
from . import cluster
from .context import FunctionLowering, Lowered, StructVal, TileVal, is_tile, lowering
from .types import I32

# ---- flattening lowered values (for phis, calls and returns) -----------------------------------

def flatten(lowered: Lowered) -> list[ir.Value]:
    if isinstance(lowered, TileVal):
        return list(lowered.regs)
    if isinstance(lowered, StructVal):
        return lowered.flatten()
    return [lowered]


def flat_count(ty: Type, layout) -> int:
    if isinstance(ty, TileType):
        return layout.num_regs
    if isinstance(ty, PointerType) and ty.is_block_ptr():
        return 1 + 3 * len(ty.element_ty.shape)
    if ty.is_tensor_descriptor():
        return 1 + 2 * len(ty.block_type.shape)
    return 1


def unflatten(values: list[ir.Value], ty: Type, layout) -> Lowered:
    if isinstance(ty, TileType):
        return TileVal(layout, list(values))
    if isinstance(ty, PointerType) and ty.is_block_ptr():
        return StructVal.unflatten(values, len(ty.element_ty.shape), True)
    if ty.is_tensor_descriptor():
        return StructVal.unflatten(values, len(ty.block_type.shape), False)
    return values[0]


def _layouts(ctx: FunctionLowering, values: list[Value]) -> list:
    return [ctx.plan.layout(v) if is_tile(v) else None for v in values]


def _fetch_flat(ctx: FunctionLowering, values: list[Value], layouts: list) -> list[ir.Value]:
    flat: list[ir.Value] = []
    for v, layout in zip(values, layouts):
        flat += flatten(ctx.get(v, layout))
    return flat


def _split(flat: list[ir.Value], types: list[Type], layouts: list) -> list[Lowered]:
    out, i = [], 0
    for ty, layout in zip(types, layouts):
        n = flat_count(ty, layout)
        out.append(unflatten(flat[i:i + n], ty, layout))
        i += n
    return out


def _phis(b: ir.IRBuilder, incoming: list[ir.Value], block: ir.Block) -> list[ir.PhiInstr]:
    phis = []
    for value in incoming:
        phi = b.phi(value.type)
        phi.add_incoming(value, block)
        phis.append(phi)
    return phis


def _lower_body(ctx: FunctionLowering, block: Block) -> Op:
    """Lower every op of ``block`` but its terminator; return the terminator."""
    for op in block.ops[:-1]:
        ctx.lower_op(op)
    return block.terminator


# ---- for ---------------------------------------------------------------------------------------

@lowering("for")
def _for(ctx: FunctionLowering, op: Op, layout) -> list:
    b = ctx.builder
    lower, upper, step = (ctx.get(v) for v in op.operands[:3])
    iv_type = op.operands[0].type
    body = op.regions[0]
    args = body.args[1:]
    layouts = _layouts(ctx, args)
    types = [a.type for a in args]
    init = _fetch_flat(ctx, op.operand_group("init"), layouts)
    before = b.block
    header, inside, after = ctx.new_block("for.header"), ctx.new_block("for.body"), ctx.new_block("for.exit")
    b.branch(header)
    hoist = ctx.hoist_point()
    b.position_at_end(header)
    iv = b.phi(lower.type, name="iv")
    iv.add_incoming(lower, before)
    phis = _phis(b, init, before)
    b.cbranch(_loop_condition(b, iv, upper, step, iv_type), inside, after)
    b.position_at_end(inside)
    with ctx.scope(body, hoist):
        ctx.set(body.args[0], iv)
        for arg, lowered in zip(args, _split(list(phis), types, layouts)):
            ctx.set(arg, lowered)
        terminator = _lower_body(ctx, body)
        with ctx.at(terminator.loc):
            yielded = _fetch_flat(ctx, terminator.operands, layouts)
            latch = b.block
            iv.add_incoming(b.add(iv, step), latch)
    for phi, value in zip(phis, yielded):
        phi.add_incoming(value, latch)
    annotate_latch(b.branch(header), op)
    b.position_at_end(after)
    return _split(list(phis), [r.type for r in op.results], layouts)


def _loop_condition(b: ir.IRBuilder, iv: ir.Value, upper: ir.Value, step: ir.Value, ty: Type) -> ir.Value:
    unsigned = isinstance(ty, ScalarType) and ty.is_int_unsigned()
    compare = b.icmp_unsigned if unsigned else b.icmp_signed
    if isinstance(step, ir.Constant):
        return compare("<" if int(step.constant) > 0 or unsigned else ">", iv, upper)
    if unsigned:
        return compare("<", iv, upper)
    positive = b.icmp_signed(">", step, ir.Constant(step.type, 0))
    return b.select(positive, compare("<", iv, upper), compare(">", iv, upper))


# ---- if ----------------------------------------------------------------------------------------

@lowering("if")
def _if(ctx: FunctionLowering, op: Op, layout) -> list:
    b = ctx.builder
    cond = ctx.get(op.operands[0])
    layouts = _layouts(ctx, op.results)
    then_bb, else_bb, merge = ctx.new_block("if.then"), ctx.new_block("if.else"), ctx.new_block("if.end")
    b.cbranch(cond, then_bb, else_bb)
    incoming = []
    for region, block in zip(op.regions, (then_bb, else_bb)):
        b.position_at_end(block)
        with ctx.scope(region):
            terminator = _lower_body(ctx, region)
            with ctx.at(terminator.loc):
                values = _fetch_flat(ctx, terminator.operands, layouts)
        incoming.append((values, b.block))
        b.branch(merge)
    b.position_at_end(merge)
    if not op.results:
        return []
    merged = []
    for i in range(len(incoming[0][0])):
        phi = b.phi(incoming[0][0][i].type)
        for values, block in incoming:
            phi.add_incoming(values[i], block)
        merged.append(phi)
    return _split(merged, [r.type for r in op.results], layouts)


# ---- while ---------------------------------------------------------------------------------------

@lowering("while")
def _while(ctx: FunctionLowering, op: Op, layout) -> list:
    b = ctx.builder
    before_region, after_region = op.regions
    before_layouts = _layouts(ctx, before_region.args)
    after_layouts = _layouts(ctx, after_region.args)
    before_types = [a.type for a in before_region.args]
    after_types = [a.type for a in after_region.args]
    init = _fetch_flat(ctx, op.operand_group("init"), before_layouts)
    entry = b.block
    before_bb, after_bb, exit_bb = ctx.new_block("while.before"), ctx.new_block("while.after"), ctx.new_block(
        "while.exit")
    b.branch(before_bb)
    hoist = ctx.hoist_point()
    b.position_at_end(before_bb)
    phis = _phis(b, init, entry)
    with ctx.scope(before_region, hoist):
        for arg, lowered in zip(before_region.args, _split(list(phis), before_types, before_layouts)):
            ctx.set(arg, lowered)
        condition = _lower_body(ctx, before_region)
        with ctx.at(condition.loc):
            cond = ctx.get(condition.operands[0])
            forwarded = _fetch_flat(ctx, condition.operands[1:], after_layouts)
    b.cbranch(cond, after_bb, exit_bb)
    b.position_at_end(after_bb)
    with ctx.scope(after_region, hoist):
        for arg, lowered in zip(after_region.args, _split(forwarded, after_types, after_layouts)):
            ctx.set(arg, lowered)
        terminator = _lower_body(ctx, after_region)
        with ctx.at(terminator.loc):
            yielded = _fetch_flat(ctx, terminator.operands, before_layouts)
    for phi, value in zip(phis, yielded):
        phi.add_incoming(value, b.block)
    annotate_latch(b.branch(before_bb), op)
    b.position_at_end(exit_bb)
    return _split(forwarded, after_types, after_layouts)


# ---- calls and returns -----------------------------------------------------------------------------

@lowering("call")
def _call(ctx: FunctionLowering, op: Op, layout) -> list:
    callee = ctx.module.callee(op.attrs["callee"])
    args = _fetch_flat(ctx, op.operands, callee.arg_layouts)
    result = ctx.builder.call(callee.llfn, args)
    if not op.results:
        return []
    flat_types = callee.result_flat_types
    flat = [ctx.builder.extract_value(result, i) for i in range(len(flat_types))]
    return _split(flat, [r.type for r in op.results], callee.result_layouts)


@lowering("return")
def _return(ctx: FunctionLowering, op: Op, layout) -> None:
    b = ctx.builder
    if not op.operands:
        b.ret_void()
    else:
        layouts = ctx.module.result_layouts(ctx.function)
        flat = _fetch_flat(ctx, op.operands, layouts)
        struct = ir.LiteralStructType([v.type for v in flat])
        value = ir.Constant(struct, ir.Undefined)
        for i, v in enumerate(flat):
            value = b.insert_value(value, v, i)
        b.ret(value)
    b.position_at_end(ctx.new_block("unreachable"))
    return None


@lowering("yield", "condition")
def _terminator(ctx: FunctionLowering, op: Op, layout) -> None:
    raise ctx.error(f"{op.name} outside of the region it ends", op)


# ---- program model -------------------------------------------------------------------------------

@lowering("program_id")
def _program_id(ctx: FunctionLowering, op: Op, layout) -> list:
    return [cluster.program_id(ctx, op.attrs["axis"])]


@lowering("num_programs")
def _num_programs(ctx: FunctionLowering, op: Op, layout) -> list:
    return [cluster.num_programs(ctx, op.attrs["axis"])]


__all__ = ["flatten", "unflatten", "flat_count", "I32"]
