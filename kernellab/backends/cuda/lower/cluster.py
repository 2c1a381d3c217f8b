"""Programs of ``num_ctas`` CTAs: a thread-block cluster per program (sm_90+).

With ``num_ctas`` > 1 a program is one cluster of that many CTAs (``.reqnctapercluster``; the
launcher multiplies the grid's x by ``num_ctas``), as in Triton: ``program_id`` and
``num_programs`` count clusters (``%clusterid``, ``%nclusterid``).  Every CTA of the cluster
holds the whole of each tile (the tiles are replicated over the cluster, not split across it),
so what a program computes is computed by each of its CTAs alike, and

* plain stores are made by every CTA (the same values at the same addresses; each CTA then reads
  back what it stored itself, as a one-CTA program would);
* what must happen once per program — atomics, printing a tile — is done by the cluster's
  leader (CTA rank 0), with cluster barriers ordering the other CTAs' stores before the atomic,
  and the values an atomic returns handed to every CTA through the leader's shared memory
  (distributed shared memory: ``mapa`` + ``ld.shared::cluster``).

Splitting tiles across the cluster's CTAs (Triton's CTA layouts) and TMA multicast are not built:
measured on the H200, Triton 3.6's own 2-CTA matmuls are no faster than its best one-CTA
configuration (bench/NOTES.md, "Clusters and warp specialization").
"""

from __future__ import annotations

import llvmlite.ir as ir

from .nvvm import inline_asm
from .types import I32

AXES = "xyz"


def leader(ctx) -> ir.Value | None:
    """An i1, true in the cluster's CTA of rank 0 (``None`` for a one-CTA program)."""
    if ctx.module.num_ctas == 1:
        return None
    key = ("cluster leader",)
    found = ctx.thread_cache.get(key)
    if found is None:
        rank = ctx.nvvm.sreg(ctx.prologue, "cluster.ctarank")
        found = ctx.thread_cache[key] = ctx.prologue.icmp_unsigned("==", rank, ir.Constant(I32, 0))
    return found


def sync(ctx) -> None:
    """Every thread of every CTA of the cluster waits here; the memory operations before it
    (global and shared) happen before those after it in every CTA of the cluster."""
    inline_asm(ctx.builder, "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;", "~{memory}", [], [])


def program_id(ctx, axis: int) -> ir.Value:
    register = "clusterid." if ctx.module.num_ctas > 1 else "ctaid."
    return ctx.nvvm.sreg(ctx.builder, register + AXES[axis])


def num_programs(ctx, axis: int) -> ir.Value:
    register = "nclusterid." if ctx.module.num_ctas > 1 else "nctaid."
    return ctx.nvvm.sreg(ctx.builder, register + AXES[axis])


def load_from_leader(ctx, pointer: ir.Value, storage: ir.Type) -> ir.Value:
    """The value at ``pointer`` (into this CTA's shared memory) in the leader's shared memory."""
    b = ctx.builder
    local = b.ptrtoint(pointer, I32)  # a shared-memory (addrspace 3) pointer is 32 bits wide
    bits = storage.width if isinstance(storage, ir.IntType) else {"float": 32, "double": 64, "half": 16,
                                                                   "bfloat": 16}[str(storage)]
    width = max(bits, 16)
    register = {16: "h", 32: "r", 64: "l"}[width]
    loaded_type = ir.IntType(width)
    text = (f"{{\n\t.reg .b32 peer;\n\tmapa.shared::cluster.u32 peer, $1, 0;\n\t"
            f"ld.shared::cluster.b{width} $0, [peer];\n\t}}")
    value = inline_asm(b, text, f"={register},r,~{{memory}}", [loaded_type], [local])[0]
    if bits < width:
        value = b.trunc(value, ir.IntType(bits))
    if isinstance(storage, ir.IntType):
        return value
    return b.bitcast(value, storage)


__all__ = ["leader", "sync", "program_id", "num_programs", "load_from_leader"]
