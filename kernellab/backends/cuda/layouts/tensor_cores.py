"""Which tensor-core instruction a ``dot`` runs on, and the warpgroup MMA accumulator layout.

One decision, used by the pipelining pass (which shared-memory layout the operand buffers
get), the layout assignment (the accumulator's layout) and the lowering (which instructions):

* ``wgmma``: Hopper's warpgroup MMA (``wgmma.mma_async``, sm_90a), operands from shared memory
  (A also from registers): f16/bf16 (k16), tf32 (f32 inputs with ``input_precision`` tf32, k8),
  fp8 e4m3/e5m2 and int8 (k32) into an f32 accumulator, an f16 one (f16 and fp8 inputs with
  ``out_dtype=tl.float16``) or an s32 one (int8).  Every warpgroup (4 consecutive warps) takes
  64 rows of each 64 x N instruction, so M must be a multiple of 64 times the warpgroups.
* ``mma``: ``mma.sync`` (sm_80+): f16/bf16 ``m16n8k16`` into f32 (f16 into f16 too), tf32
  ``m16n8k8`` into f32, int8 ``m16n8k32`` into s32 (fp8 would need PTX 8.4; kernellab emits 8.0).
* ``fma``: everything else (CUDA cores).

A *kind* names the operands' tensor-core type (``f16``, ``bf16``, ``tf32``, ``e4m3``, ``e5m2``,
``s8``); one instruction's K is 32 bytes of each operand row.
"""

from __future__ import annotations

from ....ir.core import Op
from ....ir.types import element_of
from .linear import Basis, Layout, log2

MMA_TYPES = frozenset({"f16", "bf16"})
FP8_TYPES = frozenset({"f8e4m3", "f8e5m2"})
KIND_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8}
# mma.sync's kinds and the architecture each needs (16-bit ones are not checked)
MMA_SYNC_ARCH = {"f16": 0, "bf16": 0, "tf32": 80, "s8": 80}
F16_ACCUMULATING = frozenset({"f16", "e4m3", "e5m2"})  # kinds that may sum into f16 (out_dtype=tl.float16)
WARPGROUP = 4
MAX_WGMMA_N = 256


def arch_number(arch: str) -> int:
    """``sm_90a`` -> 90."""
    digits = "".join(ch for ch in arch.removeprefix("sm_") if ch.isdigit())
    return int(digits) if digits else 0


def tensor_core_kind(op: Op) -> str | None:
    """The tensor-core kind of a dot's operands, or ``None`` when its types have no tensor-core
    form (f64, an accumulator of another type, f32 inputs asked for ``ieee`` precision)."""
    a, acc = element_of(op.operands[0].type).ir, element_of(op.operands[2].type).ir
    if element_of(op.operands[1].type).ir != a:
        return None
    if a == "i8":
        return "s8" if acc == "i32" else None
    kind = _float_kind(a, op.attrs.get("input_precision", "ieee"))
    if kind is None or acc not in ("f32", "f16") or (acc == "f16" and kind not in F16_ACCUMULATING):
        return None
    return kind


def _float_kind(element: str, precision: str) -> str | None:
    if element in MMA_TYPES:
        return element
    if element in FP8_TYPES:
        return "e4m3" if element == "f8e4m3" else "e5m2"
    if element == "f32" and precision == "tf32":
        return "tf32"
    return None


def accumulator_kind(op: Op) -> str:
    """The PTX type of a tensor-core dot's accumulator: ``f32``, ``f16`` or ``s32``."""
    return {"f32": "f32", "f16": "f16", "i32": "s32"}[element_of(op.operands[2].type).ir]


def wgmma_k(kind: str) -> int:
    """The K of one instruction (wgmma, and mma.sync's): 32 bytes of each operand row."""
    return 256 // KIND_BITS[kind]


def needs_k_major(kind: str) -> bool:
    """Kinds other than 16-bit read both operands K-contiguous (no transpose): wgmma has no
    transpose bits for them and ``ldmatrix.trans`` moves 16-bit elements only."""
    return KIND_BITS[kind] != 16


def dot_engine(op: Op, num_warps: int, arch: str) -> str:
    """``wgmma``, ``mma`` or ``fma`` for this dot (see the module docstring)."""
    a, acc = op.operands[0].type, op.operands[2].type
    kind = tensor_core_kind(op)
    if len(acc.shape) != 2 or kind is None:
        return "fma"
    m, n = acc.shape
    k = a.shape[1]
    if arch.endswith("a") and arch_number(arch) == 90 and num_warps % WARPGROUP == 0:
        groups = num_warps // WARPGROUP
        row_bytes = n * max(1, element_of(a).primitive_bitwidth // 8)
        if m % (64 * groups) == 0 and n % 8 == 0 and row_bytes >= 32 and k % wgmma_k(kind) == 0:
            return "wgmma"
    if _mma_sync_fits(kind, arch) and m % 16 == 0 and n % 8 == 0 and k % wgmma_k(kind) == 0:
        return "mma"
    return "fma"


def _mma_sync_fits(kind: str, arch: str) -> bool:
    return kind in MMA_SYNC_ARCH and arch_number(arch) >= MMA_SYNC_ARCH[kind]


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
