"""Moving tiles through the shared-memory scratch.

All shared memory is one dynamic buffer (``global_smem``, 16-byte aligned) whose size is the
largest scratch any op needs (``metadata['shared']``); ops use it one after another, with a
barrier before writing (earlier readers are done) and after writing (writers are done).

A tile is written element ``c`` at byte ``base + sum(c[d] * strides[d]) * size``; where a
thread's consecutive registers hold consecutive elements of the unit-stride dimension the
accesses are vectors of up to 16 bytes.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ....ir.types import PointerType, Type, element_of
from ..layouts.linear import Layout
from .context import FunctionLowering, TileVal
from .nvvm import build_vector
from .types import GLOBAL_PTR, I1, I8, I32, I64, byte_size, llvm_type


def storage_type(ty: Type) -> ir.Type:
    """The LLVM type an element of ``ty`` has in shared memory."""
    element = element_of(ty)
    if isinstance(element, PointerType):
        return I64
    llty = llvm_type(ty)
    return I8 if llty == I1 else llty


def to_storage(b: ir.IRBuilder, value: ir.Value, ty: Type) -> ir.Value:
    if value.type == I1:
        return b.zext(value, I8)
    if value.type == GLOBAL_PTR:
        return b.ptrtoint(value, I64)
    return value


def from_storage(b: ir.IRBuilder, value: ir.Value, ty: Type) -> ir.Value:
    target = llvm_type(ty)
    if target == I1:
        return b.icmp_unsigned("!=", value, ir.Constant(I8, 0))
    if target == GLOBAL_PTR:
        return b.inttoptr(value, GLOBAL_PTR)
    return value


def row_major(shape: tuple[int, ...], pad: int = 0) -> tuple[int, ...]:
    """Element strides of a row-major buffer whose rows (last dim) are padded by ``pad``."""
    strides = [1] * len(shape)
    step = 1
    for d in reversed(range(len(shape))):
        strides[d] = step
        step *= shape[d] + (pad if d == len(shape) - 1 and len(shape) > 1 else 0)
    return tuple(strides)


def buffer_elements(shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """Elements a buffer with these strides spans."""
    return sum((n - 1) * s for n, s in zip(shape, strides)) + 1


def padding_for(shape: tuple[int, ...], ty: Type) -> int:
    """Row padding (elements) that spreads the rows of a 2-D+ buffer over the banks."""
    size = byte_size(ty)
    if len(shape) < 2 or shape[-1] * size < 128:
        return 0
    return max(1, 16 // size)


def _vector(layout: Layout, strides: tuple[int, ...], base: int, size: int) -> tuple[int, int]:
    """(unit-stride dim, elements per access)."""
    unit = [d for d, s in enumerate(strides) if s == 1 and layout.shape[d] > 1]
    if not unit:
        return -1, 1
    dim = unit[-1]
    vec = min(layout.vector_width(dim), max(1, 16 // size))
    while vec > 1 and (any(s % vec for d, s in enumerate(strides) if d != dim) or base % (vec * size)):
        vec //= 2
    return dim, vec


def _register_offset(layout: Layout, r: int, strides: tuple[int, ...]) -> int:
    return sum(c * s for c, s in zip(layout.reg_coords[r], strides))


def store_shared(ctx: FunctionLowering, tile: TileVal, ty: Type, base: int, strides: tuple[int, ...]) -> None:
    """Write every register of ``tile`` into the scratch (no barriers)."""
    b = ctx.builder
    layout = tile.layout
    size = byte_size(ty)
    _, vec = _vector(layout, strides, base, size)
    thread = ctx.linear_offset(layout, tuple(s * size for s in strides))
    for r in range(0, layout.num_regs, vec):
        offset = b.add(thread, ir.Constant(I32, base + _register_offset(layout, r, strides) * size))
        ptr = ctx.shared(offset)
        values = [to_storage(b, tile.regs[r + i], ty) for i in range(vec)]
        if vec == 1:
            b.store(values[0], ptr, align=size)
            continue
        b.store(build_vector(b, values), ptr, align=vec * size)


def load_shared(ctx: FunctionLowering, layout: Layout, ty: Type, base: int, strides: tuple[int, ...]) -> TileVal:
    """Read a tile in ``layout`` out of the scratch (no barriers)."""
    b = ctx.builder
    size = byte_size(ty)
    _, vec = _vector(layout, strides, base, size)
    thread = ctx.linear_offset(layout, tuple(s * size for s in strides))
    elem = storage_type(ty)
    regs: list[ir.Value] = []
    for r in range(0, layout.num_regs, vec):
        offset = b.add(thread, ir.Constant(I32, base + _register_offset(layout, r, strides) * size))
        ptr = ctx.shared(offset)
        if vec == 1:
            regs.append(from_storage(b, b.load(ptr, typ=elem, align=size), ty))
            continue
        vector = b.load(ptr, typ=ir.VectorType(elem, vec), align=vec * size)
        for i in range(vec):
            regs.append(from_storage(b, b.extract_element(vector, ir.Constant(I32, i)), ty))
    return TileVal(layout, regs)


def shared_bytes(shape: tuple[int, ...], strides: tuple[int, ...], ty: Type) -> int:
    return buffer_elements(shape, strides) * byte_size(ty)


def round_up(n: int, to: int = 16) -> int:
    return (n + to - 1) // to * to
