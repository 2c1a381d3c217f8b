"""``dot``: tensor cores for f16/bf16 (``mma.sync.aligned.m16n8k16``), FMA otherwise.

Both paths stage the operands through shared memory (barrier, write ``a`` and ``b`` from
whatever layout they are in, barrier), so any layout of the operands works.

* mma: ``a`` is stored row-major with 16 bytes of padding per row, ``b`` likewise; each warp
  loads its A fragments with ``ldmatrix.x4`` and its B fragments with ``ldmatrix.x4.trans``
  (two n-tiles at once) and issues ``mma.sync`` per 16x8x16 step into the accumulator registers
  of the ``mma`` layout (f32).
* FMA: every thread loops over k, reading ``a[m, k]`` for each row it holds and ``b[k, n]`` for
  each column, and accumulates in f32 (f64 when an f64 is involved; integers in the
  accumulator's type, wrapping).  Batched (3-D) dots use this path.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.core import Op
from ....ir.types import element_of, f32, f64
from ..layouts.assign import uses_mma
from ..layouts.linear import Layout
from .context import FunctionLowering, TileVal, lowering
from .elementwise import cast_value
from .loops import counted_loop
from .nvvm import inline_asm
from .shared import round_up, row_major, shared_bytes, store_shared
from .types import F32, I32, byte_size, llvm_type


@lowering("dot")
def _dot(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    if uses_mma(op) and layout.kind == "mma":
        return [_mma(ctx, op, layout)]
    return [_fma(ctx, op, layout)]


def _stage_operands(ctx: FunctionLowering, op: Op, pad: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Write a and b to shared memory; returns (a strides, b strides, b base)."""
    a, b = op.operands[0], op.operands[1]
    a_strides = row_major(a.type.shape, pad)
    b_strides = row_major(b.type.shape, pad)
    b_base = round_up(shared_bytes(a.type.shape, a_strides, a.type), 128)
    ctx.reserve_shared(b_base + round_up(shared_bytes(b.type.shape, b_strides, b.type)))
    a_tile, b_tile = ctx.get(a), ctx.get(b)
    ctx.barrier()
    store_shared(ctx, a_tile, a.type, 0, a_strides)
    store_shared(ctx, b_tile, b.type, b_base, b_strides)
    ctx.barrier()
    return a_strides, b_strides, b_base


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


def _mma(ctx: FunctionLowering, op: Op, layout: Layout) -> TileVal:
    b = ctx.builder
    a, bm, acc = op.operands
    m_size, k_size = a.type.shape
    n_size = bm.type.shape[1]
    kind = "bf16" if element_of(a.type).ir == "bf16" else "f16"
    pad = 8
    a_strides, b_strides, b_base = _stage_operands(ctx, op, pad)
    size = 2
    acc_tile = ctx.get(acc, layout)
    regs = list(acc_tile.regs)
    index = layout.reg_index
    m_origins = _origins(layout, 0, 16)
    n_origins = _origins(layout, 1, 8)
    pro = ctx.prologue
    lane = ctx.lane
    matrix = pro.lshr(lane, ir.Constant(I32, 3))
    row8 = pro.and_(lane, ir.Constant(I32, 7))
    warp_m = _warp_offset(ctx, layout, 0)
    warp_n = _warp_offset(ctx, layout, 1)
    # A: matrix j covers rows (j % 2) * 8 and columns (j / 2) * 8 of a 16x16 fragment.
    a_row = pro.add(pro.add(warp_m, pro.mul(pro.and_(matrix, ir.Constant(I32, 1)), ir.Constant(I32, 8))), row8)
    a_col = pro.mul(pro.lshr(matrix, ir.Constant(I32, 1)), ir.Constant(I32, 8))
    a_lane = pro.mul(pro.add(pro.mul(a_row, ir.Constant(I32, a_strides[0])), a_col), ir.Constant(I32, size))
    # B (transposed load): matrix j covers k rows (j % 2) * 8, n tile j / 2.
    b_k = pro.add(pro.mul(pro.and_(matrix, ir.Constant(I32, 1)), ir.Constant(I32, 8)), row8)
    b_lane = pro.mul(pro.add(pro.mul(b_k, ir.Constant(I32, b_strides[0])), warp_n), ir.Constant(I32, size))
    second_pair = pro.icmp_unsigned(">=", lane, ir.Constant(I32, 16))
    mma_text = (f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32 "
                "{$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};")
    for k0 in range(0, k_size, 16):
        a_frags = {}
        for mo in m_origins:
            offset = b.add(a_lane, ir.Constant(I32, (mo * a_strides[0] + k0) * size))
            a_frags[mo] = inline_asm(b, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];",
                                     "=r,=r,=r,=r,l", [I32] * 4, [ctx.shared(offset)])
        b_frags = {}
        for i in range(0, len(n_origins), 2):
            first = n_origins[i]
            second = n_origins[i + 1] if i + 1 < len(n_origins) else None
            base = (k0 * b_strides[0] + first) * size + b_base
            if second is None:
                offset = b.add(b_lane, ir.Constant(I32, base))
                words = inline_asm(b, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {$0, $1}, [$2];",
                                   "=r,=r,l", [I32] * 2, [ctx.shared(offset)])
                b_frags[first] = words
                continue
            other = (k0 * b_strides[0] + second) * size + b_base
            chosen = b.select(second_pair, ir.Constant(I32, other), ir.Constant(I32, base))
            words = inline_asm(b, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];",
                               "=r,=r,=r,=r,l", [I32] * 4, [ctx.shared(b.add(b_lane, chosen))])
            b_frags[first] = words[:2]
            b_frags[second] = words[2:]
        for mo in m_origins:
            for no in n_origins:
                slots = [index[(mo, no)], index[(mo, no + 1)], index[(mo + 8, no)], index[(mo + 8, no + 1)]]
                out = inline_asm(b, mma_text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", [F32] * 4,
                                 a_frags[mo] + b_frags[no] + [regs[s] for s in slots], side_effect=False)
                for s, v in zip(slots, out):
                    regs[s] = v
    del m_size, n_size
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
    a_strides, b_strides, b_base = _stage_operands(ctx, op, 0)
    acc_tile = ctx.get(acc, layout)
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
