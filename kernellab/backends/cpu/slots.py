"""Values carried across control flow (loop-carried values, ``if`` and ``while`` results).

Each carried value gets a slot: an ``alloca`` for a scalar (promoted to a register by LLVM), a
stack buffer for a tile, one scalar slot per component for a block pointer, and, for a tile
advanced by a uniform step each iteration (``ptrs += BLOCK_K * stride``), just the running
offset: the tile stays a lazy ``init + offset``, so loads through it remain contiguous and
vectorize instead of becoming gathers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import llvmlite.ir as ll

from ...ir.core import Value
from ...ir.types import PointerType, TileType, Type, element_of
from .emitter import Emitter
from .llvm_types import I64, i64, llvm_type
from .lower_memory import BlockPtrValue
from .tiles import Buffer, Lazy, Tile


class Slot:
    def read(self, em: Emitter) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def write(self, em: Emitter, value: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass
class ScalarSlot(Slot):
    ptr: ll.Value
    lty: ll.Type

    def read(self, em: Emitter) -> ll.Value:
        return em.b.load(self.ptr, typ=self.lty)

    def write(self, em: Emitter, value: ll.Value) -> None:
        em.b.store(value, self.ptr)


@dataclass
class TileSlot(Slot):
    buffer: Buffer

    def read(self, em: Emitter) -> Buffer:
        return self.buffer

    def write(self, em: Emitter, value: Any) -> None:
        if isinstance(value, Tile):
            em.materialize(value, into=self.buffer)
        else:  # a scalar yielded for a tile of one value
            em.loop_nest(self.buffer.shape, lambda idx: self.buffer.put(em, idx, value))


@dataclass
class BlockPtrSlot(Slot):
    template: BlockPtrValue
    parts: list[ScalarSlot]

    def read(self, em: Emitter) -> BlockPtrValue:
        return self.template.with_components([p.read(em) for p in self.parts])

    def write(self, em: Emitter, value: BlockPtrValue) -> None:
        for part, component in zip(self.parts, value.components()):
            part.write(em, component)


@dataclass
class OffsetSlot(Slot):
    """A tile ``base + offset``: ``addptr`` moves pointers by elements, ``add`` integers."""

    base: Any
    offset: ScalarSlot
    kind: str  # "addptr" or "add"
    elem: Type
    shape: tuple

    def read(self, em: Emitter) -> Lazy:
        offset = self.offset.read(em)
        base = self.base
        kind = self.kind
        elem = self.elem

        def at(em2: Emitter, idx) -> ll.Value:
            start = base.at(em2, idx) if isinstance(base, Tile) else base
            if kind == "addptr":
                return em2.b.gep(start, [offset], source_etype=llvm_type(elem.element_ty))
            return em2.b.add(start, offset)
        cheap = not isinstance(base, Tile) or base.cheap
        deps = base.deps if isinstance(base, Tile) else frozenset()
        return Lazy(self.shape, elem, at, deps, getattr(base, "remaps", False), cheap)

    def advance(self, em: Emitter, step: ll.Value) -> None:
        self.offset.write(em, em.b.add(self.offset.read(em), step))

    def write(self, em: Emitter, value: Any) -> None:  # pragma: no cover - advanced, never written
        raise AssertionError("an offset slot is advanced, not written")


def new_slot(em: Emitter, ty: Type, like: Any = None) -> Slot:
    """An empty slot for values of Tile IR type ``ty`` (``like``: a block pointer template)."""
    if isinstance(ty, TileType):
        return TileSlot(em.buffer(ty.shape, ty.element_ty))
    if isinstance(ty, PointerType) and ty.is_block_ptr() or isinstance(like, BlockPtrValue):
        template = like
        parts = [ScalarSlot(em.alloca(c.type), c.type) for c in template.components()]
        return BlockPtrSlot(template, parts)
    lty = llvm_type(ty)
    return ScalarSlot(em.alloca(lty), lty)


def write_all(em: Emitter, slots: list[Slot], values: list) -> None:
    """Write yielded values into slots as if all at once: a value that reads another slot (or
    its own at other indices) goes through a temporary buffer first."""
    tile_slots = {id(s.buffer) for s in slots if isinstance(s, TileSlot)}
    staged = []
    for slot, value in zip(slots, values):
        if isinstance(slot, OffsetSlot):
            continue
        if isinstance(slot, TileSlot) and isinstance(value, Tile):
            if value is slot.buffer:
                continue
            others = (value.deps & tile_slots) - {id(slot.buffer)}
            reads_self = id(slot.buffer) in value.deps
            if others or (reads_self and value.remaps) or (isinstance(value, Buffer) and id(value) in tile_slots):
                value = em.materialize(value, into=em.buffer(value.shape, value.elem))
        staged.append((slot, value))
    for slot, value in staged:
        slot.write(em, value)


def uniform_step(em: Emitter, body_arg: Value, yielded: Value) -> tuple[str, Value | int | float] | None:
    """If ``yielded`` is ``body_arg`` advanced by one scalar (``addptr``/integer ``add`` with a
    splat or constant tile), return (kind, the scalar Value or constant)."""
    op = yielded.defining_op
    if op is None or op.name not in ("addptr", "add") or op.operands[0] is not body_arg:
        return None
    if op.name == "add" and not element_of(op.result.type).is_int():
        return None
    step = op.operands[1].defining_op
    if step is None:
        return None
    if step.name == "splat":
        return op.name, step.operands[0]
    if step.name == "constant" and isinstance(step.attrs["value"], int):
        return op.name, step.attrs["value"]
    return None


def offset_step(em: Emitter, kind: str, step: Value | int, offset_type: ll.Type, signed: bool) -> ll.Value:
    """The step as a value of the offset slot's type."""
    if isinstance(step, int):
        return ll.Constant(offset_type, step)
    value = em.get(step)
    if kind == "addptr":
        return em.to_i64(value, signed)
    return value


__all__ = ["Slot", "ScalarSlot", "TileSlot", "BlockPtrSlot", "OffsetSlot", "new_slot", "write_all", "uniform_step",
           "offset_step", "I64", "i64"]
