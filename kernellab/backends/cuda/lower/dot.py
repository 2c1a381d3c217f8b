"""``dot``: tensor cores (``mma.sync``: f16/bf16 ``m16n8k16``, tf32 ``m16n8k8``, int8
``m16n8k32``; wgmma in ``wgmma.py``), FMA otherwise.

Both paths stage the operands through shared memory (barrier, write ``a`` and ``b`` from
whatever layout they are in, barrier), so any layout of the operands works.

* mma: ``a`` and ``b`` are stored with 16 bytes of padding per row, 16-bit operands along
  whichever dimension their registers run, tf32 and int8 ones K-contiguous (``ldmatrix`` only
  transposes 16-bit elements); each warp loads its A fragments with ``ldmatrix.x4`` and its B
  fragments with ``ldmatrix.x4`` (two n-tiles at once; ``.trans`` for a 16-bit N-contiguous B)
  and issues one ``mma.sync`` per 16 x 8 x (32 bytes of K) step into the accumulator registers
  of the ``mma`` layout: f32, f16 (``out_dtype=tl.float16``, two per 32-bit register) or s32
  (int8, ``.satfinite`` as Triton's).
* FMA: every thread loops over k, reading ``a[m, k]`` for each row it holds and ``b[k, n]`` for
  each column, and accumulates in f32 (f64 when an f64 is involved; integers in the
  accumulator's type, wrapping).  Batched (3-D) dots use this path.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.core import Op
from ....ir.types import element_of, f32, f64
from ..layouts.linear import Layout, mma_operand, same_threads
from ..layouts.tensor_cores import KIND_BITS, accumulator_kind, dot_engine, needs_k_major, tensor_core_kind, wgmma_k
from .context import FunctionLowering, TileVal, lowering
from .elementwise import cast_value
from .loops import counted_loop
from .nvvm import inline_asm, pack_i32, unpack_i32
from .shared import round_up, row_major, shared_bytes, store_shared
from .smem import padded_strides, ring_operand
from .types import F32, I32, byte_size, llvm_type


@lowering("dot")
def _dot(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    engine = dot_engine(op, ctx.module.num_warps, ctx.module.arch)
    if engine == "wgmma" and layout.kind == "mma":
        from .wgmma import lower_wgmma

        return [lower_wgmma(ctx, op, layout)]
    if engine == "mma" and layout.kind == "mma":
        return [_mma(ctx, op, layout)]
    return [_fma(ctx, op, layout)]


def _stage_operands(ctx: FunctionLowering, op: Op, a_strides: tuple[int, ...] | None,
                    b_strides: tuple[int, ...] | None) -> int:
    """Write a and b (those with strides) to shared memory; returns b's byte offset."""
    a, b = op.operands[0], op.operands[1]
    b_base = round_up(shared_bytes(a.type.shape, a_strides, a.type), 128) if a_strides else 0
    b_bytes = round_up(shared_bytes(b.type.shape, b_strides, b.type)) if b_strides else 0
    ctx.reserve_shared(b_base + b_bytes)
    a_tile = ctx.get(a) if a_strides else None
    b_tile = ctx.get(b) if b_strides else None
    ctx.barrier()
    if a_tile is not None:
        store_shared(ctx, a_tile, a.type, 0, a_strides)
    if b_tile is not None:
        store_shared(ctx, b_tile, b.type, b_base, b_strides)
    ctx.barrier()
    return b_base


# ---- tensor cores ------------------------------------------------------------------------------

def _warp_offset(ctx: FunctionLowering, layout: Layout, dim: int) -> ir.Value:
    b = ctx.prologue
    total: ir.Value = ir.Constant(I32, 0)
    for bit, basis in enumerate(layout.warp):
        if basis[dim]:
            piece = b.and_(b.lshr(ctx.warp, ir.Constant(I32, bit)), ir.Constant(I32, 1))
            total = b.add(total, b.mul(piece, ir.Constant(I32, basis[dim])))
    return total


def _origins(layout: Layout, dim: int, within: int) -> list[int]:
    """Tile origins along ``dim`` covered by one warp's registers (bases below ``within`` are
    inside an mma tile)."""
    values = [b[dim] for b in layout.reg if b[dim] >= within]
    origins = [0]
    for v in values:
        origins = origins + [o + v for o in origins]
    return sorted(origins)




def _operand_major(layout: Layout, operand: int, kind: str) -> int:
    """The dimension to keep contiguous in shared memory: K for kinds ``ldmatrix`` cannot
    transpose, else the one the registers are consecutive along (so the stores are 16-byte
    vectors)."""
    if needs_k_major(kind):
        return 1 - operand
    return 1 if layout.vector_width(1) >= layout.vector_width(0) else 0


class _Fragments:
    """ldmatrix addressing of one operand in shared memory.  ``outer`` is the operand's
    non-k dimension (0 for A: m, 1 for B: n); an 8x8 matrix of ``ldmatrix`` is 8 rows of 16
    bytes, ``h = 16 / size`` elements; each lane gives the address of one row of one matrix:
    matrix ``j = lane / 8`` covers outer offset ``(j % 2) * 8`` (A) or the n tile ``j / 2``
    (B), and k offset ``(j / 2) * h`` (A) or ``(j % 2) * h`` (B)."""

    def __init__(self, ctx: FunctionLowering, layout: Layout, operand: int, strides: tuple[int, int], base: int,
                 warp_offset: ir.Value, size: int, slot: ir.Value | None = None):
        pro = ctx.prologue
        self.ctx, self.strides, self.base, self.operand, self.slot = ctx, strides, base, operand, slot
        self.size = size
        major = 0 if strides[0] == 1 else 1
        k_dim = 1 if operand == 0 else 0
        outer_dim = 1 - k_dim
        # the unit-stride dimension is along the 16-byte rows; the other one varies with lane % 8
        row_dim = 1 - major
        self.trans = major != k_dim
        matrix = pro.lshr(ctx.lane, ir.Constant(I32, 3))
        row8 = pro.and_(ctx.lane, ir.Constant(I32, 7))
        low, high = pro.and_(matrix, ir.Constant(I32, 1)), pro.lshr(matrix, ir.Constant(I32, 1))
        eight, half = ir.Constant(I32, 8), ir.Constant(I32, 16 // size)
        parts = {outer_dim: warp_offset, k_dim: ir.Constant(I32, 0)}
        if operand == 0:
            parts[outer_dim] = pro.add(parts[outer_dim], pro.mul(low, eight))
            parts[k_dim] = pro.mul(high, half)
        else:
            parts[k_dim] = pro.mul(low, half)
        parts[row_dim] = pro.add(parts[row_dim], row8)
        rows = pro.mul(parts[0], ir.Constant(I32, strides[0]))
        self.lane_bytes = pro.mul(pro.add(rows, pro.mul(parts[1], ir.Constant(I32, strides[1]))),
                                  ir.Constant(I32, size))
        self.upper_half = pro.icmp_unsigned(">=", ctx.lane, ir.Constant(I32, 16))

    def _offset(self, outer: int, k0: int) -> int:
        coords = (outer, k0) if self.operand == 0 else (k0, outer)
        return (coords[0] * self.strides[0] + coords[1] * self.strides[1]) * self.size + self.base

    def load(self, outer: int, k0: int, count: int, outer2: int | None = None) -> list[ir.Value]:
        """``count`` (2 or 4) registers of 8x8 matrices at (outer, k0); B's second n tile
        ``outer2`` comes from lanes 16-31."""
        b = self.ctx.builder
        offset = ir.Constant(I32, self._offset(outer, k0))
        if outer2 is not None:
            offset = b.select(self.upper_half, ir.Constant(I32, self._offset(outer2, k0)), offset)
        if self.slot is None:
            address = self.ctx.shared(b.add(self.lane_bytes, offset))
        else:  # a ring slot (absolute offset)
            address = self.ctx.shared(b.add(b.add(self.lane_bytes, offset), self.slot), absolute=True)
        trans = ".trans" if self.trans else ""
        outs = ", ".join(f"${i}" for i in range(count))
        return inline_asm(b, f"ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 {{{outs}}}, [${count}];",
                          ",".join(["=r"] * count + ["l"]), [I32] * count, [address])


def _in_registers(ctx: FunctionLowering, value, fragments: Layout) -> bool:
    """Whether an operand's fragments are better read from registers than through shared
    memory: it is already laid out so (a chained dot's accumulator), it is computed on demand,
    or it is defined outside the current loop (converted once, before the loop)."""
    if ctx.plan.is_lazy(value):
        return True
    if same_threads(ctx.plan.layout(value), fragments):
        return True
    return ctx.defined_outside_loop(value)


def _ring_fragments(ctx: FunctionLowering, layout: Layout, operand: int, ring) -> _Fragments:
    return _Fragments(ctx, layout, operand, ring.spec.strides, 0, _warp_offset(ctx, layout, operand), ring.spec.size,
                      ring.slot_offset(ctx))


_MMA_SHAPES = {"f16": "m16n8k16", "bf16": "m16n8k16", "tf32": "m16n8k8", "s8": "m16n8k32"}


def _mma_text(kind: str, acc: str) -> tuple[str, str]:
    """The ``mma.sync`` instruction and its constraints (D = C tied, 4 A and 2 B registers)."""
    c_count = 2 if acc == "f16" else 4
    c_class = "f" if acc == "f32" else "r"
    saturate = ".satfinite" if acc == "s32" else ""
    d = ", ".join(f"${i}" for i in range(c_count))
    a = ", ".join(f"${c_count + i}" for i in range(4))
    bb = ", ".join(f"${c_count + 4 + i}" for i in range(2))
    c = ", ".join(f"${c_count + 6 + i}" for i in range(c_count))
    text = (f"mma.sync.aligned.{_MMA_SHAPES[kind]}.row.col{saturate}.{acc}.{kind}.{kind}.{acc} "
            f"{{{d}}}, {{{a}}}, {{{bb}}}, {{{c}}};")
    constraints = ",".join([f"={c_class}"] * c_count + ["r"] * 6 + [c_class] * c_count)
    return text, constraints


def _mma(ctx: FunctionLowering, op: Op, layout: Layout) -> TileVal:
    b = ctx.builder
    a, bm, acc = op.operands
    k_size = a.type.shape[1]
    kind, acc_kind = tensor_core_kind(op), accumulator_kind(op)
    bits = KIND_BITS[kind]
    per_register, k_step, size = 32 // bits, wgmma_k(kind), bits // 8
    a_layout = mma_operand(layout, 0, k_size, bits)
    b_layout = mma_operand(layout, 1, k_size, bits)
    a_ring, b_ring = ring_operand(ctx, a), ring_operand(ctx, bm)
    a_direct = a_ring is None and _in_registers(ctx, a, a_layout)
    b_direct = b_ring is None and _in_registers(ctx, bm, b_layout)
    a_strides = None if a_direct or a_ring else padded_strides(
        a.type.shape, _operand_major(ctx.plan.layout(a), 0, kind), size)
    b_strides = None if b_direct or b_ring else padded_strides(
        bm.type.shape, _operand_major(ctx.plan.layout(bm), 1, kind), size)
    a_tile = ctx.get(a, a_layout) if a_direct else None
    b_tile = ctx.get(bm, b_layout) if b_direct else None
    regs = list(ctx.get(acc, layout).regs)  # before the staging: a conversion may use the same scratch
    b_base = _stage_operands(ctx, op, a_strides, b_strides) if a_strides or b_strides else 0
    a_frag = _ring_fragments(ctx, layout, 0, a_ring) if a_ring else (
        None if a_direct else _Fragments(ctx, layout, 0, a_strides, 0, _warp_offset(ctx, layout, 0), size))
    b_frag = _ring_fragments(ctx, layout, 1, b_ring) if b_ring else (
        None if b_direct else _Fragments(ctx, layout, 1, b_strides, b_base, _warp_offset(ctx, layout, 1), size))
    index = layout.reg_index
    m_origins = _origins(layout, 0, 16)
    n_origins = _origins(layout, 1, 8)
    half = k_step // 2

    def a_registers(mo: int, k0: int) -> list[ir.Value]:
        if a_frag is not None:
            return a_frag.load(mo, k0, 4)
        at = a_layout.reg_index
        return [pack_i32(b, [a_tile.regs[at[(mo + r, k0 + c + j)]] for j in range(per_register)])
                for r, c in ((0, 0), (8, 0), (0, half), (8, half))]

    def b_registers(k0: int) -> dict[int, list[ir.Value]]:
        out = {}
        if b_frag is None:
            at = b_layout.reg_index
            for no in n_origins:
                out[no] = [pack_i32(b, [b_tile.regs[at[(k0 + r + j, no)]] for j in range(per_register)])
                           for r in (0, half)]
            return out
        for i in range(0, len(n_origins), 2):
            first = n_origins[i]
            if i + 1 == len(n_origins):
                out[first] = b_frag.load(first, k0, 2)
                continue
            second = n_origins[i + 1]
            words = b_frag.load(first, k0, 4, second)
            out[first], out[second] = words[:2], words[2:]
        return out

    text, constraints = _mma_text(kind, acc_kind)
    c_type = {"f32": F32, "s32": I32, "f16": I32}[acc_kind]
    for k0 in range(0, k_size, k_step):
        a_regs = {mo: a_registers(mo, k0) for mo in m_origins}
        b_regs = b_registers(k0)
        for mo in m_origins:
            for no in n_origins:
                slots = [index[(mo, no)], index[(mo, no + 1)], index[(mo + 8, no)], index[(mo + 8, no + 1)]]
                c = [regs[s] for s in slots]
                if acc_kind == "f16":  # two halves per register: (row, col) and (row, col + 1)
                    c = [pack_i32(b, c[:2]), pack_i32(b, c[2:])]
                out = inline_asm(b, text, constraints, [c_type] * len(c), a_regs[mo] + b_regs[no] + c,
                                 side_effect=False)
                if acc_kind == "f16":
                    out = [h for word in out for h in unpack_i32(b, word, ir.HalfType(), 2)]
                for s, v in zip(slots, out):
                    regs[s] = v
    return TileVal(layout, regs)


# ---- FMA -----------------------------------------------------------------------------------------

def _compute_type(op: Op):
    a, acc = element_of(op.operands[0].type), element_of(op.operands[2].type)
    if acc.is_floating():
        return f64 if f64 in (a, acc) else f32
    return acc


def _fma(ctx: FunctionLowering, op: Op, layout: Layout) -> TileVal:
    b = ctx.builder
    a, bm, acc = op.operands
    rank = layout.rank
    k_size = a.type.shape[-1]
    n_size = bm.type.shape[-1]
    m_size = a.type.shape[-2]
    a_elem, b_elem, acc_elem = element_of(a.type), element_of(bm.type), element_of(acc.type)
    compute = _compute_type(op)
    a_strides, b_strides = row_major(a.type.shape), row_major(bm.type.shape)
    acc_tile = ctx.get(acc, layout)  # first: its conversion may use the scratch the operands are staged in
    b_base = _stage_operands(ctx, op, a_strides, b_strides)
    init = [cast_value(ctx, v, acc_elem, compute) for v in acc_tile.regs]
    offsets = ctx.thread_offsets(layout)
    rows: dict[tuple, ir.Value] = {}
    cols: dict[tuple, ir.Value] = {}
    plan = []
    for coord in layout.reg_coords:
        batch = coord[:rank - 2]
        row_key = batch + (coord[rank - 2],)
        col_key = batch + (coord[rank - 1],)
        if row_key not in rows:
            rows[row_key] = _operand_base(ctx, offsets, row_key, a_strides, rank, size=byte_size(a.type), base=0)
        if col_key not in cols:
            cols[col_key] = _operand_base(ctx, offsets, col_key, b_strides, rank, size=byte_size(bm.type),
                                          base=b_base, column=True)
        plan.append((row_key, col_key))
    a_type, b_type = llvm_type(a.type), llvm_type(bm.type)
    a_size, b_size = byte_size(a.type), byte_size(bm.type)

    def body(k: ir.Value, carried: list[ir.Value]) -> list[ir.Value]:
        a_k = b.mul(k, ir.Constant(I32, a_strides[rank - 1] * a_size))
        b_k = b.mul(k, ir.Constant(I32, b_strides[rank - 2] * b_size))
        a_vals = {key: cast_value(ctx, b.load(ctx.shared(b.add(base, a_k)), typ=a_type, align=a_size), a_elem, compute)
                  for key, base in rows.items()}
        b_vals = {key: cast_value(ctx, b.load(ctx.shared(b.add(base, b_k)), typ=b_type, align=b_size), b_elem, compute)
                  for key, base in cols.items()}
        out = []
        for value, (row_key, col_key) in zip(carried, plan):
            x, y = a_vals[row_key], b_vals[col_key]
            if compute.is_floating():
                out.append(ctx.nvvm.call(b, f"llvm.fma.{'f64' if compute is f64 else 'f32'}", x.type, [x, y, value]))
            else:
                out.append(b.add(b.mul(x, y), value))
        return out

    final = counted_loop(ctx, k_size, init, body)
    del m_size, n_size
    return TileVal(layout, [cast_value(ctx, v, compute, acc_elem) for v in final])


def _operand_base(ctx: FunctionLowering, offsets: list[ir.Value], key: tuple, strides: tuple[int, ...], rank: int,
                  size: int, base: int, column: bool = False) -> ir.Value:
    """Byte offset of a[batch, m, 0] (or b[batch, 0, n] with ``column``) for this thread."""
    b = ctx.builder
    total: ir.Value = ir.Constant(I32, base)
    dims = list(range(rank - 2)) + [rank - 1 if column else rank - 2]
    for i, d in enumerate(dims):
        coord = b.add(offsets[d], ir.Constant(I32, key[i]))
        stride = strides[d if d < rank - 2 else (rank - 1 if column else rank - 2)]
        total = b.add(total, b.mul(coord, ir.Constant(I32, stride * size)))
    return total


__all__ = ["F32"]
