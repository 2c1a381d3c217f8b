"""``dot`` on Hopper's warpgroup MMA: ``wgmma.mma_async`` (sm_90a).

Each warpgroup (4 consecutive warps) computes 64-row blocks of the accumulator, whose layout is
``tensor_cores.wgmma_accumulator``; one instruction covers 64 x N' x K' with N' <= 256 and
K' = 32 bytes of each row (16 for f16/bf16, 8 for tf32, 32 for fp8 and int8).  The accumulator
is f32, f16 (two per 32-bit register, ``out_dtype=tl.float16``) or s32 (int8).  Operands:

* from a ring slot (``gpu.shared_read``) or a staged region: a 64-bit matrix descriptor (start
  address, leading byte offset = one panel, stride byte offset = 8 rows, the swizzle mode), the
  start advanced by the unswizzled offset of each block;
* A in registers (16-bit types): the ``mma.sync`` A fragments, four 32-bit registers per 64 x 16
  block (chained dots: attention's P feeds P @ V from where the first dot left it);
* B never from registers: a register tile is written to its staged region first.

Sequence: ``wgmma.fence``, the instructions, ``wgmma.commit_group``, then ``wgmma.wait_group 0``
unless the dot's only user is ``gpu.dot_wait`` (the pipelined loop keeps one dot in flight).  An
fp8 dot with ``max_num_imprecise_acc`` <= K sums each run of that many K elements apart and adds
it to the f32 accumulator in full precision (``_Chain``), as Triton does on Hopper.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from ....ir.core import Op, Value
from ..layouts.linear import Layout, mma_operand
from ..layouts.tensor_cores import MAX_WGMMA_N, WARPGROUP, accumulator_kind, tensor_core_kind, wgmma_k
from .context import FunctionLowering, TileVal
from .nvvm import inline_asm, pack_i32, pass_through, unpack_i32
from .smem import SharedSpec, SharedVal, ring_operand, shared_address, store_staged, wgmma_wait
from .types import I32, I64


def lower_wgmma(ctx: FunctionLowering, op: Op, layout: Layout) -> TileVal:
    b = ctx.builder
    a, bm, acc = op.operands
    kind = tensor_core_kind(op)
    k_step = wgmma_k(kind)
    m, n = acc.type.shape
    k = a.type.shape[1]
    groups = ctx.module.num_warps // WARPGROUP
    rows = 64 * groups
    acc_kind = accumulator_kind(op)
    regs = list(ctx.get(acc, layout).regs)
    a_shared = _shared_operand(ctx, op, 0)
    a_tile = ctx.get(a, mma_operand(layout, 0, k)) if a_shared is None else None
    b_shared = _shared_operand(ctx, op, 1)
    group = ctx.prologue.lshr(ctx.warp, ir.Constant(I32, 2))
    a_descriptors = _Descriptors(ctx, a_shared, 0, group) if a_shared is not None else None
    b_descriptors = _Descriptors(ctx, b_shared, 1, None)
    blocks = [(block, k0) for block in range(m // rows) for k0 in range(0, k, k_step)]
    a_fragments = {} if a_tile is None else {(bl, k0): _a_registers(b, a_tile, rows * bl, k0) for bl, k0 in blocks}
    regs, a_fragments = _fence(b, regs, a_fragments)
    chain = _Chain(b, kind, acc_kind, k_step, a_shared, b_shared, _promotion(op, kind, acc_kind, k),
                   ctx.module.fp_fusion)
    for block in range(m // rows):
        for n0 in range(0, n, MAX_WGMMA_N):
            width = min(MAX_WGMMA_N, n - n0)
            slots = [layout.reg_index[(rows * block + 8 * ((i % 4) // 2), n0 + 8 * (i // 4) + i % 2)]
                     for i in range(width // 2)]

            def operands(k0: int, block: int = block, n0: int = n0) -> tuple[list[ir.Value], ir.Value]:
                a_args = [a_descriptors.at(rows * block, k0)] if a_descriptors is not None else a_fragments[(block, k0)]
                return a_args, b_descriptors.at(n0, k0)

            for s, value in zip(slots, chain.run(width, [regs[s] for s in slots], range(0, k, k_step), operands)):
                regs[s] = value
    result = TileVal(layout, regs)
    if chain.limit is not None:  # every partial sum was waited for and added
        return result
    inline_asm(b, "wgmma.commit_group.sync.aligned;", "", [], [])
    if _waited_by_user(ctx, op):
        return result
    return wgmma_wait(ctx, result, 0)


def _promotion(op: Op, kind: str, acc_kind: str, k: int) -> int | None:
    """How many K elements an fp8 dot sums on the tensor cores before adding the partial sum to
    its f32 accumulator in full precision (``max_num_imprecise_acc``, as Triton's Hopper
    lowering: the fp8 wgmma accumulates with fewer bits); ``None`` when it never does (the
    default, or a limit above the dot's K)."""
    limit = int(op.attrs.get("max_num_imprecise_acc", 0))
    if kind not in ("e4m3", "e5m2") or acc_kind != "f32" or limit > k:
        return None
    return limit


class _Chain:
    """The instructions of one 64 x N block along K: straight into the accumulator, or (with a
    promotion limit) into a partial sum started from zero (scale-d 0) and, every ``limit`` K
    elements and at the end, waited for and added to the accumulator with ``add.f32``."""

    def __init__(self, b: ir.IRBuilder, kind: str, acc_kind: str, k_step: int, a_shared: SharedVal | None,
                 b_shared: SharedVal, limit: int | None, fp_fusion: bool):
        self.b, self.kind, self.acc_kind, self.k_step, self.limit = b, kind, acc_kind, k_step, limit
        self.a_shared, self.b_shared = a_shared, b_shared
        self.fadd_flags = ("contract",) if fp_fusion else ()  # as every float add (lower/scalars.py)

    def _issue(self, width: int, acc: list[ir.Value], a_args: list[ir.Value], b_desc: ir.Value,
               scale: int) -> list[ir.Value]:
        b = self.b
        out = _instruction(b, self.kind, self.acc_kind, width, self.k_step, _packed(b, acc, self.acc_kind), a_args,
                           b_desc, ir.Constant(I32, scale), self.a_shared, self.b_shared)
        return _unpacked(b, out, self.acc_kind)

    def run(self, width: int, acc: list[ir.Value], ks: range,
            operands: Callable[[int], tuple[list[ir.Value], ir.Value]]) -> list[ir.Value]:
        """The block's new accumulator; ``operands(k0)`` gives the A and B operands at ``k0``."""
        if self.limit is None:
            for k0 in ks:
                acc = self._issue(width, acc, *operands(k0), 1)
            return acc
        b = self.b
        partial, summed = None, 0
        for k0 in ks:
            a_args, b_desc = operands(k0)
            if partial is None:
                start = [ir.Constant(v.type, ir.Undefined) for v in acc]
                partial = self._issue(width, start, a_args, b_desc, 0)
            else:
                partial = self._issue(width, partial, a_args, b_desc, 1)
            summed += self.k_step
            if summed >= self.limit or k0 == ks[-1]:
                inline_asm(b, "wgmma.commit_group.sync.aligned;", "", [], [])
                partial = pass_through(b, "wgmma.wait_group.sync.aligned 0;", partial)
                acc = [b.fadd(x, y, flags=self.fadd_flags) for x, y in zip(acc, partial)]
                inline_asm(b, "wgmma.fence.sync.aligned;", "", [], [])  # the next partial's registers
                partial, summed = None, 0
        return acc


def _packed(b: ir.IRBuilder, values: list[ir.Value], acc_kind: str) -> list[ir.Value]:
    """An instruction's accumulator registers: f16 pairs (a row's consecutive columns) share one."""
    if acc_kind != "f16":
        return values
    return [pack_i32(b, values[i:i + 2]) for i in range(0, len(values), 2)]


def _unpacked(b: ir.IRBuilder, words: list[ir.Value], acc_kind: str) -> list[ir.Value]:
    if acc_kind != "f16":
        return words
    return [h for word in words for h in unpack_i32(b, word, ir.HalfType(), 2)]


def _fence(b: ir.IRBuilder, acc: list[ir.Value], a_fragments: dict[tuple[int, int], list[ir.Value]]
           ) -> tuple[list[ir.Value], dict[tuple[int, int], list[ir.Value]]]:
    """``wgmma.fence`` with the accumulator and the A registers passing through it, so that
    every instruction writing them (the accumulator's rescaling, P's conversion to f16) comes
    before the fence.  Without the dependency LLVM sinks those writes next to the wgmma that
    reads them, past the fence, and ptxas then injects a ``warpgroup.arrive`` before each such
    wgmma (advisory C7519) and waits for each one alone: attention's four P @ V instructions ran
    one at a time."""
    keys = list(a_fragments)
    out = pass_through(b, "wgmma.fence.sync.aligned;", list(acc) + [r for key in keys for r in a_fragments[key]])
    fenced_a = out[len(acc):]
    return out[:len(acc)], {key: fenced_a[4 * i:4 * i + 4] for i, key in enumerate(keys)}


def _waited_by_user(ctx: FunctionLowering, op: Op) -> bool:
    users = ctx.plan.uses.get(id(op.result), [])
    return len(users) == 1 and users[0][0].name == "gpu.dot_wait"


def _shared_operand(ctx: FunctionLowering, op: Op, index: int) -> SharedVal | None:
    """The operand as a shared-memory tile: its ring slot, else its staged region (written from
    registers once per value and scope); ``None`` for an A taken from registers."""
    value = op.operands[index]
    ring = ring_operand(ctx, value)
    if ring is not None:
        return ring
    spec = ctx.module.regions.specs.get((id(op), index))
    if spec is None:
        return None
    return _staged(ctx, value, spec)


def _staged(ctx: FunctionLowering, value: Value, spec: SharedSpec) -> SharedVal:
    key = ("staged", id(value), spec)
    found = ctx._memo(key)
    if found is not None:
        return found
    home = ctx._home(value)
    tile = ctx.get(value)
    with ctx._at_home(home):
        store_staged(ctx, tile, value.type, spec)
    shared = SharedVal(spec, None)
    ctx.scopes[home].memo[key] = shared
    return shared


class _Descriptors:
    """Matrix descriptors of one shared operand: the descriptor of this thread's slot start
    (the layout bits and the start address >> 4), made once where the dot is; each block adds
    its unswizzled offset >> 4 to it as a 64-bit integer.  The address field is 14 bits of a
    shared-window address under 256 KB, so the sum never carries out of it (Triton adds to the
    descriptor the same way: one uniform add per instruction)."""

    def __init__(self, ctx: FunctionLowering, shared: SharedVal, index: int, group: ir.Value | None):
        b = ctx.builder
        self.ctx, self.spec, self.index = ctx, shared.spec, index
        start = shared.slot_offset(ctx)
        if group is not None:  # A: each warpgroup starts at its own 64 rows
            stride = self.spec.linear((64, 0))
            start = b.add(start, b.mul(group, ir.Constant(I32, stride)))
        field = b.and_(b.lshr(shared_address(ctx, start), ir.Constant(I32, 4)), ir.Constant(I32, 0x3FFF))
        self.base = b.or_(b.zext(field, I64), ir.Constant(I64, self.spec.descriptor_bits()))

    def at(self, outer: int, k0: int) -> ir.Value:
        coord = (outer, k0) if self.index == 0 else (k0, outer)
        offset = self.spec.linear(coord) >> 4
        return self.ctx.builder.add(self.base, ir.Constant(I64, offset)) if offset else self.base


def _a_registers(b: ir.IRBuilder, tile: TileVal, row: int, k0: int) -> list[ir.Value]:
    """The four 32-bit A registers of the 64 x 16 block at (row, k0)."""
    index = tile.layout.reg_index
    out = []
    for dr, dc in ((0, 0), (8, 0), (0, 8), (8, 8)):
        low, high = tile.regs[index[(row + dr, k0 + dc)]], tile.regs[index[(row + dr, k0 + dc + 1)]]
        out.append(pack_i32(b, [low, high]))
    return out


def _instruction(b: ir.IRBuilder, kind: str, acc_kind: str, width: int, k_step: int, acc: list[ir.Value],
                 a_args: list[ir.Value], b_desc: ir.Value, one: ir.Value, a_shared: SharedVal | None,
                 b_shared: SharedVal) -> list[ir.Value]:
    count = len(acc)
    d = ", ".join(f"${i}" for i in range(count))
    position = 2 * count
    if a_shared is not None:
        a_operand = f"${position}"
        position += 1
    else:
        a_operand = "{" + ", ".join(f"${position + i}" for i in range(4)) + "}"
        position += 4
    b_operand = f"${position}"
    scale = f"${position + 1}"
    immediates = "" if kind == "s8" else ", 1, 1"  # integer wgmma has no scale-a/b (nor transpose) bits
    if kind in ("f16", "bf16"):
        if a_shared is not None:
            immediates += f", {1 if a_shared.spec.major == 0 else 0}"
        immediates += f", {1 if b_shared.spec.major == 1 else 0}"
    text = ("{\n\t.reg .pred p;\n\t" f"setp.ne.b32 p, {scale}, 0;\n\t"
            f"wgmma.mma_async.sync.aligned.m64n{width}k{k_step}.{acc_kind}.{kind}.{kind} "
            f"{{{d}}}, {a_operand}, {b_operand}, p{immediates};\n\t}}")
    a_constraints = ["l"] if a_shared is not None else ["r"] * 4
    register = "f" if acc_kind == "f32" else "r"
    constraints = ",".join([f"={register}"] * count + [str(i) for i in range(count)] + a_constraints + ["l", "r"])
    return inline_asm(b, text, constraints, [v.type for v in acc], acc + a_args + [b_desc, one])
