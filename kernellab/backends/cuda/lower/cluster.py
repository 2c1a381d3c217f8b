"""Programs of ``num_ctas`` CTAs: a thread-block cluster per program (sm_90+).

With ``num_ctas`` > 1 a program is one cluster of that many CTAs (``.reqnctapercluster``; the
launcher multiplies the grid's x by ``num_ctas``), as in Triton: ``program_id`` and
``num_programs`` count clusters (``%clusterid``, ``%nclusterid``).

The program's tiles are not split across the cluster: its first CTA (rank 0) runs the whole
program and the others return at once, so every store, atomic and print happens once, as in a
one-CTA program, and an SM that an exiting CTA leaves takes the next cluster's CTAs.  Splitting
tiles across the cluster's CTAs (Triton's CTA layouts, with distributed shared memory and TMA
multicast) is not built: on the H200, Triton 3.6's own 2-CTA matmuls were no faster than its best
one-CTA configuration (bench/NOTES.md, "Clusters and warp specialization").
"""

from __future__ import annotations

import llvmlite.ir as ir

from .types import I32

AXES = "xyz"


def program_id(ctx, axis: int) -> ir.Value:
    register = "clusterid." if ctx.module.num_ctas > 1 else "ctaid."
    return ctx.nvvm.sreg(ctx.builder, register + AXES[axis])


def num_programs(ctx, axis: int) -> ir.Value:
    register = "nclusterid." if ctx.module.num_ctas > 1 else "nctaid."
    return ctx.nvvm.sreg(ctx.builder, register + AXES[axis])


def only_the_first_cta(ctx) -> None:
    """In a cluster, the CTAs after the first return here (call before the kernel's body)."""
    if ctx.module.num_ctas == 1:
        return
    b = ctx.builder
    rank = ctx.nvvm.sreg(b, "cluster.ctarank")
    first = b.icmp_unsigned("==", rank, ir.Constant(I32, 0), name="first_cta")
    body, leave = ctx.new_block("first_cta"), ctx.new_block("other_ctas")
    b.cbranch(first, body, leave)
    b.position_at_end(leave)
    b.ret_void()
    b.position_at_end(body)


__all__ = ["program_id", "num_programs", "only_the_first_cta"]
