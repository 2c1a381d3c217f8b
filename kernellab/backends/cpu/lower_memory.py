"""Pointers, loads, stores, block pointers, tensor descriptors and atomics.

Loads are lazy: a load with one use in its own block is read inside the loop of whichever op
consumes it (so ``x + y`` of two loads, stored, is one read-compute loop and one store loop).
The emitter materializes every pending lazy read before any op that may write memory, so reads
always see memory as it was at the load.  Masked-off lanes are never touched (a branch per
element, which the vectorizer turns into masked loads and stores).  Atomics are real
``atomicrmw`` / ``cmpxchg`` instructions, correct under the grid's threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import PointerType, ScalarType, TensorDescType, TileType, Type, element_of
from .checked import Check, access_check
from .emitter import Emitter
from .llvm_types import I1, I64, PTR, constant, i64, is_float, is_half, is_signed, llvm_type, narrow, store_size, widen
from .table import elementwise, lowering
from .tiles import Buffer, Index, Lazy, Tile


@dataclass
class BlockPtrValue:
    """A block pointer (or, with ``order=None``, a tensor descriptor) as LLVM values: the base
    address, per-dim tensor shape and strides (elements, i64) and block offsets (i64)."""

    base: ll.Value
    shape: list
    strides: list
    offsets: list
    block_shape: tuple
    order: tuple | None
    elem: ScalarType
    padding: str | ll.Value = "zero"  # tensor descriptors: what out-of-bounds elements read as (an i1: nan)

    def components(self) -> list[ll.Value]:
        return [self.base, *self.shape, *self.strides, *self.offsets]

    def with_components(self, values: list[ll.Value]) -> BlockPtrValue:
        rank = len(self.block_shape)
        return BlockPtrValue(values[0], values[1:1 + rank], values[1 + rank:1 + 2 * rank],
                             values[1 + 2 * rank:1 + 3 * rank], self.block_shape, self.order, self.elem,
                             self.padding)

    def element_address(self, em: Emitter, idx: Index, checked: tuple) -> tuple[ll.Value, ll.Value | None]:
        """The address of block element ``idx`` and whether it lies inside the tensor along the
        ``checked`` dims (None when no dim is checked)."""
        b = em.b
        offset = None
        inside = None
        for dim, i in enumerate(idx):
            position = b.add(self.offsets[dim], i)
            term = b.mul(position, self.strides[dim])
            offset = term if offset is None else b.add(offset, term)
            if dim in checked:
                ok = b.icmp_unsigned("<", position, self.shape[dim])  # negative positions wrap large
                inside = ok if inside is None else b.and_(inside, ok)
        address = b.gep(self.base, [offset], source_etype=llvm_type(self.elem))
        return address, inside


# ---- pointers ---------------------------------------------------------------------------------

@elementwise("addptr")
def lower_addptr(em: Emitter, op: Op, values: list) -> ll.Value:
    ptr, offset = values
    pointee = element_of(op.operands[0].type).element_ty
    signed = not element_of(op.operands[1].type).is_int_unsigned()
    return em.b.gep(ptr, [em.to_i64(offset, signed)], source_etype=llvm_type(pointee))


# ---- loads and stores -------------------------------------------------------------------------

def _conditional_load(em: Emitter, address: ll.Value, cond: ll.Value | None, other: ll.Value, ty: ll.Type,
                      check: Check | None = None) -> ll.Value:
    """``cond ? *address : other`` without touching memory when cond is false (``check``: the
    checked mode's address check, emitted before the access)."""
    if cond is None:
        if check is not None:
            check(em, address)
        return em.b.load(address, typ=ty)
    b = em.b
    start = b.block
    then = em.fn.append_basic_block("load.then")
    join = em.fn.append_basic_block("load.join")
    b.cbranch(cond, then, join)
    b.position_at_end(then)
    if check is not None:
        check(em, address)
    loaded = b.load(address, typ=ty)
    then_end = b.block
    b.branch(join)
    b.position_at_end(join)
    phi = b.phi(ty)
    phi.add_incoming(loaded, then_end)
    phi.add_incoming(other, start)
    return phi


def _at(value, em: Emitter, idx: Index):
    return value.at(em, idx) if isinstance(value, Tile) else value


@lowering("load")
def lower_load(em: Emitter, op: Op, args: list) -> list:
    ptr, mask, other = op.opdef.group(op, args)
    result_type = op.result.type
    elem = element_of(result_type)
    lty = llvm_type(elem)
    zero = constant(elem, 0)
    if isinstance(ptr, BlockPtrValue):
        return [_block_load(em, ptr, op.attrs["boundary_check"], op.attrs["padding"], elem)]
    check = access_check(em, op, "load", store_size(elem))
    if not isinstance(result_type, TileType):
        cond = em.as_bool(mask) if mask is not None else None
        return [_conditional_load(em, ptr, cond, other if other is not None else zero, lty, check)]

    loc = em.loc_md  # a lazy read runs in its consumer's loop but keeps the load's line

    def at(em2: Emitter, idx: Index) -> ll.Value:
        address = _at(ptr, em2, idx)
        cond = em2.as_bool(_at(mask, em2, idx)) if mask is not None else None
        fallback = _at(other, em2, idx) if other is not None else zero
        with em2.at_loc(loc):
            return _conditional_load(em2, address, cond, fallback, lty, check)
    deps = frozenset().union(*(a.deps for a in (ptr, mask, other) if isinstance(a, Tile)))
    return [Lazy(result_type.shape, elem, at, deps, False, False, reads_memory=True)]


def block_template(ty: Type) -> BlockPtrValue:
    """A block pointer or descriptor of type ``ty`` without its LLVM values (``with_components``
    gives them; a descriptor's padding, unknown from the type, is set after)."""
    if isinstance(ty, TensorDescType):
        return BlockPtrValue(None, [], [], [], tuple(ty.block_type.shape), None, ty.block_type.element_ty)
    block = ty.element_ty
    return BlockPtrValue(None, [], [], [], tuple(block.shape), (), block.element_ty)


def padding_flag(desc: BlockPtrValue) -> ll.Value:
    """A descriptor's padding as an i1 (true: nan), how it crosses a non-inlined call."""
    return desc.padding if isinstance(desc.padding, ll.Value) else ll.Constant(I1, int(desc.padding == "nan"))


def is_block_like(ty: Type) -> bool:
    """A block pointer or a tensor descriptor type (lowered as :class:`BlockPtrValue`)."""
    return isinstance(ty, TensorDescType) or isinstance(ty, PointerType) and ty.is_block_ptr()


def call_types(ty: Type) -> list[ll.Type]:
    """The LLVM values a Tile IR value of type ``ty`` crosses a non-inlined call as: a tile's
    buffer pointer, a block pointer's or descriptor's components (a descriptor's padding flag
    last), a scalar itself."""
    if isinstance(ty, TileType):
        return [PTR]
    if is_block_like(ty):
        rank = len(block_template(ty).block_shape)
        return [PTR] + [I64] * (3 * rank) + ([I1] if isinstance(ty, TensorDescType) else [])
    return [llvm_type(ty)]


def call_values(ty: Type, value: BlockPtrValue) -> list[ll.Value]:
    """A block pointer's or descriptor's values for a call (as :func:`call_types`)."""
    return value.components() + ([padding_flag(value)] if isinstance(ty, TensorDescType) else [])


def from_call_values(ty: Type, values: list[ll.Value]) -> BlockPtrValue:
    """The block pointer or descriptor that :func:`call_values` gave."""
    template = block_template(ty)
    rebuilt = template.with_components(values[:1 + 3 * len(template.block_shape)])
    if isinstance(ty, TensorDescType):
        rebuilt.padding = values[-1]
    return rebuilt


def _block_load(em: Emitter, bp: BlockPtrValue, checked: tuple, padding: str | ll.Value, elem: ScalarType) -> Lazy:
    """``padding``: 'zero', 'nan', or an i1 (true: nan) for a descriptor passed to a function."""
    lty = llvm_type(elem)
    nan = is_float(elem) and (padding == "nan" or isinstance(padding, ll.Value))
    pad = constant(elem, float("nan") if nan else 0)

    loc = em.loc_md

    def at(em2: Emitter, idx: Index) -> ll.Value:
        with em2.at_loc(loc):
            address, inside = bp.element_address(em2, idx, tuple(checked))
            fill = em2.b.select(padding, pad, constant(elem, 0)) if nan and isinstance(padding, ll.Value) else pad
            return _conditional_load(em2, address, inside, fill, lty)
    return Lazy(tuple(bp.block_shape), elem, at, frozenset(), False, False, reads_memory=True)


def _conditional_store(em: Emitter, address: ll.Value, value: ll.Value, cond: ll.Value | None,
                       check: Check | None = None) -> None:
    if cond is None:
        if check is not None:
            check(em, address)
        em.b.store(value, address)
        return
    with em.b.if_then(cond):
        if check is not None:
            check(em, address)
        em.b.store(value, address)


@lowering("store")
def lower_store(em: Emitter, op: Op, args: list) -> list:
    ptr, value, mask = op.opdef.group(op, args)
    if isinstance(ptr, BlockPtrValue):
        _block_store(em, ptr, value, tuple(op.attrs["boundary_check"]))
        return []
    check = access_check(em, op, "store", store_size(element_of(op.operands[1].type)))
    if not isinstance(value, Tile) and not isinstance(ptr, Tile):
        _conditional_store(em, ptr, value, em.as_bool(mask) if mask is not None else None, check)
        return []
    shape = value.shape if isinstance(value, Tile) else ptr.shape

    def body(idx: Index) -> None:
        cond = em.as_bool(_at(mask, em, idx)) if mask is not None else None
        _conditional_store(em, _at(ptr, em, idx), _at(value, em, idx), cond, check)
    em.loop_nest(shape, body)
    return []


def _block_store(em: Emitter, bp: BlockPtrValue, value, checked: tuple) -> None:
    def body(idx: Index) -> None:
        address, inside = bp.element_address(em, idx, checked)
        _conditional_store(em, address, _at(value, em, idx), inside)
    em.loop_nest(bp.block_shape, body)


# ---- block pointers and tensor descriptors ----------------------------------------------------

def _as_i64_list(em: Emitter, values: list, operands: list) -> list:
    return [em.to_i64(v, not element_of(o.type).is_int_unsigned()) for v, o in zip(values, operands)]


@lowering("make_block_ptr")
def lower_make_block_ptr(em: Emitter, op: Op, args: list) -> list:
    base, shape, strides, offsets = op.opdef.group(op, args)
    elem = op.result.type.element_ty.element_ty
    return [BlockPtrValue(base, _as_i64_list(em, shape, op.operand_group("shape")),
                          _as_i64_list(em, strides, op.operand_group("strides")),
                          _as_i64_list(em, offsets, op.operand_group("offsets")),
                          tuple(op.attrs["block_shape"]), tuple(op.attrs["order"]), elem)]


@lowering("advance")
def lower_advance(em: Emitter, op: Op, args: list) -> list:
    bp, deltas = op.opdef.group(op, args)
    deltas = _as_i64_list(em, deltas, op.operand_group("offsets"))
    moved = [em.b.add(o, d) for o, d in zip(bp.offsets, deltas)]
    return [BlockPtrValue(bp.base, bp.shape, bp.strides, moved, bp.block_shape, bp.order, bp.elem)]


@lowering("make_tensor_descriptor")
def lower_make_tensor_descriptor(em: Emitter, op: Op, args: list) -> list:
    base, shape, strides = op.opdef.group(op, args)
    block = op.result.type.block_type
    rank = len(block.shape)
    return [BlockPtrValue(base, _as_i64_list(em, shape, op.operand_group("shape")),
                          _as_i64_list(em, strides, op.operand_group("strides")), [i64(0)] * rank,
                          tuple(block.shape), None, block.element_ty, op.attrs["padding"])]


def _at_offsets(em: Emitter, op: Op, desc: BlockPtrValue, offsets: list) -> BlockPtrValue:
    values = _as_i64_list(em, offsets, op.operand_group("offsets"))
    return BlockPtrValue(desc.base, desc.shape, desc.strides, values, desc.block_shape, desc.order, desc.elem,
                         desc.padding)


@lowering("descriptor_load")
def lower_descriptor_load(em: Emitter, op: Op, args: list) -> list:
    desc, offsets = op.opdef.group(op, args)
    block = _at_offsets(em, op, desc, offsets)
    return [_block_load(em, block, tuple(range(len(desc.block_shape))), desc.padding, desc.elem)]


@lowering("descriptor_store")
def lower_descriptor_store(em: Emitter, op: Op, args: list) -> list:
    desc, value, offsets = op.opdef.group(op, args)
    block = _at_offsets(em, op, desc, offsets)
    _block_store(em, block, value, tuple(range(len(desc.block_shape))))
    return []


# ---- atomics ----------------------------------------------------------------------------------

_ORDERING = {"acq_rel": "acq_rel", "acquire": "acquire", "release": "release", "relaxed": "monotonic"}
_FAILURE_ORDERING = {"acq_rel": "acquire", "acquire": "acquire", "release": "monotonic", "relaxed": "monotonic"}


def _rmw_name(kind: str, ty: ScalarType) -> str:
    if is_float(ty):
        return {"add": "fadd", "max": "fmax", "min": "fmin", "xchg": "xchg"}[kind]
    if kind in ("max", "min"):
        return kind if is_signed(ty) else "u" + kind
    return kind


def _atomic_one(em: Emitter, kind: str, address: ll.Value, value: ll.Value, ty: ScalarType, ordering: str) -> ll.Value:
    if is_half(ty) and kind != "xchg":
        return _atomic_half(em, kind, address, value, ty, ordering)
    if ty.is_bool():
        value = em.b.zext(value, ll.IntType(8))
        old = em.b.atomic_rmw(_rmw_name(kind, ty), address, value, ordering)
        return em.b.trunc(old, I1)
    return em.b.atomic_rmw(_rmw_name(kind, ty), address, value, ordering)


def _atomic_half(em: Emitter, kind: str, address: ll.Value, value: ll.Value, ty: ScalarType, ordering: str):
    """f16/bf16 read-modify-write through a compare-and-swap loop on the 16 bits."""
    from . import mathlib

    b = em.b
    bits_ty = ll.IntType(16)
    start = b.block
    retry = em.fn.append_basic_block("atomic.retry")
    done = em.fn.append_basic_block("atomic.done")
    initial = b.load(address, typ=bits_ty)
    b.branch(retry)
    b.position_at_end(retry)
    seen = b.phi(bits_ty)
    seen.add_incoming(initial, start)
    old = seen if ty.ir == "bf16" else b.bitcast(seen, llvm_type(ty))
    wide_old, wide_value = widen(b, old, ty), widen(b, value, ty)
    op_name = {"add": None, "max": "maxnum", "min": "minnum"}[kind]
    combined = b.fadd(wide_old, wide_value) if op_name is None else mathlib.call_intrinsic(em, op_name,
                                                                                          [wide_old, wide_value])
    new = narrow(b, combined, ty)
    new_bits = new if ty.ir == "bf16" else b.bitcast(new, bits_ty)
    pair = b.cmpxchg(address, seen, new_bits, ordering, _FAILURE_ORDERING.get(ordering, "monotonic"))
    seen.add_incoming(b.extract_value(pair, 0), b.block)
    b.cbranch(b.extract_value(pair, 1), done, retry)
    b.position_at_end(done)
    return old


def _elementwise_atomic(em: Emitter, op: Op, shape, each) -> list:
    """Run ``each(idx) -> old`` per element (masked-off: 0) and collect the old values."""
    elem = element_of(op.result.type)
    if not shape:
        return [each([])]
    out = em.buffer(shape, elem)
    em.loop_nest(shape, lambda idx: out.put(em, idx, each(idx)))
    return [out]


@lowering("atomic_rmw")
def lower_atomic_rmw(em: Emitter, op: Op, args: list) -> list:
    ptr, value, mask = op.opdef.group(op, args)
    ty = element_of(op.operands[1].type)
    ordering = _ORDERING.get(op.attrs["sem"], "acq_rel")
    kind = op.attrs["kind"]
    shape = op.result.type.shape if isinstance(op.result.type, TileType) else ()
    zero = constant(ty, 0)
    check = access_check(em, op, f"atomic {kind}", store_size(ty))

    def each(idx: Index) -> ll.Value:
        address, v = _at(ptr, em, idx), _at(value, em, idx)
        if mask is None:
            if check is not None:
                check(em, address)
            return _atomic_one(em, kind, address, v, ty, ordering)
        b = em.b
        start = b.block
        then = em.fn.append_basic_block("atomic.then")
        join = em.fn.append_basic_block("atomic.join")
        b.cbranch(em.as_bool(_at(mask, em, idx)), then, join)
        b.position_at_end(then)
        if check is not None:
            check(em, address)
        old = _atomic_one(em, kind, address, v, ty, ordering)
        then_end = b.block
        b.branch(join)
        b.position_at_end(join)
        phi = b.phi(llvm_type(ty))
        phi.add_incoming(old, then_end)
        phi.add_incoming(zero, start)
        return phi
    return _elementwise_atomic(em, op, shape, each)


@lowering("atomic_cas")
def lower_atomic_cas(em: Emitter, op: Op, args: list) -> list:
    ptr, compare, value = args
    ty = element_of(op.operands[1].type)
    ordering = _ORDERING.get(op.attrs["sem"], "acq_rel")
    failure = _FAILURE_ORDERING.get(op.attrs["sem"], "monotonic")
    shape = op.result.type.shape if isinstance(op.result.type, TileType) else ()
    int_ty = ll.IntType(8 * store_size(ty))
    check = access_check(em, op, "atomic cas", store_size(ty))

    def each(idx: Index) -> ll.Value:
        b = em.b
        if check is not None:
            check(em, _at(ptr, em, idx))
        expected, new = _at(compare, em, idx), _at(value, em, idx)
        if expected.type != int_ty:
            expected = b.bitcast(expected, int_ty) if not ty.is_bool() else b.zext(expected, int_ty)
            new = b.bitcast(new, int_ty) if not ty.is_bool() else b.zext(new, int_ty)
        old = b.extract_value(b.cmpxchg(_at(ptr, em, idx), expected, new, ordering, failure), 0)
        if ty.is_bool():
            return b.trunc(old, I1)
        return old if old.type == llvm_type(ty) else b.bitcast(old, llvm_type(ty))
    return _elementwise_atomic(em, op, shape, each)


__all__ = ["BlockPtrValue", "Buffer", "I64", "PTR", "is_block_like", "call_types", "call_values", "from_call_values"]
