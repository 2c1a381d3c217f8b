"""``sort`` (a bitonic network per row, in place in a stack buffer) and ``histogram``."""

from __future__ import annotations

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.types import element_of
from .emitter import Emitter
from .llvm_types import I1, i64, is_float, is_signed, widen
from .table import lowering
from .tiles import Buffer, Index, Tile


def _greater(em: Emitter, a: ll.Value, b: ll.Value, elem) -> ll.Value:
    """a > b in sort order (NaN above every number, as numpy sorts)."""
    bld = em.b
    if is_float(elem):
        a, b = widen(bld, a, elem), widen(bld, b, elem)
        ordered = bld.fcmp_ordered(">", a, b)
        a_nan = bld.fcmp_unordered("uno", a, a)
        b_num = bld.fcmp_ordered("ord", b, b)
        return bld.or_(ordered, bld.and_(a_nan, b_num))
    if is_signed(elem):
        return bld.icmp_signed(">", a, b)
    return bld.icmp_unsigned(">", a, b)


@lowering("sort")
def lower_sort(em: Emitter, op: Op, args: list) -> list:
    axis = op.attrs["axis"]
    descending = op.attrs["descending"]
    source: Tile = args[0]
    n = source.shape[axis]
    if n & (n - 1):
        raise em.error(op, f"sort needs a power-of-two length along axis {axis}, got {n}")
    out = em.materialize(source, into=em.buffer(source.shape, source.elem))
    elem = element_of(op.result.type)
    other_shape = source.shape[:axis] + source.shape[axis + 1:]
    em.loop_nest(other_shape, lambda idx: _bitonic(em, out, idx, axis, n, elem, descending))
    return [out]


def _bitonic(em: Emitter, out: Buffer, idx: Index, axis: int, n: int, elem, descending: bool) -> None:
    def address(position: ll.Value) -> ll.Value:
        return out.address(em, idx[:axis] + [position] + idx[axis:])

    size = 2
    while size <= n:
        stride = size // 2
        while stride >= 1:
            _pass(em, address, n, size, stride, elem, descending)
            stride //= 2
        size *= 2


def _pass(em: Emitter, address, n: int, size: int, stride: int, elem, descending: bool) -> None:
    """One compare-exchange pass of the network: pairs (i, i ^ stride), direction from i & size."""
    def body(i: ll.Value) -> None:
        b = em.b
        partner = b.xor(i, i64(stride))
        with b.if_then(b.icmp_unsigned(">", partner, i)):
            upward = b.icmp_unsigned("==", b.and_(i, i64(size)), i64(0))
            if descending:
                upward = b.xor(upward, ll.Constant(I1, 1))
            first, second = address(i), address(partner)
            x = b.load(first, typ=_elem_lty(elem))
            y = b.load(second, typ=_elem_lty(elem))
            swap = b.icmp_unsigned("==", _greater(em, x, y, elem), upward)
            b.store(b.select(swap, y, x), first)
            b.store(b.select(swap, x, y), second)
    em.loop(n, body, name="sort")


def _elem_lty(elem) -> ll.Type:
    from .llvm_types import llvm_type

    return llvm_type(elem)


@lowering("histogram")
def lower_histogram(em: Emitter, op: Op, args: list) -> list:
    x, mask = op.opdef.group(op, args)
    bins = op.attrs["num_bins"]
    out_elem = element_of(op.result.type)
    out = em.buffer((bins,), out_elem)
    zero = ll.Constant(ll.IntType(out_elem.primitive_bitwidth), 0)
    one = ll.Constant(ll.IntType(out_elem.primitive_bitwidth), 1)
    em.loop(bins, lambda i: out.put(em, [i], zero))
    signed = is_signed(element_of(op.operands[0].type))

    def count(idx: Index) -> None:
        b = em.b
        value = em.to_i64(x.at(em, idx), signed)
        inside = b.icmp_unsigned("<", value, i64(bins))
        if mask is not None:
            keep = mask.at(em, idx) if isinstance(mask, Tile) else mask
            inside = b.and_(inside, em.as_bool(keep))
        with b.if_then(inside):
            slot = out.address(em, [value])
            b.store(b.add(b.load(slot, typ=zero.type), one), slot)
    em.loop_nest(x.shape, count)
    return [out]
