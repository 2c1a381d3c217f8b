"""``dot``: acc + a @ b as a register-blocked, explicitly vectorized loop nest.

The operands are brought into stack buffers in the compute type (f32 for f32/f16/bf16 inputs,
f64, or the result's integer type).  The main block of the output is computed by a
micro-kernel: MR rows x NV vectors of VW lanes of accumulators stay in registers across the
whole k loop (one vector load of a row of b and one broadcast of a per row per k), the
structure of a BLAS kernel.  Rows and columns that do not fill a block go through a plain
i-k-j loop whose inner loop LLVM vectorizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import ScalarType, element_of, f32, f64
from . import mathlib
from .emitter import Emitter
from .llvm_types import F32, I64, i64, is_float, is_signed, llvm_type
from .lower_arith import convert
from .slots import ScalarSlot
from .table import lowering
from .tiles import Buffer, Lazy, Tile


@dataclass
class Blocking:
    rows: int  # MR
    vectors: int  # NV
    lanes: int  # VW


def choose_blocking(em: Emitter, m: int, n: int, compute: ll.Type) -> Blocking | None:
    """The micro-kernel shape for an m x n output, or None when no vector block fits."""
    register_bits = em.ml.vector_bits
    lanes = register_bits // (32 if compute == F32 else 64)
    while lanes > 1 and n % lanes:
        lanes //= 2
    if lanes < 4:
        return None
    vectors = 2 if (n // lanes) % 2 == 0 else 1
    rows = 1
    for candidate in (8, 6, 4, 2):
        if m % candidate == 0 and candidate * vectors <= 16:
            rows = candidate
            break
    return Blocking(rows, vectors, lanes)


def _operand(em: Emitter, tile: Tile, source: ScalarType, compute: ScalarType) -> Buffer:
    """``tile`` in a buffer of the compute type."""
    if source is compute and isinstance(tile, Buffer):
        return tile
    converted = Lazy(tile.shape, compute, lambda em2, idx: convert(em2, tile.at(em2, idx), source, compute),
                     tile.deps, tile.remaps, False)
    return em.materialize(converted)


@lowering("dot")
def lower_dot(em: Emitter, op: Op, args: list) -> list:
    a, b, acc = args
    a_elem = element_of(op.operands[0].type)
    out_elem = element_of(op.result.type)
    if is_float(a_elem):
        compute = f64 if f64 in (a_elem, out_elem) else f32
    else:
        compute = out_elem
    a_buf = _operand(em, a, a_elem, compute)
    b_buf = _operand(em, b, a_elem, compute)
    in_place = out_elem is compute and isinstance(acc, Buffer) and em.can_overwrite(op.operands[2])
    c_buf = acc if in_place else _operand_copy(em, acc, out_elem, compute)
    shape = op.result.type.shape
    if len(shape) == 3:
        _batched(em, a_buf, b_buf, c_buf, compute, a_elem)
    else:
        _matmul(em, a_buf.ptr, b_buf.ptr, c_buf.ptr, shape[0], a_buf.shape[1], shape[1], compute, a_elem)
    if out_elem is compute:
        return [c_buf]
    return [em.materialize(Lazy(shape, out_elem, lambda em2, idx: convert(em2, c_buf.at(em2, idx), compute, out_elem),
                                c_buf.deps))]


def _operand_copy(em: Emitter, acc: Tile, source: ScalarType, compute: ScalarType) -> Buffer:
    converted = Lazy(acc.shape, compute, lambda em2, idx: convert(em2, acc.at(em2, idx), source, compute),
                     acc.deps, acc.remaps, False)
    return em.materialize(converted, into=em.buffer(acc.shape, compute))


def _batched(em: Emitter, a: Buffer, b: Buffer, c: Buffer, compute: ScalarType, a_elem: ScalarType) -> None:
    batch, m, k = a.shape
    n = b.shape[2]
    lty = llvm_type(compute)

    def one(i: ll.Value) -> None:
        def at(buf: Buffer, size: int) -> ll.Value:
            return em.b.gep(buf.ptr, [em.b.mul(i, i64(size))], source_etype=lty)
        _matmul(em, at(a, m * k), at(b, k * n), at(c, m * n), m, k, n, compute, a_elem)
    em.loop(batch, one, name="batch")


def _matmul(em: Emitter, a: ll.Value, b: ll.Value, c: ll.Value, m: int, k: int, n: int, compute: ScalarType,
            a_elem: ScalarType) -> None:
    """c[m, n] += a[m, k] @ b[k, n], all row-major in the compute type."""
    lty = llvm_type(compute)
    blocking = choose_blocking(em, m, n, lty) if is_float(compute) else None
    if blocking is None:
        _plain(em, a, b, c, (0, m), (0, n), k, n, compute, lty)
        return
    full_m = m - m % blocking.rows
    _micro(em, a, b, c, full_m, k, n, blocking, lty)
    if full_m < m:
        _plain(em, a, b, c, (full_m, m), (0, n), k, n, compute, lty)


def _micro(em: Emitter, a: ll.Value, b: ll.Value, c: ll.Value, m: int, k: int, n: int, blk: Blocking,
           lty: ll.Type) -> None:
    vec = ll.VectorType(lty, blk.lanes)
    width = blk.lanes * blk.vectors
    def address(base: ll.Value, row: ll.Value, col: ll.Value, stride: int) -> ll.Value:
        return em.b.gep(base, [em.b.add(em.b.mul(row, i64(stride)), col)], source_etype=lty)

    def vector_at(base: ll.Value, row: ll.Value, col: ll.Value, stride: int) -> ll.Value:
        return em.b.bitcast(address(base, row, col, stride), vec.as_pointer())

    def block(i_block: ll.Value) -> None:
        i0 = em.b.mul(i_block, i64(blk.rows))

        def column_block(j_block: ll.Value) -> None:
            j0 = em.b.mul(j_block, i64(width))
            accs = []
            for r in range(blk.rows):
                row = em.b.add(i0, i64(r))
                for v in range(blk.vectors):
                    slot = ScalarSlot(em.alloca(vec), vec)
                    ptr = vector_at(c, row, em.b.add(j0, i64(v * blk.lanes)), n)
                    slot.write(em, em.b.load(ptr, typ=vec, align=4))
                    accs.append((slot, ptr))

            def step(kk: ll.Value) -> None:
                b_rows = [em.b.load(vector_at(b, kk, em.b.add(j0, i64(v * blk.lanes)), n), typ=vec, align=4)
                          for v in range(blk.vectors)]
                for r in range(blk.rows):
                    scalar = em.b.load(address(a, em.b.add(i0, i64(r)), kk, k), typ=lty)
                    splat = _splat(em, scalar, vec)
                    for v in range(blk.vectors):
                        slot = accs[r * blk.vectors + v][0]
                        slot.write(em, mathlib.call_vector_fma(em, splat, b_rows[v], slot.read(em)))
            em.loop(k, step, name="k")
            for slot, ptr in accs:
                em.b.store(slot.read(em), ptr, align=4)
        em.loop(n // width, column_block, name="jb")
        if n % width:
            _plain(em, a, b, c, None, (n - n % width, n), k, n, None, lty, rows=(i0, blk.rows))
    em.loop(m // blk.rows, block, name="ib")


def _splat(em: Emitter, scalar: ll.Value, vec: ll.VectorType) -> ll.Value:
    undef = ll.Constant(vec, ll.Undefined)
    one = em.b.insert_element(undef, scalar, ll.Constant(ll.IntType(32), 0))
    mask = ll.Constant(ll.VectorType(ll.IntType(32), vec.count), [0] * vec.count)
    return em.b.shuffle_vector(one, undef, mask)


def _plain(em: Emitter, a, b, c, row_range, col_range, k: int, n: int, compute, lty: ll.Type,
           rows: tuple | None = None) -> None:
    """c[rows, cols] += a @ b with an i-k-j loop (the j loop vectorizes)."""
    col0, col1 = col_range
    floating = lty in (F32, ll.DoubleType())

    def row_body(i: ll.Value) -> None:
        def k_body(kk: ll.Value) -> None:
            a_val = em.b.load(em.b.gep(a, [em.b.add(em.b.mul(i, i64(k)), kk)], source_etype=lty), typ=lty)

            def j_body(j: ll.Value) -> None:
                b_val = em.b.load(em.b.gep(b, [em.b.add(em.b.mul(kk, i64(n)), j)], source_etype=lty), typ=lty)
                c_ptr = em.b.gep(c, [em.b.add(em.b.mul(i, i64(n)), j)], source_etype=lty)
                c_val = em.b.load(c_ptr, typ=lty)
                if floating:
                    new = mathlib.call_intrinsic(em, "fmuladd", [a_val, b_val, c_val])
                else:
                    new = em.b.add(c_val, em.b.mul(a_val, b_val))
                em.b.store(new, c_ptr)
            em.loop(i64(col1), j_body, start=col0, name="j")
        em.loop(k, k_body, name="k")
    if rows is not None:
        start, count = rows
        em.loop(em.b.add(start, i64(count)), row_body, start=start, name="i")
        return
    em.loop(row_range[1], row_body, start=row_range[0], name="i")


__all__ = ["choose_blocking", "I64", "is_signed"]
