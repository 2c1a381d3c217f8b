"""``gpu.async_copy``: each thread copies its vectors of a tile into a shared-memory slot with
``cp.async`` (16 bytes: ``.cg``, through L2 only; 4 or 8 bytes: ``.ca``).  A masked-off vector
copies zero bytes of its source, so the slot holds zeros there (``src-size`` 0).  Vectors
narrower than 4 bytes have no ``cp.async``: they are loaded into registers and stored, which
the wait's barrier publishes all the same."""

from __future__ import annotations

import llvmlite.ir as ir

from ....analysis.axis import BlockPtrFacts
from ....ir.core import Op
from ....ir.types import element_of
from .context import FunctionLowering
from .memory import _block_addresses, _block_width, access_width, load_vector
from .nvvm import build_vector, inline_asm
from .smem import SharedVal, shared_address
from .types import I32, byte_size


def lower_async_copy(ctx: FunctionLowering, op: Op) -> None:
    b = ctx.builder
    ptr, mask, slot = op.operand("ptr"), op.operand("mask"), op.operand("slot")
    spec = ctx.module.regions.specs[op.attrs["buffer"]]
    layout = ctx.plan.anchor(op)
    ty = _tile_type(op)
    element = element_of(ty)
    size = byte_size(ty)
    masks = ctx.get(mask, layout).regs if mask is not None else None
    if ptr.type.is_tensor_descriptor():
        addresses, masks, vec = _descriptor_part(ctx, op, layout, element, masks)
    elif element_of(ptr.type).is_block_ptr():
        checked = tuple(op.attrs.get("boundary_check") or ())
        block = ctx.get(ptr)
        addresses, bounds = _block_addresses(ctx, block, block.offsets, layout, element, checked)
        if bounds is not None:
            masks = bounds if masks is None else [b.and_(x, y) for x, y in zip(masks, bounds)]
        vec = _block_width(layout, ctx.plan.info(ptr).block, element, checked)
    else:
        addresses = ctx.get(ptr, layout).regs
        vec = access_width(ctx, layout, ptr, mask, ty)
    vec = min(vec, max(1, _contiguous_in_slot(spec, layout)))
    thread = spec.thread_offset(ctx, layout)
    slot_base = SharedVal(spec, ctx.get(slot)).slot_offset(ctx)
    for r in range(0, layout.num_regs, vec):
        offset = b.add(spec.combine(b, thread, spec.offset(layout.reg_coords[r]), layout), slot_base)
        predicate = masks[r] if masks is not None else None
        if vec * size >= 4:
            _cp_async(ctx, shared_address(ctx, offset), addresses[r], vec * size, predicate)
            continue
        values = load_vector(ctx, op, ty, addresses[r], vec, predicate, None)
        target = b.gep(ctx.module.shared_base(), [offset], source_etype=ir.IntType(8))
        stored = values[0] if vec == 1 else build_vector(b, values)
        b.store(stored, target, align=vec * size)


def _descriptor_part(ctx: FunctionLowering, op: Op, layout, element, masks):
    """Addresses, masks (the descriptor's bounds and the op's own) and vector width of a copy
    from a tensor descriptor."""
    b = ctx.builder
    desc = op.operand("ptr")
    offsets = []
    for v in op.operand_group("offsets"):
        x = ctx.get(v)
        offsets.append(b.trunc(x, I32) if x.type.width > 32 else (b.sext(x, I32) if x.type.width < 32 else x))
    checked = tuple(range(layout.rank))
    addresses, bounds = _block_addresses(ctx, ctx.get(desc), offsets, layout, element, checked)
    masks = bounds if masks is None else [x if y is None else b.and_(x, y) for x, y in zip(masks, bounds)]
    facts = ctx.plan.info(desc).block
    if facts is None:
        return addresses, masks, 1
    divisibility = tuple(ctx.plan.info(v).divisibility[0] for v in op.operand_group("offsets"))
    with_offsets = BlockPtrFacts(facts.base_divisibility, facts.stride_constants, facts.stride_divisibility,
                                 divisibility, facts.shape_divisibility)
    return addresses, masks, _block_width(layout, with_offsets, element, checked)


def _tile_type(op: Op):
    from ....ir.types import TileType, tile

    ptr = op.operand("ptr")
    if ptr.type.is_tensor_descriptor():
        return ptr.type.block_type
    pointee = element_of(ptr.type)
    if pointee.is_block_ptr():
        return pointee.element_ty
    assert isinstance(ptr.type, TileType)
    return tile(pointee.element_ty, ptr.type.shape)


def _contiguous_in_slot(spec, layout) -> int:
    """Elements a vector may span: consecutive along the slot's contiguous dimension and inside
    one 16-byte chunk."""
    if layout.vector_width(spec.major) <= 1:
        return 1
    return min(layout.vector_width(spec.major), 16 // spec.size)


def _cp_async(ctx: FunctionLowering, dst: ir.Value, src: ir.Value, nbytes: int, predicate: ir.Value | None) -> None:
    b = ctx.builder
    cache = "cg" if nbytes == 16 else "ca"
    if predicate is None:
        text = f"cp.async.{cache}.shared.global [$0], [$1], {nbytes};"
        inline_asm(b, text, "r,l", [], [dst, src])
        return
    # the ignore-src predicate (a masked-off vector copies zeros): ptxas sets it with the mask's
    # own compare, where a src-size operand cost a select, a select per guard and a compare back
    ignore = b.not_(predicate)
    text = f"cp.async.{cache}.shared.global [$0], [$1], {nbytes}, $2;"
    inline_asm(b, text, "r,l,b", [], [dst, src, ignore])
