"""Which tensor-core instruction a ``dot`` runs on, and the warpgroup MMA accumulator layout.

One decision, used by the pipelining pass (which shared-memory layout the operand buffers
get), the layout assignment (the accumulator's layout) and the lowering (which instructions):

* ``wgmma``: Hopper's warpgroup MMA (``wgmma.mma_async``, sm_90a), operands from shared memory
  (A also from registers): f16/bf16 (k16), tf32 (f32 inputs with ``input_precision`` tf32, k8)
  and fp8 e4m3/e5m2 (k32) into an f32 accumulator (an f16 one is widened around the dot).  Every
  warpgroup (4 consecutive warps) takes 64 rows of each 64 x N instruction, so M must be a
  multiple of 64 times the warpgroups.
* ``mma``: ``mma.sync.m16n8k16`` (sm_80+), f16/bf16 into f32.
* ``fma``: everything else (CUDA cores).
"""

from __future__ import annotations

from ....ir.core import Op
from ....ir.types import element_of
from .linear import Basis, Layout, log2

MMA_TYPES = frozenset({"f16", "bf16"})
ACCUMULATORS = frozenset({"f32", "f16"})  # an f16 accumulator (``out_dtype=tl.float16``) sums in f32
FP8_TYPES = frozenset({"f8e4m3", "f8e5m2"})
WARPGROUP = 4
MAX_WGMMA_N = 256


def arch_number(arch: str) -> int:
    """``sm_90a`` -> 90."""
    digits = "".join(ch for ch in arch.removeprefix("sm_") if ch.isdigit())
    return int(digits) if digits else 0


def wgmma_kind(op: Op) -> str | None:
    """The wgmma operand kind of a dot (``f16``, ``bf16``, ``tf32``, ``e4m3``, ``e5m2``), or
    ``None`` when its types have no wgmma form."""
    a, acc = element_of(op.operands[0].type).ir, element_of(op.operands[2].type).ir
    if acc not in ACCUMULATORS or element_of(op.operands[1].type).ir != a:
        return None
    if a in MMA_TYPES:
        return a
    if a in FP8_TYPES:
        return "e4m3" if a == "f8e4m3" else "e5m2"
    if a == "f32" and op.attrs.get("input_precision", "ieee") in ("tf32", "tf32x3"):
        return "tf32"
    return None


def wgmma_k(kind: str) -> int:
    """The K of one wgmma instruction: 32 bytes of each operand row."""
    return {"tf32": 8, "e4m3": 32, "e5m2": 32}.get(kind, 16)


def needs_k_major(kind: str) -> bool:
    """tf32 and fp8 wgmma read both operands K-contiguous (no transpose bits)."""
    return kind in ("tf32", "e4m3", "e5m2")


def dot_engine(op: Op, num_warps: int, arch: str) -> str:
    """``wgmma``, ``mma`` or ``fma`` for this dot (see the module docstring)."""
    a, acc = op.operands[0].type, op.operands[2].type
    if len(acc.shape) != 2:
        return "fma"
    m, n = acc.shape
    k = a.shape[1]
    kind = wgmma_kind(op)
    if arch.endswith("a") and arch_number(arch) == 90 and kind is not None and num_warps % WARPGROUP == 0:
        groups = num_warps // WARPGROUP
        row_bytes = n * max(1, element_of(a).primitive_bitwidth // 8)
        if m % (64 * groups) == 0 and n % 8 == 0 and row_bytes >= 32 and k % wgmma_k(kind) == 0:
            return "wgmma"
    if (element_of(a).ir in MMA_TYPES and element_of(acc).ir in ACCUMULATORS and m % 16 == 0 and n % 8 == 0
            and k % 16 == 0):
        return "mma"
    return "fma"


def wgmma_accumulator(shape: tuple[int, int], num_warps: int) -> Layout:
    """The accumulator of ``wgmma.m64nNk*`` with the warpgroups stacked along M: warp ``w``
    holds rows ``16 w`` to ``16 w + 15`` of every 64 x N block (its warpgroup's block), lanes
    and the first registers as in ``mma.sync``'s 16 x 8 tiles, then registers along N in steps
    of 8, then the 64-row blocks the warpgroups do not cover."""
    m, n = shape

    def b(dm: int, dn: int) -> Basis:
        return (dm if dm < m else 0, dn if dn < n else 0)

    warps = [b(16 << i, 0) for i in range(log2(num_warps))]
    reg = [b(0, 1), b(8, 0)] + [b(0, 8 << i) for i in range(max(0, log2(n) - 3))]
    step = 16 * num_warps
    while step < m:
        reg.append(b(step, 0))
        step *= 2
    lane = [b(0, 2), b(0, 4), b(1, 0), b(2, 0), b(4, 0)]
    return Layout((m, n), tuple(r for r in reg if any(r)), tuple(lane), tuple(warps), "mma",
                  f"version=3, instr=64x{min(n, MAX_WGMMA_N)}, warpsPerCTA=[{num_warps}, 1]")
