"""Tile creation, views and data movement between positions.

* ``splat``, ``arange`` and constants are computed in whatever layout is asked for.
* Views (``broadcast``, ``expand_dims``, ``trans``, ``reshape``, ``hint``) read the registers of
  their operand in the matching layout (projected, squeezed, permuted or re-indexed): no data
  moves unless the operand lives in another layout, which is then converted.
* ``join`` adds a register dimension, ``split`` picks registers; ``cat``, ``flip``, ``gather``,
  ``sort`` and ``histogram`` go through shared memory.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.core import Op
from ....ir.types import TileType
from ..layouts.assign import split_result_layout
from ..layouts.linear import Layout, permute, project, reshape, squeeze
from .context import FunctionLowering, TileVal, lowering
from .loops import counted_loop
from .shared import from_storage, load_shared, round_up, row_major, shared_bytes, storage_type, store_shared, to_storage
from .types import I32, byte_size, is_float, is_unsigned


@lowering("splat")
def _splat(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    value = ctx.get(op.operands[0])
    return [TileVal(layout, [value] * layout.num_regs)]


@lowering("arange")
def _arange(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    start = op.attrs["start"]
    offset = ctx.thread_offsets(layout)[0]
    b = ctx.builder
    base = b.add(offset, ir.Constant(I32, start)) if start else offset
    regs = [b.add(base, ir.Constant(I32, c[0])) if c[0] else base for c in layout.reg_coords]
    return [TileVal(layout, regs)]


@lowering("broadcast")
def _broadcast(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    source = op.operands[0]
    if not isinstance(source.type, TileType):
        value = ctx.get(source)
        return [TileVal(layout, [value] * layout.num_regs)]
    src_shape = source.type.shape
    dims = tuple(d for d, n in enumerate(src_shape) if n == 1 and layout.shape[d] > 1)
    wanted = project(layout, dims)
    wanted = Layout(src_shape, wanted.reg, wanted.lane, wanted.warp, wanted.kind, wanted.params)
    tile = ctx.get(source, wanted)
    index = tile.layout.reg_index
    regs = []
    for coord in layout.reg_coords:
        projected = tuple(0 if d in dims else c for d, c in enumerate(coord))
        regs.append(tile.regs[index[projected]])
    return [TileVal(layout, regs)]


def _same_registers(ctx: FunctionLowering, op: Op, layout: Layout, source_layout: Layout) -> list:
    tile = ctx.get(op.operands[0], source_layout)
    return [TileVal(layout, tile.regs)]


@lowering("expand_dims")
def _expand_dims(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    source = op.operands[0]
    if not isinstance(source.type, TileType):
        return [TileVal(layout, [ctx.get(source)] * layout.num_regs)]
    return _same_registers(ctx, op, layout, squeeze(layout, op.attrs["axis"]))


@lowering("trans")
def _trans(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    order = tuple(op.attrs["order"])
    inverse = tuple(order.index(i) for i in range(len(order)))
    return _same_registers(ctx, op, layout, permute(layout, inverse))


@lowering("reshape")
def _reshape(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    return _same_registers(ctx, op, layout, reshape(layout, op.operands[0].type.shape))


@lowering("hint")
def _hint(ctx: FunctionLowering, op: Op, layout: Layout | None) -> list:
    if layout is None:
        return [ctx.get(op.operands[0])]
    return [ctx.get(op.operands[0], layout)]


# ---- register moves ------------------------------------------------------------------------------

@lowering("join")
def _join(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    source = Layout(layout.shape[:-1], tuple(b[:-1] for b in layout.reg[1:]), tuple(b[:-1] for b in layout.lane),
                    tuple(b[:-1] for b in layout.warp))
    a, b = (ctx.get(v, source) for v in op.operands)
    regs = []
    for i in range(source.num_regs):
        regs += [a.regs[i], b.regs[i]]
    return [TileVal(layout, regs)]


@lowering("split")
def _split(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    source = ctx.plan.split_source_layout(ctx.plan.layout(op.operands[0]))
    tile = ctx.get(op.operands[0], source)
    last = source.rank - 1
    bit = next(i for i, b in enumerate(source.reg) if b[last])
    result = split_result_layout(source)
    low = (1 << bit) - 1
    halves = []
    for half in (0, 1):
        regs = []
        for i in range(result.num_regs):
            r = ((i & ~low) << 1) | (i & low) | (half << bit)
            regs.append(tile.regs[r])
        halves.append(TileVal(result, regs))
    return halves


# ---- through shared memory ---------------------------------------------------------------------

def _stage(ctx: FunctionLowering, tiles: list[tuple[TileVal, int]], ty, strides, total_bytes: int) -> None:
    ctx.reserve_shared(round_up(total_bytes))
    ctx.barrier()
    for tile, base in tiles:
        store_shared(ctx, tile, ty, base, strides)
    ctx.barrier()


def _load_at(ctx: FunctionLowering, ty, byte_offset: ir.Value) -> ir.Value:
    b = ctx.builder
    value = b.load(ctx.shared(byte_offset), typ=storage_type(ty), align=byte_size(ty))
    return from_storage(b, value, ty)


def _linear(ctx: FunctionLowering, coords: list[ir.Value], strides: tuple[int, ...], size: int) -> ir.Value:
    b = ctx.builder
    total = ir.Constant(I32, 0)
    for c, s in zip(coords, strides):
        total = b.add(total, b.mul(c, ir.Constant(I32, s * size)))
    return total


@lowering("cat")
def _cat(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    ty = op.result.type
    a, b = op.operands
    strides = row_major(ty.shape)
    first = ctx.get(a)
    second = ctx.get(b)
    offset = a.type.shape[0] * strides[0] * byte_size(ty)
    _stage(ctx, [(first, 0), (second, offset)], ty, strides, shared_bytes(ty.shape, strides, ty))
    return [load_shared(ctx, layout, ty, 0, strides)]


@lowering("flip")
def _flip(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    ty = op.result.type
    axis = op.attrs["axis"]
    strides = row_major(ty.shape)
    _stage(ctx, [(ctx.get(op.operands[0], layout), 0)], ty, strides, shared_bytes(ty.shape, strides, ty))
    b = ctx.builder
    regs = []
    for r in range(layout.num_regs):
        coords = ctx.coords(layout, r)
        coords[axis] = b.sub(ir.Constant(I32, ty.shape[axis] - 1), coords[axis])
        regs.append(_load_at(ctx, ty, _linear(ctx, coords, strides, byte_size(ty))))
    return [TileVal(layout, regs)]


@lowering("gather")
def _gather(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    src, index = op.operands
    ty = src.type
    axis = op.attrs["axis"]
    strides = row_major(ty.shape)
    _stage(ctx, [(ctx.get(src), 0)], ty, strides, shared_bytes(ty.shape, strides, ty))
    idx = ctx.get(index, layout)
    b = ctx.builder
    regs = []
    for r in range(layout.num_regs):
        coords = ctx.coords(layout, r)
        position = idx.regs[r]
        coords[axis] = b.trunc(position, I32) if position.type.width > 32 else (
            b.sext(position, I32) if position.type.width < 32 else position)
        regs.append(_load_at(ctx, ty, _linear(ctx, coords, strides, byte_size(ty))))
    return [TileVal(layout, regs)]


@lowering("sort")
def _sort(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    """Rank sort: each element counts the elements of its line that go before it (ties by
    position), then lands at that rank."""
    ty = op.result.type
    axis = op.attrs["axis"]
    descending = op.attrs["descending"]
    n = ty.shape[axis]
    size = byte_size(ty)
    strides = row_major(ty.shape)
    region = round_up(shared_bytes(ty.shape, strides, ty))
    tile = ctx.get(op.operands[0], layout)
    _stage(ctx, [(tile, 0)], ty, strides, 2 * region)
    b = ctx.builder
    for r in range(layout.num_regs):
        coords = ctx.coords(layout, r)
        mine = tile.regs[r]
        line = list(coords)
        line[axis] = ir.Constant(I32, 0)
        line_base = _linear(ctx, line, strides, size)

        def body(j, carried, mine=mine, coords=coords, line_base=line_base):
            other = _load_at(ctx, ty, b.add(line_base, b.mul(j, ir.Constant(I32, strides[axis] * size))))
            before = _less(ctx, ty, mine, other) if descending else _less(ctx, ty, other, mine)
            after = _less(ctx, ty, other, mine) if descending else _less(ctx, ty, mine, other)
            tie = b.and_(b.not_(b.or_(before, after)), b.icmp_signed("<", j, coords[axis]))
            goes_first = b.or_(before, tie)
            return [b.add(carried[0], b.zext(goes_first, I32))]

        rank = counted_loop(ctx, n, [ir.Constant(I32, 0)], body)[0]
        target = list(coords)
        target[axis] = rank
        ptr = ctx.shared(b.add(_linear(ctx, target, strides, size), ir.Constant(I32, region)))
        b.store(to_storage(b, mine, ty), ptr, align=size)
    ctx.barrier()
    return [load_shared(ctx, layout, ty, region, strides)]


def _less(ctx: FunctionLowering, ty, a: ir.Value, b_: ir.Value) -> ir.Value:
    b = ctx.builder
    if is_float(ty):
        return b.fcmp_ordered("<", a, b_)
    if is_unsigned(ty):
        return b.icmp_unsigned("<", a, b_)
    return b.icmp_signed("<", a, b_)


@lowering("histogram")
def _histogram(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    x = op.operands[0]
    mask = op.operand("mask")
    bins = op.attrs["num_bins"]
    b = ctx.builder
    ctx.reserve_shared(round_up(bins * 4))
    ctx.barrier()
    zero_layout = layout
    zeros = TileVal(zero_layout, [ir.Constant(I32, 0)] * zero_layout.num_regs)
    store_shared(ctx, zeros, op.result.type, 0, (1,))
    ctx.barrier()
    source_layout = ctx.plan.layout(x)
    values = ctx.get(x, source_layout)
    masks = ctx.get(mask, source_layout) if mask is not None else None
    owner = ctx.owner(source_layout)
    for r in range(source_layout.num_regs):
        v = values.regs[r]
        v32 = b.trunc(v, I32) if v.type.width > 32 else (b.sext(v, I32) if v.type.width < 32 else v)
        ok = b.and_(b.icmp_signed(">=", v32, ir.Constant(I32, 0)), b.icmp_signed("<", v32, ir.Constant(I32, bins)))
        if masks is not None:
            ok = b.and_(ok, masks.regs[r])
        if owner is not None:
            ok = b.and_(ok, owner)
        with b.if_then(ok):
            ptr = ctx.shared(b.mul(v32, ir.Constant(I32, 4)))
            b.atomic_rmw("add", ptr, ir.Constant(I32, 1), "monotonic")
    ctx.barrier()
    return [load_shared(ctx, layout, op.result.type, 0, (1,))]
