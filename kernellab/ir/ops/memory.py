"""Pointers, loads, stores, block pointers, tensor descriptors and atomics.

Pointers are 64-bit byte addresses.  Memory is reached only through the execution context
(:class:`~kernellab.ir.ops.registry.ExecContext`), which checks every masked-in access.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..types import PointerType, TileType, element_of, shape_of
from .checks import require
from .registry import ELEMENTWISE, NEEDS_CTX, PURE, READS_MEMORY, WRITES_MEMORY, declare, numpy_dtype


def _pointee(ptr_type) -> object:
    return element_of(ptr_type).element_ty


def _addptr(ptr, offset, *, result_types):
    size = np.int64(_pointee(result_types[0]).itemsize)
    if isinstance(offset, np.ndarray) and offset.ndim:
        scaled = np.multiply(offset, size, dtype=np.int64)
        return np.add(ptr, scaled, out=scaled)
    return np.int64(ptr) + np.int64(offset) * size  # scalars: wraps like the tiles


def _verify_addptr(op):
    ptr, offset = op.operands
    require(isinstance(element_of(ptr.type), PointerType), "addptr needs a pointer", op)
    require(not element_of(ptr.type).is_block_ptr(), "use advance to move a block pointer", op)
    require(element_of(offset.type).is_int(), "addptr offsets must be integers", op)
    require(shape_of(ptr.type) == shape_of(offset.type) == shape_of(op.result.type), "addptr shapes differ", op)
    require(op.result.type is ptr.type, "addptr keeps the pointer type", op)


declare("addptr", operands=["ptr", "offset"], traits=(PURE, ELEMENTWISE), verify=_verify_addptr,
        reference=_addptr, wants_types=True, doc="ptr + offset * sizeof(pointee), per element")


# ---- block pointers and tensor descriptors ----------------------------------------------------

@dataclass(frozen=True)
class BlockPtr:
    """The value of a ``ptr<tile<...>>``: a window of ``block_shape`` into a strided tensor."""

    base: int
    shape: tuple
    strides: tuple
    offsets: tuple
    block_shape: tuple
    order: tuple
    itemsize: int

    def addresses_and_bounds(self, boundary_check) -> tuple[np.ndarray, np.ndarray | None]:
        grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in self.block_shape], indexing="ij")
        address = np.full(self.block_shape, self.base, dtype=np.int64)
        inside = None
        for dim, grid in enumerate(grids):
            index = grid + np.int64(self.offsets[dim])
            address = address + index * np.int64(self.strides[dim]) * np.int64(self.itemsize)
            if dim in boundary_check:
                ok = (index >= 0) & (index < np.int64(self.shape[dim]))
                inside = ok if inside is None else inside & ok
        return address, inside


def _make_block_ptr(base, shape, strides, offsets, *, block_shape, order, result_types):
    itemsize = _pointee(result_types[0]).element_ty.itemsize
    return BlockPtr(int(base), tuple(int(s) for s in shape), tuple(int(s) for s in strides),
                    tuple(int(o) for o in offsets), tuple(block_shape), tuple(order), itemsize)


def _verify_make_block_ptr(op):
    rank = len(op.attrs["block_shape"])
    for group in ("shape", "strides", "offsets"):
        require(len(op.operand_group(group)) == rank, f"make_block_ptr needs {rank} {group}", op)
    result = op.result.type
    require(isinstance(result, PointerType) and result.is_block_ptr(), "make_block_ptr yields ptr<tile<...>>", op)
    require(tuple(result.element_ty.shape) == tuple(op.attrs["block_shape"]), "block shape and type differ", op)


declare("make_block_ptr", operands=["base", "shape*", "strides*", "offsets*"],
        attrs=[("block_shape", "ints"), ("order", "ints")], traits=(PURE,), verify=_verify_make_block_ptr,
        reference=_make_block_ptr, wants_types=True,
        doc="a block pointer: base, tensor shape and strides (elements), block offsets")


def _advance(ptr, offsets):
    return BlockPtr(ptr.base, ptr.shape, ptr.strides, tuple(o + int(d) for o, d in zip(ptr.offsets, offsets)),
                    ptr.block_shape, ptr.order, ptr.itemsize)


declare("advance", operands=["ptr", "offsets*"], traits=(PURE,), reference=_advance,
        doc="move a block pointer's offsets by the given amounts")


@dataclass(frozen=True)
class TensorDesc:
    """The value of a ``desc<...>``: a strided tensor read and written in whole blocks."""

    base: int
    shape: tuple
    strides: tuple
    block_shape: tuple
    itemsize: int
    padding: str = "zero"

    def block(self, offsets) -> BlockPtr:
        return BlockPtr(self.base, self.shape, self.strides, tuple(int(o) for o in offsets), self.block_shape,
                        tuple(reversed(range(len(self.shape)))), self.itemsize)


def _make_tensor_descriptor(base, shape, strides, *, padding, result_types):
    block = result_types[0].block_type
    return TensorDesc(int(base), tuple(int(s) for s in shape), tuple(int(s) for s in strides), tuple(block.shape),
                      block.element_ty.itemsize, padding)


declare("make_tensor_descriptor", operands=["base", "shape*", "strides*"], attrs=[("padding", "str", "zero")],
        traits=(PURE,), reference=_make_tensor_descriptor, wants_types=True,
        doc="a tensor descriptor over base with shape and strides (elements); blocks from the type; "
            "descriptor loads fill out-of-bounds elements with zero or nan (padding)")


# ---- loads and stores -------------------------------------------------------------------------

def _padding_value(padding: str, dtype: np.dtype):
    return dtype.type(np.nan) if padding == "nan" else dtype.type(0)


def _load(ptr, mask, other, *, cache, evict, volatile, boundary_check, padding, result_types, ctx, op):
    dtype = numpy_dtype(result_types[0])
    if isinstance(ptr, BlockPtr):
        addresses, mask = ptr.addresses_and_bounds(boundary_check)
        other = _padding_value(padding, dtype) if mask is not None else None
        return ctx.load(addresses, mask, other, dtype, op)
    return ctx.load(ptr, mask, other, dtype, op)


def _verify_load(op):
    ptr_type = element_of(op.operands[0].type)
    require(isinstance(ptr_type, PointerType), "load needs a pointer", op)
    if ptr_type.is_block_ptr():
        require(op.result.type is ptr_type.element_ty, "a block load yields the block type", op)
        return
    require(shape_of(op.result.type) == shape_of(op.operands[0].type), "load result has the pointer's shape", op)
    require(element_of(op.result.type) is ptr_type.element_ty, "load yields the pointee type", op)


_CACHE_ATTRS = [("cache", "str", ""), ("evict", "str", "")]
declare("load", operands=["ptr", "mask?", "other?"],
        attrs=_CACHE_ATTRS + [("volatile", "bool", False), ("boundary_check", "ints", ()), ("padding", "str", "")],
        traits=(READS_MEMORY, NEEDS_CTX), verify=_verify_load, reference=_load, wants_types=True,
        doc="read memory where mask is true (other, or 0, elsewhere); block pointers check the "
            "boundary_check dims and pad with zero or nan")


def _store(ptr, value, mask, *, cache, evict, boundary_check, ctx, op):
    if isinstance(ptr, BlockPtr):
        addresses, mask = ptr.addresses_and_bounds(boundary_check)
        ctx.store(addresses, value, mask, op)
        return
    ctx.store(ptr, value, mask, op)


def _verify_store(op):
    ptr_type = element_of(op.operands[0].type)
    require(isinstance(ptr_type, PointerType), "store needs a pointer", op)
    value = op.operands[1]
    if ptr_type.is_block_ptr():
        require(value.type is ptr_type.element_ty, "a block store takes the block type", op)
        return
    require(element_of(value.type) is ptr_type.element_ty, "stored value must have the pointee type", op)
    require(shape_of(value.type) == shape_of(op.operands[0].type), "stored value has the pointer's shape", op)


declare("store", operands=["ptr", "value", "mask?"], results=0,
        attrs=_CACHE_ATTRS + [("boundary_check", "ints", ())], traits=(WRITES_MEMORY, NEEDS_CTX),
        verify=_verify_store, reference=_store, doc="write value where mask is true")


def _descriptor_load(desc, offsets, *, result_types, ctx, op):
    block = desc.block(offsets)
    addresses, mask = block.addresses_and_bounds(tuple(range(len(desc.shape))))
    dtype = numpy_dtype(result_types[0])
    return ctx.load(addresses, mask, _padding_value(desc.padding, dtype), dtype, op)


declare("descriptor_load", operands=["desc", "offsets*"], traits=(READS_MEMORY, NEEDS_CTX),
        reference=_descriptor_load, wants_types=True,
        doc="read the block at offsets; elements outside the tensor read as the padding (zero or nan)")


def _descriptor_store(desc, value, offsets, *, ctx, op):
    block = desc.block(offsets)
    addresses, mask = block.addresses_and_bounds(tuple(range(len(desc.shape))))
    ctx.store(addresses, value, mask, op)


declare("descriptor_store", operands=["desc", "value", "offsets*"], results=0, traits=(WRITES_MEMORY, NEEDS_CTX),
        reference=_descriptor_store, doc="write the block at offsets; elements outside the tensor are dropped")


# ---- atomics ----------------------------------------------------------------------------------

# Type-generic: signedness and float-ness come from the pointee type.
ATOMIC_KINDS = ("add", "max", "min", "and", "or", "xor", "xchg")
_SEM = [("sem", "str", "acq_rel"), ("scope", "str", "gpu")]


def _atomic_rmw(ptr, value, mask, *, kind, sem, scope, ctx, op):
    return ctx.atomic_rmw(kind, ptr, value, mask, op)


def _verify_atomic_rmw(op):
    require(op.attrs["kind"] in ATOMIC_KINDS, f"unknown atomic kind {op.attrs['kind']!r}", op)
    ptr_type = element_of(op.operands[0].type)
    require(isinstance(ptr_type, PointerType), "atomics need a pointer", op)
    require(element_of(op.operands[1].type) is ptr_type.element_ty, "atomic value must have the pointee type", op)


declare("atomic_rmw", operands=["ptr", "value", "mask?"], attrs=[("kind", "str")] + _SEM,
        traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX), verify=_verify_atomic_rmw, reference=_atomic_rmw,
        doc="read-modify-write each masked-in element atomically; yields the old values")


def _atomic_cas(ptr, compare, value, *, sem, scope, ctx, op):
    return ctx.atomic_cas(ptr, compare, value, op)


declare("atomic_cas", operands=["ptr", "compare", "value"], attrs=_SEM,
        traits=(READS_MEMORY, WRITES_MEMORY, NEEDS_CTX), reference=_atomic_cas,
        doc="where *ptr == compare, store value; yields the old values")

__all__ = ["BlockPtr", "TensorDesc", "ATOMIC_KINDS", "TileType"]
