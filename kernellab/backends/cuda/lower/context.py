"""The state of lowering one function: what each Tile IR value became, per-thread indices, and
the shared-memory scratch.

A lowered value is one of

* an ``ir.Value`` for scalars (the same in every thread of the CTA);
* a :class:`TileVal`: the thread's registers of a tile in a layout (register ``r`` holds the
  element at ``layout.coord(r, lane, warp)``);
* a :class:`StructVal` for block pointers and tensor descriptors (scalar parts).

``get(value, layout)`` returns a tile in the asked layout: lazy tiles are materialized on
demand (once per layout and scope), solid tiles are converted when their layout differs.  What a
loop body asks of a tile defined outside the loop is computed before the loop (at the loop's
preheader, the *hoist point* of the loop's scope), once, not in every iteration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import llvmlite.ir as ir

from ....errors import CompilationError
from ....ir.core import Block, Function, Location, Op, Value
from ....ir.types import PointerType, TileType, Type
from ..layouts.assign import LayoutPlan
from ..layouts.linear import Layout
from .scalars import DeviceScalars
from .types import I32


@dataclass
class TileVal:
    layout: Layout
    regs: list[ir.Value]


@dataclass
class StructVal:
    """A block pointer or tensor descriptor: base pointer, shape and strides (i64) and, for
    block pointers, the current offsets (i32)."""

    base: ir.Value
    shape: list[ir.Value]
    strides: list[ir.Value]
    offsets: list[ir.Value] = field(default_factory=list)

    def flatten(self) -> list[ir.Value]:
        return [self.base] + self.shape + self.strides + self.offsets

    @staticmethod
    def unflatten(values: list[ir.Value], rank: int, with_offsets: bool) -> StructVal:
        base, rest = values[0], values[1:]
        offsets = rest[2 * rank:3 * rank] if with_offsets else []
        return StructVal(base, rest[:rank], rest[rank:2 * rank], offsets)


@dataclass
class Scope:
    """Materializations made in one region (forgotten outside it, for dominance); ``hoist``
    builds just before the region's loop starts (``None`` where hoisting is not allowed)."""

    memo: dict
    hoist: ir.IRBuilder | None = None


Lowered = ir.Value | TileVal | StructVal
Lowering = Callable[["FunctionLowering", Op, "Layout | None"], "list[Lowered] | None"]
LOWERINGS: dict[str, Lowering] = {}


def lowering(*names: str) -> Callable[[Lowering], Lowering]:
    """Register the lowering of ops ``names``: ``fn(ctx, op, layout) -> results | None`` where
    ``layout`` is the layout asked for the (first) tile result, ``None`` for scalars."""
    def register(fn: Lowering) -> Lowering:
        for name in names:
            if name in LOWERINGS:
                raise ValueError(f"two CUDA lowerings for op {name}")
            LOWERINGS[name] = fn
        return fn
    return register


def is_tile(value: Value) -> bool:
    return isinstance(value.type, TileType)


def is_struct_type(ty: Type) -> bool:
    return (isinstance(ty, PointerType) and ty.is_block_ptr()) or ty.is_tensor_descriptor()


class FunctionLowering:
    """Lowers one Tile IR function into an LLVM function (see the module docstring)."""

    def __init__(self, module, function: Function, plan: LayoutPlan, llfn: ir.Function, subprogram):
        self.module = module  # the ModuleLowering
        self.nvvm = module.nvvm
        self.scalars = DeviceScalars(self)  # the shared scalar lowering's view of this function
        self.function = function
        self.plan = plan
        self.llfn = llfn
        self.subprogram = subprogram
        entry = llfn.append_basic_block("entry")
        body = llfn.append_basic_block("body")
        self.prologue = ir.IRBuilder(entry)
        self.prologue.debug_metadata = self.debug_location(function.loc)
        self.prologue.branch(body)
        self.prologue.position_before(entry.instructions[-1])
        self.builder = ir.IRBuilder(body)
        self.builder.debug_metadata = self.prologue.debug_metadata
        self.values: dict[int, Lowered] = {}
        self.scopes: list[Scope] = [Scope({})]
        self.block_depth: dict[int, int] = {id(function.body): 0}
        self.thread_cache: dict = {}
        self.tid = self.nvvm.sreg(self.prologue, "tid.x")
        self.lane = self.prologue.and_(self.tid, ir.Constant(I32, 31), name="lane")
        # the warp index through a shuffle from lane 0: the same value, which ptxas then knows
        # to be warp-uniform (what depends on it, such as a warpgroup's wgmma descriptors, goes
        # to uniform registers instead of being computed per thread and moved over)
        self.warp = self.nvvm.shuffle(self.prologue, "idx", self.prologue.lshr(self.tid, ir.Constant(I32, 5)), 0)

    # ---- errors and locations ----
    def error(self, message: str, op: Op | None = None) -> CompilationError:
        return CompilationError(f"CUDA backend: {message}", op.loc if op is not None else self.function.loc,
                                self.function.name)

    def debug_location(self, loc: Location):
        return self.module.debug.location(loc, self.subprogram)

    @contextmanager
    def at(self, loc: Location) -> Iterator[None]:
        saved = self.builder.debug_metadata
        self.builder.debug_metadata = self.debug_location(loc)
        try:
            yield
        finally:
            self.builder.debug_metadata = saved

    @contextmanager
    def scope(self, block: Block | None = None, hoist: ir.IRBuilder | None = None) -> Iterator[None]:
        """Lower a region (``block``): materializations made inside are forgotten outside it.
        ``hoist`` is a builder before the loop that runs the region, where tiles defined
        outside the loop can be materialized once."""
        self.scopes.append(Scope({}, hoist))
        if block is not None:
            self.block_depth[id(block)] = len(self.scopes) - 1
        try:
            yield
        finally:
            self.scopes.pop()

    def hoist_point(self) -> ir.IRBuilder:
        """A builder just before the current block's terminator (call after branching into a
        loop's header, from the block that branches)."""
        builder = ir.IRBuilder(self.builder.block)
        builder.position_before(self.builder.block.instructions[-1])
        builder.debug_metadata = self.builder.debug_metadata
        return builder

    def _home(self, value: Value) -> int:
        """The outermost scope ``value`` can be materialized in from here: its own region's,
        crossing only loops (scopes with a hoist point)."""
        parent = value.owner if value.defining_op is None else value.defining_op.parent
        depth = self.block_depth.get(id(parent), len(self.scopes) - 1)
        home = len(self.scopes) - 1
        while home > depth and self.scopes[home].hoist is not None:
            home -= 1
        return home

    def defined_outside_loop(self, value: Value) -> bool:
        """Whether ``value`` comes from outside the loop being lowered (so what is made of it
        can be made once, before the loop)."""
        return self._home(value) < len(self.scopes) - 1

    @contextmanager
    def _at_home(self, home: int) -> Iterator[None]:
        if home == len(self.scopes) - 1:
            yield
            return
        saved = self.builder
        self.builder = self.scopes[home + 1].hoist
        try:
            yield
        finally:
            self.builder = saved

    def new_block(self, name: str) -> ir.Block:
        return self.llfn.append_basic_block(name)

    # ---- values ----
    def set(self, value: Value, lowered: Lowered) -> None:
        self.values[id(value)] = lowered

    def _memo(self, key) -> TileVal | None:
        for scope in reversed(self.scopes):
            found = scope.memo.get(key)
            if found is not None:
                return found
        return None

    def get(self, value: Value, layout: Layout | None = None) -> Lowered:
        """The lowered value; tiles in ``layout`` (default: the plan's layout for it)."""
        if not is_tile(value):
            found = self.values.get(id(value))
            if found is None:
                raise self.error(f"value {value} used before it was lowered")
            return found
        if layout is None:
            layout = self.plan.layout(value)
        key = (id(value), layout)
        found = self._memo(key)
        if found is not None:
            return found
        home = self._home(value)
        if self.plan.is_lazy(value):
            op = value.defining_op
            with self._at_home(home), self.at(op.loc):
                results = LOWERINGS[op.name](self, op, layout)
            tile = results[value.index]
            self.plan.record(value, layout)
        else:
            current = self.values.get(id(value))
            if current is None:
                raise self.error(f"tile {value} used before it was lowered")
            if not isinstance(current, TileVal):  # a tile in a shared-memory slot
                from .smem import materialize

                tile = materialize(self, current, layout, value.type)
                self.scopes[-1].memo[key] = tile
                return tile
            if current.layout == layout:
                return current
            from .convert import convert

            with self._at_home(home):
                tile = convert(self, current, layout, value.type)
        self.scopes[home].memo[key] = tile
        return tile

    # ---- lowering ops and blocks ----
    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Op) -> None:
        if op.results and all(self.plan.is_lazy(r) for r in op.results):
            return
        fn = LOWERINGS.get(op.name)
        if fn is None:
            raise self.error(f"op {op.name} has no lowering yet", op)
        layout = self.plan.layout(op.results[0]) if op.results and is_tile(op.results[0]) else None
        with self.at(op.loc):
            results = fn(self, op, layout)
        if results is not None:
            for value, lowered in zip(op.results, results):
                self.set(value, lowered)

    # ---- per-thread indices ----
    def thread_offsets(self, layout: Layout) -> list[ir.Value]:
        """Per dimension, the coordinate of this thread's register 0 (computed once, at entry)."""
        key = ("offsets", layout)
        found = self.thread_cache.get(key)
        if found is not None:
            return found
        b = self.prologue
        offsets = []
        for d in range(layout.rank):
            total: ir.Value = ir.Constant(I32, 0)
            for source, bases in ((self.lane, layout.lane), (self.warp, layout.warp)):
                for bit, value in _runs([basis[d] for basis in bases]):
                    start, count = bit
                    piece = b.lshr(source, ir.Constant(I32, start)) if start else source
                    piece = b.and_(piece, ir.Constant(I32, (1 << count) - 1))
                    piece = b.mul(piece, ir.Constant(I32, value))
                    total = piece if isinstance(total, ir.Constant) and total.constant == 0 else b.add(total, piece)
            offsets.append(total)
        self.thread_cache[key] = offsets
        return offsets

    def linear_offset(self, layout: Layout, strides: tuple[int, ...]) -> ir.Value:
        """``sum(thread_offsets[d] * strides[d])``: where this thread's register 0 sits in a
        buffer with those element strides (computed once, at entry)."""
        key = ("linear", layout, strides)
        found = self.thread_cache.get(key)
        if found is not None:
            return found
        b = self.prologue
        total: ir.Value = ir.Constant(I32, 0)
        for offset, stride in zip(self.thread_offsets(layout), strides):
            if isinstance(offset, ir.Constant) and offset.constant == 0:
                continue
            total = b.add(total, b.mul(offset, ir.Constant(I32, stride)))
        self.thread_cache[key] = total
        return total

    def owner(self, layout: Layout | None) -> ir.Value | None:
        """An i1 that is true in exactly one thread per element (``None``: every thread
        owns its elements).  Scalars (``layout`` None) are owned by thread 0."""
        key = ("owner", layout)
        if key in self.thread_cache:
            return self.thread_cache[key]
        b = self.prologue
        if layout is None:
            result = b.icmp_unsigned("==", self.tid, ir.Constant(I32, 0))
        else:
            lane_mask = layout.replicated_lane_bits()
            warp_mask = layout.replicated_warp_bits()
            tests = []
            if lane_mask:
                tests.append(b.icmp_unsigned("==", b.and_(self.lane, ir.Constant(I32, lane_mask)), ir.Constant(I32, 0)))
            if warp_mask:
                tests.append(b.icmp_unsigned("==", b.and_(self.warp, ir.Constant(I32, warp_mask)), ir.Constant(I32, 0)))
            result = None
            for t in tests:
                result = t if result is None else b.and_(result, t)
        self.thread_cache[key] = result
        return result

    def coords(self, layout: Layout, r: int) -> list[ir.Value]:
        """The element coordinate of register ``r`` (i32 per dimension)."""
        offsets = self.thread_offsets(layout)
        out = []
        for d, c in enumerate(layout.reg_coords[r]):
            out.append(self.builder.add(offsets[d], ir.Constant(I32, c)) if c else offsets[d])
        return out

    # ---- shared memory ----
    def shared(self, byte_offset: ir.Value | int, absolute: bool = False) -> ir.Value:
        """A pointer into the kernel's shared-memory scratch (``absolute``: into the dynamic
        shared memory, where the persistent regions of ``smem.py`` come first)."""
        base = self.module.shared_base()
        if isinstance(byte_offset, int):
            byte_offset = ir.Constant(I32, byte_offset)
        scratch = 0 if absolute else self.module.scratch_base
        if scratch:
            byte_offset = self.builder.add(byte_offset, ir.Constant(I32, scratch))
        return self.builder.gep(base, [byte_offset], source_etype=ir.IntType(8))

    def reserve_shared(self, nbytes: int) -> None:
        self.module.reserve_shared(nbytes)

    def barrier(self) -> None:
        self.nvvm.barrier(self.builder)


def _runs(values: list[int]) -> list[tuple[tuple[int, int], int]]:
    """Group bits whose basis values double from one to the next:
    ``[((first bit, count), first value)]`` (zero values skipped)."""
    runs = []
    i = 0
    while i < len(values):
        if not values[i]:
            i += 1
            continue
        start, value = i, values[i]
        count = 1
        while i + count < len(values) and values[i + count] == value << count:
            count += 1
        runs.append(((start, count), value))
        i += count
    return runs
