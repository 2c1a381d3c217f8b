"""Lowering one Tile IR function into one LLVM function: values, loops, buffers, locations.

An :class:`Emitter` walks a function's blocks op by op and asks the lowering table
(:mod:`.table`) for each op.  It owns what every lowering needs: the current IR builder, stack
buffers (allocated in the entry block so they cost nothing in loops), counted loops over tile
shapes, the program ids, the debug location of the op being lowered, and the policy that
decides which lazy tiles to materialize (one with several uses, or used in a nested region,
unless it is cheap index arithmetic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.core import Block, Function, Location, Op, Value
from ...ir.types import TileType, Type
from ..llvm.loops import annotate_latch
from .llvm_types import I1, I8, I32, I64, i64, llvm_type
from .scalars import HostScalars
from .tiles import Buffer, Index, Lazy, Tile

if TYPE_CHECKING:  # pragma: no cover
    from .module import ModuleLowering


class Emitter:
    """Lowers the ops of one function into ``fn``."""

    def __init__(self, ml: ModuleLowering, function: Function, fn: ll.Function, context: dict[str, Any]):
        self.ml = ml
        self.function = function
        self.fn = fn
        self.values: dict[int, Any] = {}
        self.scope = ml.debug.subprogram(fn, function.name, function.loc)
        entry = fn.append_basic_block("entry")
        self.alloca_builder = ll.IRBuilder(entry)
        body = fn.append_basic_block("body")
        self.b = ll.IRBuilder(body)
        self.exit_block = fn.append_basic_block("exit")
        self.pids: list[ll.Value] = context["pids"]
        self.nprogs: list[ll.Value] = context["nprogs"]
        self.status: ll.Value = context["status"]
        self.loc_md = None
        self.pending_reads: list[Value] = []
        self.float_flags: tuple[str, ...] = ()  # fast-math flags for float add/mul (reductions)
        self.scalars = HostScalars(self)  # the shared scalar lowering's view of this function
        self.use_counts, self.foreign_use = _use_facts(function)
        self.remaining = dict(self.use_counts)
        self.set_loc(function.loc)
        self.alloca_builder.debug_metadata = self.loc_md

    # ---- debug locations ----
    def set_loc(self, loc: Location) -> None:
        self.loc_md = self.ml.debug.location(loc, self.scope)
        self.b.debug_metadata = self.loc_md

    @contextmanager
    def at_loc(self, md) -> Iterator[None]:
        saved = self.b.debug_metadata
        self.b.debug_metadata = md
        try:
            yield
        finally:
            self.b.debug_metadata = saved

    # ---- values ----
    def bind(self, value: Value, lowered: Any) -> None:
        self.values[id(value)] = lowered

    def get(self, value: Value) -> Any:
        try:
            return self.values[id(value)]
        except KeyError:
            raise CompilationError(f"value {value!r} is used before it is defined (invalid Tile IR)") from None

    # ---- memory ----
    def alloca(self, elem: ll.Type, count: int = 1, align: int = 64) -> ll.Value:
        """A stack slot of ``count`` elements in the entry block."""
        size = None if count == 1 else ll.Constant(I64, count)
        slot = self.alloca_builder.alloca(elem, size=size)
        slot.align = align if count > 1 else None
        return slot

    def buffer(self, shape: tuple[int, ...], elem: Type) -> Buffer:
        count = 1
        for d in shape:
            count *= d
        return Buffer(self.alloca(llvm_type(elem), count), tuple(shape), elem)

    def materialize(self, tile: Tile, into: Buffer | None = None) -> Buffer:
        """``tile`` as a buffer (itself when it already is one and no target is given)."""
        if isinstance(tile, Buffer) and (into is None or into is tile):
            return tile
        out = into if into is not None else self.buffer(tile.shape, tile.elem)
        self.loop_nest(tile.shape, lambda idx: out.put(self, idx, tile.at(self, idx)))
        return out

    # ---- loops ----
    def loop(self, count: int | ll.Value, body: Callable[[ll.Value], None], start: int | ll.Value = 0,
             name: str = "i", hints: Op | None = None) -> None:
        """``for i in range(start, count): body(i)`` with an i64 counter (``hints``: the loop op
        whose hints its back edge carries, ``backends/llvm/loops.py``)."""
        start_v = i64(start) if isinstance(start, int) else start
        count_v = i64(count) if isinstance(count, int) else count
        pre = self.b.block
        head = self.fn.append_basic_block(f"{name}.head")
        loop_body = self.fn.append_basic_block(f"{name}.body")
        done = self.fn.append_basic_block(f"{name}.done")
        self.b.branch(head)
        self.b.position_at_end(head)
        iv = self.b.phi(I64, name=name)
        iv.add_incoming(start_v, pre)
        self.b.cbranch(self.b.icmp_signed("<", iv, count_v), loop_body, done)
        self.b.position_at_end(loop_body)
        body(iv)
        nxt = self.b.add(iv, i64(1), flags=("nuw", "nsw"))
        iv.add_incoming(nxt, self.b.block)
        latch = self.b.branch(head)
        if hints is not None:
            annotate_latch(latch, hints)
        self.b.position_at_end(done)

    def loop_nest(self, shape: Sequence[int], body: Callable[[Index], None]) -> None:
        """Nested loops over ``shape`` (last dim innermost); body gets the index."""
        def level(dim: int, idx: Index) -> None:
            if dim == len(shape):
                body(idx)
                return
            if shape[dim] == 1:
                level(dim + 1, idx + [i64(0)])
                return
            self.loop(shape[dim], lambda iv: level(dim + 1, idx + [iv]), name=f"d{dim}")
        level(0, [])

    @contextmanager
    def if_then(self, cond: ll.Value) -> Iterator[None]:
        with self.b.if_then(cond):
            yield

    # ---- lowering ----
    def lower_block(self, block: Block, args: Sequence[Any]) -> tuple[Op | None, list[Any]]:
        """Lower the ops of ``block`` with its arguments bound to ``args``; returns the
        terminator and its lowered operands (the terminator itself is the parent's business)."""
        for value, lowered in zip(block.args, args):
            self.bind(value, lowered)
        saved, self.pending_reads = self.pending_reads, []
        try:
            for op in block.ops:
                if op.opdef.has("terminator"):
                    self.set_loc(op.loc)
                    return op, [self.get(v) for v in op.operands]
                self.lower_op(op)
            return None, []
        finally:
            self.pending_reads = saved

    def lower_op(self, op: Op) -> None:
        from .table import lowering_for

        self.set_loc(op.loc)
        lower = lowering_for(op)
        if op.opdef.has("writes_memory") or op.opdef.has("control"):
            self.flush_reads()
        args = [self.get(v) for v in op.operands]
        for v in op.operands:
            self.remaining[id(v)] = self.remaining.get(id(v), 1) - 1
        results = lower(self, op, args)
        for value, lowered in zip(op.results, results):
            placed = self.placed(value, lowered)
            self.bind(value, placed)
            if isinstance(placed, Lazy) and placed.reads_memory:
                self.pending_reads.append(value)

    def flush_reads(self) -> None:
        """Read now every pending lazy load (the next op may write the memory they read)."""
        for value in self.pending_reads:
            lowered = self.values.get(id(value))
            if isinstance(lowered, Lazy) and self.remaining.get(id(value), 0) > 0:
                self.bind(value, self.materialize(lowered))
        self.pending_reads = []

    def placed(self, value: Value, lowered: Any) -> Any:
        """Materialize a lazy result that would otherwise be recomputed too often."""
        if not isinstance(lowered, Lazy) or lowered.cheap:
            return lowered
        if self.use_counts.get(id(value), 0) > 1 or id(value) in self.foreign_use:
            return self.materialize(lowered)
        return lowered

    def can_overwrite(self, value: Value) -> bool:
        """Whether the buffer of ``value`` may be updated in place: no later use of it, and no
        other live value holds or reads that buffer."""
        lowered = self.values.get(id(value))
        if not isinstance(lowered, Buffer) or self.remaining.get(id(value), 0) > 0:
            return False
        for key, other in self.values.items():
            if key == id(value) or self.remaining.get(key, 0) <= 0:
                continue
            if other is lowered or (isinstance(other, Lazy) and id(lowered) in other.deps):
                return False
        return True

    def error(self, op: Op, message: str) -> CompilationError:
        return CompilationError(f"{op.name}: {message}", op.loc, self.function.name)

    # ---- small helpers ----
    def as_bool(self, value: ll.Value) -> ll.Value:
        """An i1 from a stored boolean (i1 or i8)."""
        if value.type == I1:
            return value
        return self.b.icmp_unsigned("!=", value, ll.Constant(value.type, 0))

    def to_i64(self, value: ll.Value, signed: bool = True) -> ll.Value:
        if value.type == I64:
            return value
        if value.type.width > 64:  # pragma: no cover - no such types
            return self.b.trunc(value, I64)
        return self.b.sext(value, I64) if signed else self.b.zext(value, I64)


def _use_facts(function: Function) -> tuple[dict[int, int], set[int]]:
    """Use counts per value, and the values used from a block other than their own."""
    counts: dict[int, int] = {}
    home: dict[int, Block | None] = {}
    foreign: set[int] = set()
    for arg in function.args:
        home[id(arg)] = function.body
    for op in function.walk():
        for region in op.regions:
            for arg in region.args:
                home[id(arg)] = region
        for result in op.results:
            home[id(result)] = op.parent
    for op in function.walk():
        for operand in op.operands:
            counts[id(operand)] = counts.get(id(operand), 0) + 1
            if home.get(id(operand)) is not op.parent:
                foreign.add(id(operand))
    return counts, foreign


def tile_type(value: Value) -> TileType | None:
    return value.type if isinstance(value.type, TileType) else None


__all__ = ["Emitter", "I8", "I32"]
