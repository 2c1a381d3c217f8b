"""Reductions and scans: registers first, then lanes (warp shuffles), then warps (shared memory).

The combine region (``2n`` scalars -> ``n``) is lowered inline wherever two partial results
meet.  Along the reduced axis a layout has register bits (combined inside the thread), lane bits
(combined with ``shfl.sync.bfly`` butterflies: afterwards every lane of the group holds the
total) and warp bits (each warp writes its partial to shared memory, a barrier, every thread
combines the partials of its element).  The result lives in the slice layout: lanes and warps
that differed only along the axis now hold the same element.

Scans need each thread's elements along the axis to be consecutive, then lanes, then warps
(``LayoutPlan.scan_layout``): a sequential scan inside the thread, a Hillis-Steele scan of the
thread totals over lanes (``shfl.sync.idx``), warp totals through shared memory, and each
element combined with the prefix of everything before its thread.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.core import Block, Op
from ....ir.types import Type, element_of
from ..layouts.linear import Layout, slice_layout
from .context import FunctionLowering, TileVal, lowering
from .nvvm import join_words, split_words
from .shared import from_storage, round_up, storage_type, to_storage
from .types import I1, I32, byte_size

Values = list[ir.Value]


def combiner(ctx: FunctionLowering, region: Block):
    """A function (a_values, b_values) -> values that lowers the combine region inline."""
    def combine(a: Values, b: Values) -> Values:
        for arg, value in zip(region.args, list(a) + list(b)):
            ctx.set(arg, value)
        for op in region.ops[:-1]:
            ctx.lower_op(op)
        return [ctx.get(v) for v in region.terminator.operands]
    return combine


def shuffle(ctx: FunctionLowering, kind: str, value: ir.Value, lane) -> ir.Value:
    """A shuffle of any scalar (split into 32-bit words)."""
    words = split_words(ctx.builder, value)
    moved = [ctx.nvvm.shuffle(ctx.builder, kind, w, lane) for w in words]
    return join_words(ctx.builder, moved, value.type)


def _select_all(b: ir.IRBuilder, cond: ir.Value, a: Values, c: Values) -> Values:
    return [b.select(cond, x, y) for x, y in zip(a, c)]


def _groups(layout: Layout, axis: int, reverse: bool = False) -> dict[tuple, list[int]]:
    """Registers grouped by their coordinate off the axis, each group in axis order."""
    groups: dict[tuple, list[tuple[int, int]]] = {}
    for r, coord in enumerate(layout.reg_coords):
        key = coord[:axis] + (0,) + coord[axis + 1:]
        groups.setdefault(key, []).append((coord[axis], r))
    return {k: [r for _, r in sorted(v, reverse=reverse)] for k, v in groups.items()}


def _bit_index(ctx: FunctionLowering, source: ir.Value, bits: list[int]) -> ir.Value:
    """Gather ``bits`` of ``source`` into a dense index (bit i of the result = bits[i])."""
    b = ctx.builder
    total = ir.Constant(I32, 0)
    for i, bit in enumerate(bits):
        piece = b.and_(b.lshr(source, ir.Constant(I32, bit)), ir.Constant(I32, 1))
        total = b.or_(total, b.shl(piece, ir.Constant(I32, i))) if i else b.or_(total, piece)
    return total


def _row_linear(ctx: FunctionLowering, layout: Layout, r: int, axis: int) -> ir.Value:
    """Row-major index of register ``r``'s element with the axis removed."""
    b = ctx.builder
    coords = ctx.coords(layout, r)
    shape = layout.shape
    total: ir.Value = ir.Constant(I32, 0)
    stride = 1
    for d in reversed(range(layout.rank)):
        if d == axis:
            continue
        total = b.add(total, b.mul(coords[d], ir.Constant(I32, stride)))
        stride *= shape[d]
    return total


# ---- reduce --------------------------------------------------------------------------------------

@lowering("reduce")
def _reduce(ctx: FunctionLowering, op: Op, layout: Layout | None) -> list:
    axis = op.attrs["axis"]
    source = ctx.plan.layout(op.operands[0])
    tiles = [ctx.get(v, source) for v in op.operands]
    types = [v.type for v in op.operands]
    combine = combiner(ctx, op.regions[0])
    partial: dict[tuple, Values] = {}
    for key, regs in _groups(source, axis).items():
        acc = [t.regs[regs[0]] for t in tiles]
        for r in regs[1:]:
            acc = combine(acc, [t.regs[r] for t in tiles])
        partial[key] = acc
    _, lane_bits, warp_bits = source.bits_along(axis)
    for bit in lane_bits:
        for key, acc in partial.items():
            partial[key] = combine(acc, [shuffle(ctx, "bfly", v, 1 << bit) for v in acc])
    if warp_bits:
        partial = _across_warps(ctx, source, axis, partial, warp_bits, types, combine)
    result = slice_layout(source, axis)
    if layout is None:
        return list(next(iter(partial.values())))
    outs = []
    for i in range(len(op.results)):
        regs = [partial[c[:axis] + (0,) + c[axis:]][i] for c in result.reg_coords]
        outs.append(TileVal(result, regs))
    return outs


class _WarpSlots:
    """Shared memory for per-warp partials: for each operand a region of ``rows * count``
    entries; the entry of a row (element off the axis) and warp is ``row * count + warp``."""

    def __init__(self, ctx: FunctionLowering, layout: Layout, axis: int, warp_bits: list[int], types: list[Type]):
        self.ctx = ctx
        self.layout = layout
        self.axis = axis
        self.count = 1 << len(warp_bits)
        self.types = types
        self.sizes = [byte_size(t) for t in types]
        rows = layout.numel // layout.shape[axis]
        self.bases, total = [], 0
        for size in self.sizes:
            self.bases.append(total)
            total += round_up(rows * self.count * size)
        ctx.reserve_shared(total)

    def row(self, key: tuple) -> ir.Value:
        """The first entry of the row of the registers grouped under ``key``."""
        r = self.layout.reg_index[key]
        return self.ctx.builder.mul(_row_linear(self.ctx, self.layout, r, self.axis), ir.Constant(I32, self.count))

    def _pointer(self, slot: ir.Value, i: int) -> ir.Value:
        b = self.ctx.builder
        offset = b.add(b.mul(slot, ir.Constant(I32, self.sizes[i])), ir.Constant(I32, self.bases[i]))
        return self.ctx.shared(offset)

    def store(self, slot: ir.Value, values: Values) -> None:
        b = self.ctx.builder
        for i, (value, ty) in enumerate(zip(values, self.types)):
            b.store(to_storage(b, value, ty), self._pointer(slot, i), align=self.sizes[i])

    def load(self, slot: ir.Value) -> Values:
        b = self.ctx.builder
        return [from_storage(b, b.load(self._pointer(slot, i), typ=storage_type(ty), align=self.sizes[i]), ty)
                for i, ty in enumerate(self.types)]


def _across_warps(ctx: FunctionLowering, source: Layout, axis: int, partial: dict[tuple, Values], warp_bits: list[int],
                  types: list[Type], combine) -> dict[tuple, Values]:
    b = ctx.builder
    slots = _WarpSlots(ctx, source, axis, warp_bits, types)
    widx = _bit_index(ctx, ctx.warp, warp_bits)
    rows = {key: slots.row(key) for key in partial}
    ctx.barrier()
    for key, acc in partial.items():
        slots.store(b.add(rows[key], widx), acc)
    ctx.barrier()
    out = {}
    for key in partial:
        acc = None
        for j in range(slots.count):
            values = slots.load(b.add(rows[key], ir.Constant(I32, j)))
            acc = values if acc is None else combine(acc, values)
        out[key] = acc
    return out


# ---- scan ----------------------------------------------------------------------------------------

@lowering("scan")
def _scan(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    b = ctx.builder
    axis = op.attrs["axis"]
    reverse = bool(op.attrs.get("reverse"))
    tiles = [ctx.get(v, layout) for v in op.operands]
    types = [v.type for v in op.operands]
    combine = combiner(ctx, op.regions[0])
    outs: list[Values] = [list(t.regs) for t in tiles]
    totals: dict[tuple, Values] = {}
    groups = _groups(layout, axis, reverse)
    for key, regs in groups.items():
        running = [t.regs[regs[0]] for t in tiles]
        for r in regs[1:]:
            running = combine(running, [t.regs[r] for t in tiles])
            for i in range(len(tiles)):
                outs[i][r] = running[i]
        totals[key] = running
    _, lane_bits, warp_bits = layout.bits_along(axis)
    prefix: dict[tuple, tuple[Values, ir.Value | None]] = {key: ([], None) for key in groups}
    if lane_bits:
        prefix = _scan_lanes(ctx, lane_bits, totals, combine, reverse)
        inclusive = {key: totals_incl for key, (totals_incl, _) in prefix.items()}
        prefix = {key: (p, valid) for key, (_, (p, valid)) in _exclusive(ctx, lane_bits, inclusive, reverse).items()}
    else:
        inclusive = totals
    if warp_bits:
        warp_prefix = _scan_warps(ctx, layout, axis, lane_bits, warp_bits, inclusive, types, combine, reverse)
        prefix = {key: _join_prefix(b, warp_prefix[key], prefix[key], combine) for key in groups}
    for key, regs in groups.items():
        values, valid = prefix[key]
        if valid is None:
            continue
        for r in regs:
            current = [outs[i][r] for i in range(len(tiles))]
            merged = _select_all(b, valid, combine(values, current), current)
            for i in range(len(tiles)):
                outs[i][r] = merged[i]
    return [TileVal(layout, regs) for regs in outs]


def _logical(ctx: FunctionLowering, source: ir.Value, bits: list[int], reverse: bool) -> ir.Value:
    index = _bit_index(ctx, source, bits)
    if reverse:
        return ctx.builder.sub(ir.Constant(I32, (1 << len(bits)) - 1), index)
    return index


def _physical_lane(ctx: FunctionLowering, logical: ir.Value, bits: list[int], reverse: bool) -> ir.Value:
    """The lane whose along-axis bits spell ``logical`` (other bits: this lane's)."""
    b = ctx.builder
    index = b.sub(ir.Constant(I32, (1 << len(bits)) - 1), logical) if reverse else logical
    mask = sum(1 << bit for bit in bits)
    lane = b.and_(ctx.lane, ir.Constant(I32, ~mask & 31))
    for i, bit in enumerate(bits):
        piece = b.and_(b.lshr(index, ir.Constant(I32, i)), ir.Constant(I32, 1))
        lane = b.or_(lane, b.shl(piece, ir.Constant(I32, bit)))
    return lane


def _scan_lanes(ctx: FunctionLowering, bits: list[int], totals: dict[tuple, Values], combine, reverse: bool):
    """Inclusive scan of the thread totals over the lanes along the axis."""
    b = ctx.builder
    index = _logical(ctx, ctx.lane, bits, reverse)
    inclusive = dict(totals)
    for s in range(len(bits)):
        step = ir.Constant(I32, 1 << s)
        valid = b.icmp_signed(">=", index, step)
        source = _physical_lane(ctx, b.sub(index, step), bits, reverse)
        for key, values in inclusive.items():
            moved = [shuffle(ctx, "idx", v, source) for v in values]
            inclusive[key] = _select_all(b, valid, combine(moved, values), values)
    return {key: (values, None) for key, values in inclusive.items()}


def _exclusive(ctx: FunctionLowering, bits: list[int], inclusive: dict[tuple, Values], reverse: bool):
    """Each lane's prefix of the lanes before it: (inclusive, (exclusive, valid))."""
    b = ctx.builder
    index = _logical(ctx, ctx.lane, bits, reverse)
    valid = b.icmp_signed(">", index, ir.Constant(I32, 0))
    source = _physical_lane(ctx, b.sub(index, ir.Constant(I32, 1)), bits, reverse)
    out = {}
    for key, values in inclusive.items():
        moved = [shuffle(ctx, "idx", v, source) for v in values]
        out[key] = (values, (moved, valid))
    return out


def _scan_warps(ctx: FunctionLowering, layout: Layout, axis: int, lane_bits: list[int], warp_bits: list[int],
                inclusive: dict[tuple, Values], types: list[Type], combine, reverse: bool):
    """Per group: (prefix of the warps before this one along the axis, valid)."""
    b = ctx.builder
    slots = _WarpSlots(ctx, layout, axis, warp_bits, types)
    widx = _logical(ctx, ctx.warp, warp_bits, reverse)
    last_lane = (b.icmp_unsigned("==", _logical(ctx, ctx.lane, lane_bits, reverse),
                                 ir.Constant(I32, (1 << len(lane_bits)) - 1)) if lane_bits else ir.Constant(I1, 1))
    rows = {key: slots.row(key) for key in inclusive}
    ctx.barrier()
    with b.if_then(last_lane):
        for key, values in inclusive.items():
            slots.store(b.add(rows[key], widx), values)
    ctx.barrier()
    out = {}
    for key in inclusive:
        acc: Values | None = None
        have = ir.Constant(I1, 0)
        for j in range(slots.count):
            values = slots.load(b.add(rows[key], ir.Constant(I32, j)))
            take = b.icmp_signed("<", ir.Constant(I32, j), widx)
            if acc is None:
                acc = values
            else:
                merged = _select_all(b, have, combine(acc, values), values)
                acc = _select_all(b, take, merged, acc)
            have = b.or_(have, take)
        out[key] = (acc, have)
    return out


def _join_prefix(b: ir.IRBuilder, first: tuple[Values, ir.Value], second: tuple[Values, ir.Value | None], combine):
    """Combine two optional prefixes, ``first`` coming before ``second``."""
    values_a, valid_a = first
    values_b, valid_b = second
    if valid_b is None:
        return first
    both = combine(values_a, values_b)
    chosen = _select_all(b, valid_a, both, values_b)
    chosen = _select_all(b, valid_b, chosen, values_a)
    return chosen, b.or_(valid_a, valid_b)


__all__ = ["combiner", "shuffle", "element_of"]
