"""Operand buffers in shared memory: their layouts, where they live, the asynchronous copies
that fill them and the waits that publish them (the ``gpu.*`` ops of ``gpu_ops.py``).

Shared memory is one dynamic buffer.  Its start holds the *persistent* regions, planned before
any op is lowered (:func:`plan_regions`): one per wgmma operand that must be written from
registers, then one per ``gpu.shared_buffer`` ring (``stages`` slots; sibling loops share).  The
one-op-at-a-time scratch of ``shared.py`` follows the staged operands, and the rings too while a
pipelined loop's rings are live (``ModuleLowering.scratch_base``): after the loop (the epilogue's
layout conversions) it reuses the rings' bytes.  Every region is 1024-byte aligned.

A slot's layout (:class:`SharedSpec`) is either

* the NVMMA *swizzled* layout (wgmma): the tile is cut along its contiguous dimension
  (``major``) into panels ``W`` bytes wide (W = 128, 64 or 32), each panel row-major with rows of
  W bytes; inside every 8-row group of W-byte rows the 16-byte chunk index is XORed with
  ``(address >> 7) & (W / 16 - 1)`` — CUTLASS's Swizzle<3,4,3>, <2,4,3> and <1,4,3>;
* padded rows (``mma.sync`` via ``ldmatrix``): row-major along ``major`` with 16 bytes of
  padding per row, as ``dot.py`` stages its operands.

Both offsets are linear over the bits of a coordinate (XOR-linear for the swizzle), so a thread's
offset is computed once and each register adds (XORs) a constant.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import llvmlite.ir as ir

from ....ir.core import Function, Op, Value, defined_values
from ....ir.types import TileType
from ..layouts.linear import Layout
from .context import FunctionLowering, TileVal, lowering
from .nvvm import build_vector, inline_asm, pass_through
from .types import I32, I64, byte_size

MMA_PAD_BYTES = 16  # padding per row for mma.sync's ldmatrix: 8 rows of a matrix hit 8 bank groups
ALIGN = 1024


def padded_strides(shape: tuple[int, int], major: int, size: int) -> tuple[int, int]:
    """Element strides of a tile of ``size``-byte elements kept with dimension ``major``
    contiguous and each row padded by :data:`MMA_PAD_BYTES` (mma.sync's operands, staged or in a
    ring; rows stay 16-byte aligned for ``ldmatrix``)."""
    rows, cols = shape
    pad = MMA_PAD_BYTES // size
    return (cols + pad, 1) if major == 1 else (1, rows + pad)


def round_up(n: int, to: int = ALIGN) -> int:
    return (n + to - 1) // to * to


@dataclass(frozen=True)
class SharedSpec:
    """One slot's layout (see the module docstring) and where the region starts."""

    shape: tuple[int, int]
    size: int  # bytes per element
    major: int  # the contiguous dimension
    swizzle: int  # W in bytes; 0: padded rows
    stages: int
    base: int  # byte offset of the region in the dynamic shared memory

    @property
    def strides(self) -> tuple[int, int]:
        """Element strides of the padded layout."""
        return padded_strides(self.shape, self.major, self.size)

    @property
    def slot_bytes(self) -> int:
        rows, cols = self.shape
        if self.swizzle:
            return round_up(rows * cols * self.size)
        strides = self.strides
        return round_up(((rows - 1) * strides[0] + (cols - 1) * strides[1] + 1) * self.size)

    @property
    def region_bytes(self) -> int:
        return self.stages * self.slot_bytes

    @property
    def rows(self) -> int:
        """Extent of the non-contiguous dimension."""
        return self.shape[1 - self.major]

    @property
    def panel_bytes(self) -> int:
        return self.rows * self.swizzle

    def linear(self, coord: tuple[int, int]) -> int:
        """Unswizzled byte offset of element ``coord`` inside a slot."""
        if not self.swizzle:
            return (coord[0] * self.strides[0] + coord[1] * self.strides[1]) * self.size
        fast, slow = coord[self.major], coord[1 - self.major]
        per_row = self.swizzle // self.size
        return (fast // per_row) * self.panel_bytes + slow * self.swizzle + (fast % per_row) * self.size

    def swizzled(self, offset: int) -> int:
        if not self.swizzle:
            return offset
        return offset ^ (((offset >> 7) & (self.swizzle // 16 - 1)) << 4)

    def offset(self, coord: tuple[int, int]) -> int:
        return self.swizzled(self.linear(coord))

    def thread_bits(self, layout: Layout) -> int:
        """The bits a thread's offset (:meth:`thread_offset`) can have set: the offsets of the
        layout's lane and warp basis vectors, ORed (the offset is XOR-linear over them)."""
        bits = 0
        for basis in (*layout.lane, *layout.warp):
            bits |= self.offset(basis)
        return bits

    def combine(self, b: ir.IRBuilder, thread: ir.Value, constant: int, layout: Layout) -> ir.Value:
        """A thread's offset (``thread``, in ``layout``) and a register's (``constant``, from
        :meth:`offset`).  Swizzled offsets combine by XOR; where the constant's bits and the
        thread's cannot overlap that is an add, which ptxas folds into the access's immediate
        (one address register for all of a thread's copies instead of one each)."""
        if not constant:
            return thread
        if self.swizzle and constant & self.thread_bits(layout):
            return b.xor(thread, ir.Constant(I32, constant))
        return b.add(thread, ir.Constant(I32, constant))

    def thread_offset(self, ctx: FunctionLowering, layout: Layout) -> ir.Value:
        """The offset of this thread's register 0 of a tile in ``layout`` (in the prologue)."""
        key = ("smem-thread", self, layout)
        found = ctx.thread_cache.get(key)
        if found is not None:
            return found
        b = ctx.prologue
        row, col = ctx.thread_offsets(layout)
        if not self.swizzle:
            total = b.mul(b.add(b.mul(row, ir.Constant(I32, self.strides[0])),
                                b.mul(col, ir.Constant(I32, self.strides[1]))), ir.Constant(I32, self.size))
        else:
            fast, slow = (row, col) if self.major == 0 else (col, row)
            per_row = self.swizzle // self.size
            shift = per_row.bit_length() - 1
            panel = b.mul(b.lshr(fast, ir.Constant(I32, shift)), ir.Constant(I32, self.panel_bytes))
            within = b.mul(b.and_(fast, ir.Constant(I32, per_row - 1)), ir.Constant(I32, self.size))
            linear = b.add(b.add(panel, b.mul(slow, ir.Constant(I32, self.swizzle))), within)
            mask = ir.Constant(I32, self.swizzle // 16 - 1)
            total = b.xor(linear, b.shl(b.and_(b.lshr(linear, ir.Constant(I32, 7)), mask), ir.Constant(I32, 4)))
        ctx.thread_cache[key] = total
        return total

    # ---- wgmma descriptors ----
    def descriptor_bits(self) -> int:
        """The layout fields of a wgmma matrix descriptor (start address left zero): leading
        byte offset = a panel's bytes, stride byte offset = 8 rows, the swizzle mode."""
        mode = {128: 1, 64: 2, 32: 3}[self.swizzle]
        return ((self.panel_bytes >> 4) << 16) | (((8 * self.swizzle) >> 4) << 32) | (mode << 62)


def choose_swizzle(shape: tuple[int, int], size: int, major: int) -> int:
    """The widest swizzle whose rows the tile's contiguous extent fills (0: none fits)."""
    fast_bytes = shape[major] * size
    for width in (128, 64, 32):
        if fast_bytes % width == 0 and shape[1 - major] % 8 == 0:
            return width
    return 0


def spec_for(ty: TileType, major: int, engine: str, stages: int, base: int) -> SharedSpec:
    size = byte_size(ty)
    swizzle = choose_swizzle(ty.shape, size, major) if engine == "wgmma" else 0
    return SharedSpec(tuple(ty.shape), size, major, swizzle, stages, base)


def tma_store_spec(op: Op, plan, arch: int, kernel: Function) -> SharedSpec | None:
    """The swizzled staging layout a ``descriptor_store`` in ``kernel`` (the entry function: only
    its parameters are the launch's) goes through when the tensor memory accelerator writes it
    (sm_90, a descriptor the launch encodes: ``tma.py``); None where it is stored thread by
    thread.  Based at 0 (the lowering moves it to the scratch)."""
    from .. import tma

    if op.name != "descriptor_store" or arch < 90 or len(op.operand("value").type.shape) != 2:
        return None
    value = op.operand("value")
    spec = spec_for(value.type, 1, "wgmma", 1, 0)
    if not tma.fits(op.operand("desc"), value.type, kernel, plan.info, spec.swizzle):
        return None
    return spec


def transposed(spec: SharedSpec) -> SharedSpec:
    """The same bytes seen as the transposed tile (``tl.trans`` of a slot): the shape swapped,
    the other dimension contiguous."""
    return replace(spec, shape=(spec.shape[1], spec.shape[0]), major=1 - spec.major)


@dataclass
class SharedVal:
    """A tile that lives in a shared-memory slot: ``slot`` is the slot index (i32) or ``None``
    for a one-slot region."""

    spec: SharedSpec
    slot: ir.Value | None

    def slot_offset(self, ctx: FunctionLowering) -> ir.Value:
        """Byte offset of the slot in the dynamic shared memory."""
        base = ir.Constant(I32, self.spec.base)
        if self.slot is None:
            return base
        return ctx.builder.add(base, ctx.builder.mul(self.slot, ir.Constant(I32, self.spec.slot_bytes)))


# ---- planning the persistent regions ----------------------------------------------------------

@dataclass
class SharedRegions:
    specs: dict  # buffer id -> SharedSpec (rings), (id(dot), operand) -> SharedSpec (staged operands)
    staged: int  # bytes of the staged operands' regions (from offset 0)
    total: int  # staged regions, then the rings


def plan_regions(functions: list[Function], staged: dict) -> SharedRegions:
    """Regions for every staged wgmma operand in ``staged`` (``(id(dot), operand) -> (tile type,
    major, id(value))``; dots staging one value in one layout share its region, which is then
    written once) from offset 0, then the mbarriers of every TMA-filled loop (``("barriers", n)`` ->
    offset), then for every ring of ``functions``: the rings of sibling loops (one after the other
    in a block) share their offsets, those of nested loops follow their parent's."""
    specs: dict = {}
    by_value: dict = {}
    offset = 0
    for key, (ty, major, value) in staged.items():
        spec = by_value.get((value, major))
        if spec is None:
            spec = by_value[(value, major)] = spec_for(ty, major, "wgmma", 1, offset)
            offset += spec.region_bytes
        specs[key] = spec
    barrier_sets = [op for function in functions for op in function.walk() if op.name == "gpu.tma_barriers"]
    for op in barrier_sets:  # 8 bytes per mbarrier; never reused as scratch
        specs[("barriers", op.attrs["barriers"])] = (offset, int(op.attrs["stages"]))
        offset += 8 * int(op.attrs["stages"])
    offset = round_up(offset)
    end = offset
    for function in functions:
        end = max(end, _place_rings(function.body, offset, specs))
    return SharedRegions(specs, offset, end)


def _ring_spec(ring: Op, base: int) -> SharedSpec:
    """The layout a ``gpu.shared_buffer`` declares (its ``swizzle`` as the pass chose it)."""
    ty = ring.attrs["type"]
    return SharedSpec(tuple(ty.shape), byte_size(ty), ring.attrs["major"], int(ring.attrs.get("swizzle", 0)),
                      ring.attrs["stages"], base)


def _place_rings(block, base: int, specs: dict) -> int:
    """Place the rings declared in ``block`` (each group just before its loop) from ``base``;
    returns the end of what this block and the blocks inside it use."""
    end = base
    group: list[Op] = []
    for op in block.ops:
        if op.name == "gpu.shared_buffer":
            group.append(op)
            continue
        top = base
        for ring in group:
            spec = _ring_spec(ring, top)
            specs[ring.attrs["buffer"]] = spec
            top += spec.region_bytes
        group = []
        end = max(end, top)
        for region in op.regions:
            end = max(end, _place_rings(region, top, specs))
    return end


# ---- lowerings -------------------------------------------------------------------------------

def shared_address(ctx: FunctionLowering, offset: ir.Value) -> ir.Value:
    """The 32-bit shared-window address of byte ``offset`` of the dynamic shared memory."""
    b = ctx.builder
    base = b.ptrtoint(ctx.module.shared_base(), I64)
    return b.add(b.trunc(base, I32), offset)


@lowering("gpu.shared_buffer")
def _shared_buffer(ctx: FunctionLowering, op: Op, layout) -> None:
    ctx.module.live_rings += 1  # the scratch moves above the rings until they are released
    return None


@lowering("gpu.barrier")
def _barrier(ctx: FunctionLowering, op: Op, layout) -> None:
    ctx.barrier()
    return None


@lowering("gpu.shared_read")
def _shared_read(ctx: FunctionLowering, op: Op, layout) -> list:
    spec = ctx.module.regions.specs[op.attrs["buffer"]]
    return [SharedVal(spec, ctx.get(op.operands[0]))]


@lowering("gpu.async_commit")
def _async_commit(ctx: FunctionLowering, op: Op, layout) -> None:
    inline_asm(ctx.builder, "cp.async.commit_group;", "", [], [])
    return None


@lowering("gpu.async_wait")
def _async_wait(ctx: FunctionLowering, op: Op, layout) -> None:
    """Wait for this thread's copies, then for every thread's (barrier).

    No ``fence.proxy.async`` between the copies and the wgmma that reads them, as in Triton and
    CUTLASS's cp.async mainloops: the PTX memory model files ``cp.async`` under the generic proxy,
    but the copies' data reaches wgmma's operand reads in practice once the wait and the barrier
    are done, and the fence (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S in SASS) cost 1-6% of matmul and
    attention speed on the H200 (bench/NOTES.md, 2026-12-03).  Operands written by ordinary stores
    (``store_staged``) keep their fence."""
    b = ctx.builder
    inline_asm(b, f"cp.async.wait_group {int(op.attrs['pending'])};", "", [], [])
    ctx.barrier()
    ctx.module.live_rings -= int(op.attrs.get("release", 0))
    return None


@lowering("gpu.dot_wait")
def _dot_wait(ctx: FunctionLowering, op: Op, layout: Layout) -> list:
    acc = ctx.get(op.operands[0], layout)
    return [wgmma_wait(ctx, acc, int(op.attrs["pending"]))]


def wgmma_wait(ctx: FunctionLowering, acc: TileVal, pending: int) -> TileVal:
    """``wgmma.wait_group pending`` with the accumulator registers passing through it (so that
    nothing reads them before the dots writing them are done)."""
    return TileVal(acc.layout, pass_through(ctx.builder, f"wgmma.wait_group.sync.aligned {pending};", acc.regs))


@lowering("gpu.async_copy")
def _async_copy(ctx: FunctionLowering, op: Op, layout) -> None:
    from .async_copy import lower_async_copy

    lower_async_copy(ctx, op)
    return None


def staged_operands(function: Function, plan, num_warps: int, arch: str) -> dict:
    """The wgmma operands of ``function`` that are written to shared memory from registers:
    ``(id(dot), operand) -> (tile type, major, id(value))`` (B when it is not a ring; A when it is
    not a ring and not 16-bit, since only 16-bit A fragments are taken from registers, or when it
    is 16-bit but made outside the loop that holds the dot: attention's Q, written once before the
    loop, would otherwise hold its registers through every iteration)."""
    from ..layouts.tensor_cores import dot_engine, needs_k_major, tensor_core_kind

    out = {}
    for op in function.walk():
        if op.name != "dot" or dot_engine(op, num_warps, arch) != "wgmma":
            continue
        kind = tensor_core_kind(op)
        for index in (0, 1):
            value = op.operands[index]
            if _is_ring(value):
                continue
            if index == 0 and byte_size(value.type) == 2 and not _made_outside_its_loop(op, value):
                continue
            major = 1 - index if needs_k_major(kind) else _register_major(plan, value)
            out[(id(op), index)] = (value.type, major, id(value))
    return out


def _made_outside_its_loop(op: Op, value: Value) -> bool:
    """Whether ``op`` is in a loop and ``value`` is made outside the innermost one."""
    loop = _enclosing_loop(op)
    return loop is not None and all(made is not value for made in defined_values(loop))


def _enclosing_loop(op: Op) -> Op | None:
    block = op.parent
    while block is not None and isinstance(block.parent, Op):
        if block.parent.name in ("for", "while"):
            return block.parent
        block = block.parent.parent
    return None


def _is_ring(value: Value) -> bool:
    """A ring slot (``gpu.shared_read``) or a transposed view of one."""
    op = value.defining_op
    if op is not None and op.name == "trans" and tuple(op.attrs["order"]) == (1, 0):
        op = op.operands[0].defining_op
    return op is not None and op.name == "gpu.shared_read"


def ring_operand(ctx: FunctionLowering, value: Value) -> SharedVal | None:
    """The operand as a ring slot (through one transpose), or ``None``."""
    lowered = ctx.values.get(id(value))
    if isinstance(lowered, SharedVal):
        return lowered
    op = value.defining_op
    if op is None or op.name != "trans" or tuple(op.attrs["order"]) != (1, 0):
        return None
    source = ctx.values.get(id(op.operands[0]))
    return SharedVal(transposed(source.spec), source.slot) if isinstance(source, SharedVal) else None


def _register_major(plan, value: Value) -> int:
    layout = plan.layout(value)
    return 1 if layout.vector_width(1) >= layout.vector_width(0) else 0


def store_staged(ctx: FunctionLowering, tile: TileVal, ty: TileType, spec: SharedSpec) -> None:
    """Write ``tile`` into a one-slot region in ``spec``'s layout, then publish it to the async
    proxy, the tensor cores' and the TMA's (barriers before and after; the fence in between).
    A thread's registers that are consecutive along the slot's contiguous dimension go as one
    vector (inside one 16-byte chunk, which the swizzle keeps whole)."""
    b = ctx.builder
    layout = tile.layout
    ctx.barrier()
    thread = spec.thread_offset(ctx, layout)
    base = ir.Constant(I32, spec.base)
    owner = ctx.owner(layout)
    vec = max(1, min(layout.vector_width(spec.major), 16 // spec.size))
    for r in range(0, len(tile.regs), vec):
        offset = b.add(spec.combine(b, thread, spec.offset(layout.reg_coords[r]), layout), base)
        ptr = b.gep(ctx.module.shared_base(), [offset], source_etype=ir.IntType(8))
        value = tile.regs[r] if vec == 1 else build_vector(b, tile.regs[r:r + vec])
        if owner is None:
            b.store(value, ptr, align=spec.size * vec)
        else:
            with b.if_then(owner):
                b.store(value, ptr, align=spec.size * vec)
    inline_asm(b, "fence.proxy.async.shared::cta;", "", [], [])
    ctx.barrier()


def materialize(ctx: FunctionLowering, shared: SharedVal, layout: Layout, ty: TileType) -> TileVal:
    """Read a tile out of its slot into ``layout`` (for users other than a dot)."""
    from .types import memory_type

    b = ctx.builder
    spec = shared.spec
    thread = spec.thread_offset(ctx, layout)
    slot = shared.slot_offset(ctx)
    regs = []
    for r in range(layout.num_regs):
        offset = b.add(spec.combine(b, thread, spec.offset(layout.reg_coords[r]), layout), slot)
        ptr = b.gep(ctx.module.shared_base(), [offset], source_etype=ir.IntType(8))
        regs.append(b.load(ptr, typ=memory_type(ty), align=spec.size))
    return TileVal(layout, regs)


