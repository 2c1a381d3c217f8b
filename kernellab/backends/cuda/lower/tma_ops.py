"""The ``gpu.tma_*`` ops (``gpu_ops.py``): the mbarriers of a TMA-filled ring and the copies that
complete on them.

One thread (thread 0) initialises and invalidates the barriers, announces each stage's bytes
(``mbarrier.arrive.expect_tx``) and issues the copies (``cp.async.bulk.tensor``: one per swizzle
panel of the slot, each a box of the descriptor's tensor map, the kernel's hidden parameter made
at launch: ``tma.py``); every thread waits on the slot's barrier (``mbarrier.try_wait.parity``
in a loop).  The copies write through the async proxy, as wgmma reads, so no proxy fence is
needed between them; the barrier's completion makes the bytes visible to the waiting threads.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.core import Op
from .context import FunctionLowering, lowering
from .nvvm import inline_asm
from .smem import SharedVal, shared_address
from .types import I32, I64


def _barriers(ctx: FunctionLowering, op: Op) -> tuple[int, int]:
    """(offset, count) of the op's barrier set in the dynamic shared memory."""
    return ctx.module.regions.specs[("barriers", op.attrs["barriers"])]


def _barrier_address(ctx: FunctionLowering, op: Op, slot: ir.Value | int) -> ir.Value:
    base, _ = _barriers(ctx, op)
    b = ctx.builder
    offset = ir.Constant(I32, base + 8 * slot) if isinstance(slot, int) else \
        b.add(ir.Constant(I32, base), b.mul(slot, ir.Constant(I32, 8)))
    return shared_address(ctx, offset)


def _elected(ctx: FunctionLowering, guard: ir.Value | None = None) -> ir.Value:
    """Thread 0 of the CTA (and ``guard``)."""
    b = ctx.builder
    first = b.icmp_unsigned("==", ctx.tid, ir.Constant(I32, 0))
    return first if guard is None else b.and_(first, guard)


@lowering("gpu.tma_barriers")
def _tma_barriers(ctx: FunctionLowering, op: Op, layout) -> None:
    _, count = _barriers(ctx, op)
    b = ctx.builder
    ctx.barrier()  # the memory's earlier users (a previous run of the loop) are done
    with b.if_then(_elected(ctx)):
        for slot in range(count):
            inline_asm(b, "mbarrier.init.shared::cta.b64 [$0], 1;", "r", [], [_barrier_address(ctx, op, slot)])
        inline_asm(b, "fence.mbarrier_init.release.cluster;", "", [], [])
    ctx.barrier()
    return None


@lowering("gpu.tma_release")
def _tma_release(ctx: FunctionLowering, op: Op, layout) -> None:
    _, count = _barriers(ctx, op)
    b = ctx.builder
    ctx.barrier()  # every thread's last wait is done
    with b.if_then(_elected(ctx)):
        for slot in range(count):
            inline_asm(b, "mbarrier.inval.shared::cta.b64 [$0];", "r", [], [_barrier_address(ctx, op, slot)])
    return None


@lowering("gpu.tma_expect")
def _tma_expect(ctx: FunctionLowering, op: Op, layout) -> None:
    b = ctx.builder
    slot, guard = (ctx.get(v) for v in op.operands)
    with b.if_then(_elected(ctx, guard)):
        inline_asm(b, f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], {int(op.attrs['bytes'])};", "r", [],
                   [_barrier_address(ctx, op, slot)])
    return None


@lowering("gpu.tma_copy")
def _tma_copy(ctx: FunctionLowering, op: Op, layout) -> None:
    b = ctx.builder
    spec = ctx.module.regions.specs[op.attrs["buffer"]]
    slot = ctx.get(op.operand("slot"))
    guard = ctx.get(op.operand("guard"))
    row, col = (_i32(b, ctx.get(v)) for v in op.operand_group("offsets"))
    tensormap = b.ptrtoint(ctx.module.tensormap(op), I64)
    barrier = _barrier_address(ctx, op, slot)
    start = SharedVal(spec, slot).slot_offset(ctx)
    panel_elements = spec.swizzle // spec.size
    text = ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
            "[$0], [$1, {$2, $3}], [$4];")
    with b.if_then(_elected(ctx, guard)):
        for panel in range(spec.shape[1] // panel_elements):
            dst = shared_address(ctx, b.add(start, ir.Constant(I32, panel * spec.panel_bytes)))
            inner = b.add(col, ir.Constant(I32, panel * panel_elements))
            inline_asm(b, text, "r,l,r,r,r", [], [dst, tensormap, inner, row, barrier])
    return None


@lowering("gpu.tma_wait")
def _tma_wait(ctx: FunctionLowering, op: Op, layout) -> None:
    slot, phase = (ctx.get(v) for v in op.operands)
    text = ("{\n\t.reg .pred done;\n\twait_${:uid}:\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n\t@!done bra wait_${:uid};\n\t}")
    inline_asm(ctx.builder, text, "r,r", [], [_barrier_address(ctx, op, slot), phase])
    return None


def _i32(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    width = value.type.width
    return value if width == 32 else (b.trunc(value, I32) if width > 32 else b.sext(value, I32))
