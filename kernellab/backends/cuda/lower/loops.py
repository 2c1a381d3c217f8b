"""Counted loops emitted by the lowering itself (k loops of FMA dots, sort ranks...)."""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from .context import FunctionLowering
from .types import I32


def counted_loop(ctx: FunctionLowering, count: int | ir.Value, init: list[ir.Value],
                 body: Callable[[ir.Value, list[ir.Value]], list[ir.Value]], step: int = 1) -> list[ir.Value]:
    """``for j in range(0, count, step)`` carrying ``init`` through ``body(j, carried)``;
    returns the final carried values."""
    b = ctx.builder
    before = b.block
    header = ctx.new_block("loop.header")
    inside = ctx.new_block("loop.body")
    after = ctx.new_block("loop.exit")
    limit = ir.Constant(I32, count) if isinstance(count, int) else count
    b.branch(header)
    b.position_at_end(header)
    j = b.phi(I32, name="j")
    j.add_incoming(ir.Constant(I32, 0), before)
    phis = []
    for value in init:
        phi = b.phi(value.type)
        phi.add_incoming(value, before)
        phis.append(phi)
    b.cbranch(b.icmp_signed("<", j, limit), inside, after)
    b.position_at_end(inside)
    with ctx.scope():
        carried = body(j, list(phis))
    latch = b.block
    j.add_incoming(b.add(j, ir.Constant(I32, step)), latch)
    for phi, value in zip(phis, carried):
        phi.add_incoming(value, latch)
    b.branch(header)
    b.position_at_end(after)
    return list(phis)
