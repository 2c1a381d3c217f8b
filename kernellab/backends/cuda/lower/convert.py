"""Layout conversions: where two layouts of one tile meet.

* Same lanes and warps, and every register of the target is one of the source's: the target's
  registers are picked out of the source's (no instruction at all).
* Otherwise the tile goes through shared memory: barrier, every thread writes its registers
  (16-byte vectors where its registers are consecutive), barrier, every thread reads the
  registers of the target layout.  Rows of 2-D tiles are padded by 16 bytes to spread them
  over the banks.
"""

from __future__ import annotations

from ....ir.types import Type
from ..layouts.linear import Layout, same_threads
from .context import FunctionLowering, TileVal
from .shared import load_shared, padding_for, round_up, row_major, shared_bytes, store_shared


def convert(ctx: FunctionLowering, tile: TileVal, target: Layout, ty: Type) -> TileVal:
    """``tile`` in ``target`` (same shape)."""
    source = tile.layout
    if source == target:
        return tile
    if source.shape != target.shape:
        raise ctx.error(f"cannot convert a {list(source.shape)} tile to a layout of shape {list(target.shape)}")
    if same_threads(source, target):
        index = source.reg_index
        return TileVal(target, [tile.regs[index[c]] for c in target.reg_coords])
    return through_shared(ctx, tile, target, ty)


def through_shared(ctx: FunctionLowering, tile: TileVal, target: Layout, ty: Type) -> TileVal:
    shape = tile.layout.shape
    strides = row_major(shape, padding_for(shape, ty))
    ctx.reserve_shared(round_up(shared_bytes(shape, strides, ty)))
    ctx.barrier()
    store_shared(ctx, tile, ty, 0, strides)
    ctx.barrier()
    return load_shared(ctx, target, ty, 0, strides)
