"""Tile creation and shape ops as index remappings of lazy tiles (no data moves).

``trans``, ``reshape``, ``broadcast``, ``expand_dims``, ``join``, ``split``, ``cat`` and ``flip``
read their source at a remapped index; ``gather`` at an index read from its index tile.
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import element_of
from .emitter import Emitter
from .llvm_types import I32, I64, i64
from .table import lowering
from .tiles import Index, Lazy, Tile, flat_index, reads_memory, unflatten


def _view(source: Tile, shape, fn, remaps: bool = True, cheap: bool | None = None) -> Lazy:
    """A lazy tile of ``shape`` reading ``source`` at ``fn(em, idx)``."""
    def at(em: Emitter, idx: Index) -> ll.Value:
        return source.at(em, fn(em, idx))
    return Lazy(tuple(shape), source.elem, at, source.deps, remaps or source.remaps,
                source.cheap if cheap is None else cheap, reads_memory([source]))


@lowering("arange")
def lower_arange(em: Emitter, op: Op, args: list) -> list:
    start = op.attrs["start"]
    n = op.attrs["end"] - start

    def at(em2: Emitter, idx: Index) -> ll.Value:
        value = em2.b.trunc(idx[0], I32)
        return em2.b.add(value, ll.Constant(I32, start)) if start else value
    return [Lazy((n,), element_of(op.result.type), at, cheap=True)]


@lowering("splat")
def lower_splat(em: Emitter, op: Op, args: list) -> list:
    value = args[0]
    return [Lazy(op.result.type.shape, op.operands[0].type, lambda em2, idx: value, cheap=True)]


def _small_first(em: Emitter, source):
    """A costly lazy tile about to be expanded is computed once at its own, smaller, size: the
    expanded tile then reads it instead of recomputing it per element."""
    if isinstance(source, Lazy) and not source.cheap and not source.reads_memory:
        return em.materialize(source)
    return source


@lowering("broadcast")
def lower_broadcast(em: Emitter, op: Op, args: list) -> list:
    source = _small_first(em, args[0])
    if not isinstance(source, Tile):
        return [Lazy(op.result.type.shape, op.operands[0].type, lambda em2, idx: source, cheap=True)]
    stretched = [d == 1 for d in source.shape]

    def index(em2: Emitter, idx: Index) -> Index:
        return [i64(0) if s else i for s, i in zip(stretched, idx)]
    return [_view(source, op.result.type.shape, index, remaps=True)]


@lowering("expand_dims")
def lower_expand_dims(em: Emitter, op: Op, args: list) -> list:
    axis = op.attrs["axis"]
    return [_view(_small_first(em, args[0]), op.result.type.shape, lambda em2, idx: idx[:axis] + idx[axis + 1:],
                  remaps=False)]


@lowering("reshape")
def lower_reshape(em: Emitter, op: Op, args: list) -> list:
    source = args[0]
    target = op.result.type.shape
    if tuple(d for d in target if d != 1) == tuple(d for d in source.shape if d != 1):
        keep_src = [i for i, d in enumerate(source.shape) if d != 1]
        keep_dst = [i for i, d in enumerate(target) if d != 1]

        def squeeze(em2: Emitter, idx: Index) -> Index:
            out = [i64(0)] * len(source.shape)
            for s, d in zip(keep_src, keep_dst):
                out[s] = idx[d]
            return out
        return [_view(source, target, squeeze, remaps=False)]

    def index(em2: Emitter, idx: Index) -> Index:
        return unflatten(em2.b, source.shape, flat_index(em2.b, target, idx))
    return [_view(source, target, index)]


@lowering("trans")
def lower_trans(em: Emitter, op: Op, args: list) -> list:
    order = op.attrs["order"]

    def index(em2: Emitter, idx: Index) -> Index:
        out = [None] * len(order)
        for result_dim, source_dim in enumerate(order):
            out[source_dim] = idx[result_dim]
        return out
    return [_view(args[0], op.result.type.shape, index)]


@lowering("flip")
def lower_flip(em: Emitter, op: Op, args: list) -> list:
    axis = op.attrs["axis"]
    source = args[0]
    last = source.shape[axis] - 1

    def index(em2: Emitter, idx: Index) -> Index:
        return idx[:axis] + [em2.b.sub(i64(last), idx[axis])] + idx[axis + 1:]
    return [_view(source, source.shape, index)]


@lowering("join")
def lower_join(em: Emitter, op: Op, args: list) -> list:
    a, b = args

    def at(em2: Emitter, idx: Index) -> ll.Value:
        inner = idx[:-1]
        first = em2.b.icmp_unsigned("==", idx[-1], i64(0))
        return em2.b.select(first, _element(em2, a, inner), _element(em2, b, inner))
    deps = (a.deps | b.deps) if isinstance(a, Tile) else frozenset()
    return [Lazy(op.result.type.shape, element_of(op.result.type), at, deps, True,
                 all(isinstance(t, Tile) and t.cheap for t in args), reads_memory([a, b]))]


def _element(em: Emitter, value, idx: Index) -> ll.Value:
    return value.at(em, idx) if isinstance(value, Tile) else value


@lowering("split")
def lower_split(em: Emitter, op: Op, args: list) -> list:
    source = args[0]
    shape = op.results[0].type.shape if hasattr(op.results[0].type, "shape") else ()
    if not shape:  # tile<2xT> -> two scalars
        return [source.at(em, [i64(0)]), source.at(em, [i64(1)])]
    return [_view(source, shape, lambda em2, idx, k=k: idx + [i64(k)]) for k in (0, 1)]


@lowering("cat")
def lower_cat(em: Emitter, op: Op, args: list) -> list:
    a, b = args
    n0 = a.shape[0]

    def at(em2: Emitter, idx: Index) -> ll.Value:
        bld = em2.b
        in_a = bld.icmp_unsigned("<", idx[0], i64(n0))
        first = [bld.select(in_a, idx[0], i64(n0 - 1))] + idx[1:]
        second = [bld.select(in_a, i64(0), bld.sub(idx[0], i64(n0)))] + idx[1:]
        return bld.select(in_a, a.at(em2, first), b.at(em2, second))
    return [Lazy(op.result.type.shape, a.elem, at, a.deps | b.deps, True, a.cheap and b.cheap, reads_memory([a, b]))]


@lowering("gather")
def lower_gather(em: Emitter, op: Op, args: list) -> list:
    axis = op.attrs["axis"]
    source = args[0] if args[0].cheap else em.materialize(args[0])
    index_tile = args[1]
    signed = not element_of(op.operands[1].type).is_int_unsigned()

    def at(em2: Emitter, idx: Index) -> ll.Value:
        where = em2.to_i64(index_tile.at(em2, idx), signed)
        # Clamp into the source so that a bad index reads a valid element instead of faulting.
        where = em2.b.select(em2.b.icmp_unsigned("<", where, i64(source.shape[axis])), where, i64(0))
        return source.at(em2, idx[:axis] + [where] + idx[axis + 1:])
    return [Lazy(op.result.type.shape, source.elem, at, source.deps | index_tile.deps, True, False,
                 reads_memory([source, index_tile]))]


__all__ = ["I64"]
