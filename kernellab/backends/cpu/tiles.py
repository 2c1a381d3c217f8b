"""How tiles live in the generated code.

A tile is never an LLVM value of its own.  It is either

* a :class:`Buffer`: its elements stored row-major in a stack buffer (or, for callee
  arguments, any memory); or
* a :class:`Lazy`: a recipe that emits the instructions computing the element at a given
  index, wherever a consumer asks for it.  Chains of elementwise and index ops stay lazy, so
  a consumer's loop computes the whole chain per element: one fused, countable loop that
  LLVM's vectorizer turns into SIMD.

``deps`` (the buffers a tile reads) and ``remaps`` (whether it reads other indices than the
one asked for) let loops update their carried tiles in place when that is safe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import llvmlite.ir as ll

from ...ir.types import Type
from .llvm_types import i64, llvm_type, store_size

if TYPE_CHECKING:  # pragma: no cover
    from .emitter import Emitter

Index = list  # one i64 LLVM value per dim


class Tile:
    shape: tuple[int, ...]
    elem: Type
    deps: frozenset[int]
    remaps: bool
    cheap: bool
    reads_memory: bool = False

    @property
    def numel(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count

    def at(self, em: Emitter, idx: Index) -> ll.Value:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(eq=False)
class Buffer(Tile):
    """Elements of ``elem`` stored row-major at ``ptr``."""

    ptr: ll.Value
    shape: tuple[int, ...]
    elem: Type
    cheap: bool = False
    remaps: bool = False
    reads_memory: bool = False

    @property
    def deps(self) -> frozenset[int]:
        return frozenset((id(self),))

    def flat(self, em: Emitter, idx: Index) -> ll.Value:
        return flat_index(em.b, self.shape, idx)

    def address(self, em: Emitter, idx: Index) -> ll.Value:
        return em.b.gep(self.ptr, [self.flat(em, idx)], source_etype=llvm_type(self.elem))

    def at(self, em: Emitter, idx: Index) -> ll.Value:
        return em.b.load(self.address(em, idx), typ=llvm_type(self.elem))

    def put(self, em: Emitter, idx: Index, value: ll.Value) -> None:
        em.b.store(value, self.address(em, idx))

    @property
    def nbytes(self) -> int:
        return self.numel * store_size(self.elem)


@dataclass(eq=False)
class Lazy(Tile):
    """Elements computed on demand by ``fn(em, idx)``."""

    shape: tuple[int, ...]
    elem: Type
    fn: Callable[[Emitter, Index], ll.Value]
    deps: frozenset[int] = field(default_factory=frozenset)
    remaps: bool = False
    cheap: bool = False
    reads_memory: bool = False  # reads memory when evaluated: must run before the next write

    def at(self, em: Emitter, idx: Index) -> ll.Value:
        return self.fn(em, idx)


def flat_index(b: ll.IRBuilder, shape: tuple[int, ...], idx: Index) -> ll.Value:
    """Row-major linear index of ``idx`` in ``shape``."""
    flat = None
    stride = 1
    for dim in reversed(range(len(shape))):
        term = idx[dim] if stride == 1 else b.mul(idx[dim], i64(stride))
        flat = term if flat is None else b.add(flat, term)
        stride *= shape[dim]
    return flat if flat is not None else i64(0)


def unflatten(b: ll.IRBuilder, shape: tuple[int, ...], flat: ll.Value) -> Index:
    """The multi-index of row-major position ``flat`` in ``shape``."""
    idx = []
    stride = 1
    strides = []
    for d in reversed(shape):
        strides.append(stride)
        stride *= d
    strides.reverse()
    for dim, d in enumerate(shape):
        value = flat if strides[dim] == 1 else b.udiv(flat, i64(strides[dim]))
        if dim > 0:
            value = b.urem(value, i64(d))
        idx.append(value)
    return idx


def combine_deps(tiles) -> frozenset[int]:
    out: frozenset[int] = frozenset()
    for t in tiles:
        if isinstance(t, Tile):
            out |= t.deps
    return out


def reads_memory(values) -> bool:
    """Whether a tile computed from ``values`` reads memory when evaluated (one of them is a lazy
    load, or built on one): the emitter evaluates it before the next write."""
    return any(isinstance(v, Tile) and v.reads_memory for v in values)
