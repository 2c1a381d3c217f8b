"""Reductions and scans with their combine regions inlined as scalar code.

Along the last axis a reduction runs one accumulator per row; a single reassociable combine
(``add``, ``mul``, ``max``...) is lowered with reassociation allowed, so LLVM vectorizes it (a
tree order, as on a GPU).  Along another axis the loops put the reduced axis outermost and the
contiguous dims inside, which vectorizes without reassociation.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import llvmlite.ir as ll

from ...ir.core import Block, Op
from ...ir.types import TileType, element_of
from .emitter import Emitter
from .llvm_types import i64, llvm_type
from .slots import ScalarSlot
from .table import lowering
from .tiles import Buffer, Index, Tile

_REASSOCIATIVE = {"add", "mul", "maximum", "minimum", "and", "or", "xor"}


def combine(em: Emitter, region: Block, running: list, incoming: list) -> list:
    """The region applied to (running..., incoming...): its yielded values."""
    _, out = em.lower_block(region, list(running) + list(incoming))
    return out


def _is_simple(region: Block) -> bool:
    """One reassociable op of the two arguments, yielded."""
    ops = region.ops
    if len(ops) != 2 or ops[0].name not in _REASSOCIATIVE or ops[1].operands != [ops[0].result]:
        return False
    return set(map(id, ops[0].operands)) == {id(a) for a in region.args}


@contextmanager
def _reassociating(em: Emitter, allowed: bool) -> Iterator[None]:
    saved = em.float_flags
    em.float_flags = ("reassoc", "nsz") if allowed else ()
    try:
        yield
    finally:
        em.float_flags = saved


def _with(idx: Index, axis: int, k: ll.Value) -> Index:
    return idx[:axis] + [k] + idx[axis:]


@lowering("reduce")
def lower_reduce(em: Emitter, op: Op, args: list) -> list:
    axis = op.attrs["axis"]
    region = op.regions[0]
    shape = args[0].shape
    n = shape[axis]
    out_shape = shape[:axis] + shape[axis + 1:]
    elems = [element_of(v.type) for v in op.operands]
    simple = _is_simple(region)
    with _reassociating(em, simple):
        if axis == len(shape) - 1:
            if simple and elems[0].name in _NARROW_FLOATS:
                return _reduce_rows_pairwise(em, args[0], region, out_shape, n, elems[0])
            return _reduce_rows(em, args, region, out_shape, n, elems)
        if simple and elems[0].name in _NARROW_FLOATS:
            return _reduce_outer_pairwise(em, args[0], region, axis, out_shape, n, elems[0])
        return _reduce_outer(em, args, region, axis, out_shape, n, elems)


# Narrow floats reduced along a row pairwise (a tree, as a GPU reduces across threads): one running fp16
# accumulator over a long row loses most of its digits (fla's mesa_net dg: tl.sum of a 64x64 fp16 tile was 3% off)
_NARROW_FLOATS = {"fp16", "bf16"}


def _reduce_rows_pairwise(em: Emitter, tile: Tile, region: Block, out_shape, n: int, elem) -> list:
    """Reduce along the last axis in a tree: each row is copied to a scratch row, whose first half
    is combined with its second half until one element is left."""
    scratch = em.buffer((n,), elem)
    out = em.buffer(out_shape, elem) if out_shape else None
    result = ScalarSlot(em.alloca(llvm_type(elem)), llvm_type(elem))

    def row(oidx: Index) -> None:
        em.loop(n, lambda k: scratch.put(em, [k], tile.at(em, oidx + [k])), name="red.copy")
        m = n
        while m > 1:
            keep = (m + 1) // 2

            def fold(k: ll.Value, keep: int = keep) -> None:
                far = [em.b.add(k, i64(keep))]
                scratch.put(em, [k], combine(em, region, [scratch.at(em, [k])], [scratch.at(em, far)])[0])
            em.loop(m // 2, fold, name="red.tree")
            m = keep
        if out is not None:
            out.put(em, oidx, scratch.at(em, [i64(0)]))
        else:
            result.write(em, scratch.at(em, [i64(0)]))
    em.loop_nest(out_shape, row)
    return [out] if out is not None else [result.read(em)]


def _reduce_outer_pairwise(em: Emitter, tile: Tile, region: Block, axis: int, out_shape, n: int, elem) -> list:
    """Reduce a narrow float along a leading axis in a tree: the tile is copied to a scratch tile,
    whose first half along ``axis`` is combined with its second half until one slice is left."""
    shape = [*out_shape[:axis], n, *out_shape[axis:]]
    scratch = em.buffer(shape, elem)
    em.loop_nest(shape, lambda idx: scratch.put(em, idx, tile.at(em, idx)))
    m = n
    while m > 1:
        keep = (m + 1) // 2

        def fold(k: ll.Value, keep: int = keep) -> None:
            far = em.b.add(k, i64(keep))

            def each(idx: Index) -> None:
                near = _with(idx, axis, k)
                value = combine(em, region, [scratch.at(em, near)], [scratch.at(em, _with(idx, axis, far))])
                scratch.put(em, near, value[0])
            em.loop_nest(out_shape, each)
        em.loop(m // 2, fold, name="red.tree")
        m = keep
    out = em.buffer(out_shape, elem)
    em.loop_nest(out_shape, lambda idx: out.put(em, idx, scratch.at(em, _with(idx, axis, i64(0)))))
    return [out]


def _reduce_rows(em: Emitter, tiles: list[Tile], region: Block, out_shape, n: int, elems) -> list:
    """Reduce along the last axis: one running accumulator per row."""
    accs = [ScalarSlot(em.alloca(llvm_type(t)), llvm_type(t)) for t in elems]
    outs = [em.buffer(out_shape, t) for t in elems] if out_shape else None

    def row(oidx: Index) -> None:
        for acc, tile in zip(accs, tiles):
            acc.write(em, tile.at(em, oidx + [i64(0)]))

        def step(k: ll.Value) -> None:
            values = combine(em, region, [a.read(em) for a in accs], [t.at(em, oidx + [k]) for t in tiles])
            for acc, value in zip(accs, values):
                acc.write(em, value)
        em.loop(n, step, start=1, name="red")
        if outs is not None:
            for out, acc in zip(outs, accs):
                out.put(em, oidx, acc.read(em))
    em.loop_nest(out_shape, row)
    if outs is None:
        return [a.read(em) for a in accs]
    return outs


def _reduce_outer(em: Emitter, tiles: list[Tile], region: Block, axis: int, out_shape, n: int, elems) -> list:
    """Reduce along a leading axis: whole output slices combined one step at a time."""
    outs = [em.buffer(out_shape, t) for t in elems]
    em.loop_nest(out_shape, lambda idx: [o.put(em, idx, t.at(em, _with(idx, axis, i64(0))))
                                         for o, t in zip(outs, tiles)])

    def step(k: ll.Value) -> None:
        def each(idx: Index) -> None:
            values = combine(em, region, [o.at(em, idx) for o in outs], [t.at(em, _with(idx, axis, k)) for t in tiles])
            for o, v in zip(outs, values):
                o.put(em, idx, v)
        em.loop_nest(out_shape, each)
    em.loop(n, step, start=1, name="red")
    return outs


@lowering("scan")
def lower_scan(em: Emitter, op: Op, args: list) -> list:
    axis = op.attrs["axis"]
    reverse = op.attrs["reverse"]
    region = op.regions[0]
    shape = args[0].shape
    n = shape[axis]
    elems = [element_of(v.type) for v in op.operands]
    outs = [em.buffer(shape, t) for t in elems]
    other_shape = shape[:axis] + shape[axis + 1:]

    def position(k: ll.Value) -> ll.Value:
        return em.b.sub(i64(n - 1), k) if reverse else k

    def first(idx: Index) -> None:
        where = _with(idx, axis, position(i64(0)))
        for o, t in zip(outs, args):
            o.put(em, where, t.at(em, where))
    em.loop_nest(other_shape, first)

    def step(k: ll.Value) -> None:
        def each(idx: Index) -> None:
            here = _with(idx, axis, position(k))
            before = _with(idx, axis, position(em.b.sub(k, i64(1))))
            values = combine(em, region, [o.at(em, before) for o in outs], [t.at(em, here) for t in args])
            for o, v in zip(outs, values):
                o.put(em, here, v)
        em.loop_nest(other_shape, each)
    em.loop(n, step, start=1, name="scan")
    return outs


__all__ = ["combine", "Buffer", "TileType"]
