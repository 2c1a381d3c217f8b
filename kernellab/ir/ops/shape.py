"""Tile creation and shape ops.  Tiles are row-major; shapes come from the result types."""

from __future__ import annotations

import numpy as np

from ..types import TileType, element_of, shape_of
from .checks import require
from .registry import PURE, declare, numpy_dtype


def _arange(*, start, end):
    return np.arange(start, end, dtype=np.int32)


def _verify_arange(op):
    start, end = op.attrs["start"], op.attrs["end"]
    require(end > start, f"arange needs end > start, got [{start}, {end})", op)
    require(shape_of(op.result.type) == (end - start,), f"arange result must be tile<{end - start}xi32>", op)
    require(element_of(op.result.type).ir == "i32", "arange yields i32", op)


declare("arange", attrs=[("start", "int"), ("end", "int")], traits=(PURE,), verify=_verify_arange,
        reference=_arange, doc="the integers start, start+1, ..., end-1 as tile<(end-start) x i32>")


def _splat(x, *, result_types):
    out = np.empty(result_types[0].shape, dtype=numpy_dtype(result_types[0]))
    out.fill(x)  # (faster than np.full)
    return out


def _verify_splat(op):
    require(not isinstance(op.operands[0].type, TileType), "splat takes a scalar", op)
    require(element_of(op.result.type) is op.operands[0].type, "splat keeps the element type", op)


declare("splat", operands=["x"], traits=(PURE,), verify=_verify_splat, reference=_splat, wants_types=True,
        doc="a tile with every element equal to the scalar x")


def _broadcast(x, *, result_types):
    return np.broadcast_to(x, result_types[0].shape)


def _verify_broadcast(op):
    source, target = shape_of(op.operands[0].type), shape_of(op.result.type)
    require(element_of(op.operands[0].type) is element_of(op.result.type), "broadcast keeps the element type", op)
    require(len(source) == len(target) and all(s in (1, t) for s, t in zip(source, target)),
            f"cannot broadcast {list(source)} to {list(target)}: dims must match or be 1", op)


declare("broadcast", operands=["x"], traits=(PURE,), verify=_verify_broadcast, reference=_broadcast,
        wants_types=True, doc="stretch dims of size 1 to the result shape (same rank)")


def _expand_dims(x, *, axis):
    return np.expand_dims(x, axis)


def _verify_expand_dims(op):
    source, target = shape_of(op.operands[0].type), shape_of(op.result.type)
    axis = op.attrs["axis"]
    require(0 <= axis <= len(source), f"expand_dims axis {axis} out of range", op)
    require(target == source[:axis] + (1,) + source[axis:], "expand_dims result shape is wrong", op)


declare("expand_dims", operands=["x"], attrs=[("axis", "int")], traits=(PURE,), verify=_verify_expand_dims,
        reference=_expand_dims, doc="insert a dim of size 1 at axis")


def _reshape(x, *, can_reorder, result_types):
    return np.reshape(x, result_types[0].shape)


def _verify_reshape(op):
    require(op.operands[0].type.numel == op.result.type.numel, "reshape must keep the number of elements", op)
    require(element_of(op.operands[0].type) is element_of(op.result.type), "reshape keeps the element type", op)


declare("reshape", operands=["x"], attrs=[("can_reorder", "bool", False)], traits=(PURE,), verify=_verify_reshape,
        reference=_reshape, wants_types=True,
        doc="row-major reshape; can_reorder lets a backend return the elements in another order")


def _trans(x, *, order):
    return np.transpose(x, order)


def _verify_trans(op):
    order = op.attrs["order"]
    source = shape_of(op.operands[0].type)
    require(sorted(order) == list(range(len(source))), f"trans order {list(order)} is not a permutation", op)
    require(shape_of(op.result.type) == tuple(source[i] for i in order), "trans result shape is wrong", op)


declare("trans", operands=["x"], attrs=[("order", "ints")], traits=(PURE,), verify=_verify_trans,
        reference=_trans, doc="permute dims: result dim i is source dim order[i]")


def _join(a, b):
    return np.stack([a, b], axis=-1)


def _verify_join(op):
    a, b = op.operands
    require(a.type is b.type, "join operands must have one type", op)
    require(shape_of(op.result.type) == shape_of(a.type) + (2,), "join appends a minor dim of 2", op)


declare("join", operands=["lhs", "rhs"], traits=(PURE,), verify=_verify_join, reference=_join,
        doc="stack two tiles along a new last dim of size 2")


def _split(x):
    return x[..., 0], x[..., 1]


def _verify_split(op):
    source = shape_of(op.operands[0].type)
    require(source and source[-1] == 2, "split needs a last dim of size 2", op)


declare("split", operands=["x"], results=2, traits=(PURE,), verify=_verify_split, reference=_split,
        doc="the two halves of the last dim (of size 2)")


def _cat(a, b, *, can_reorder):
    return np.concatenate([a, b], axis=0)


def _verify_cat(op):
    a, b = op.operands
    require(element_of(a.type) is element_of(b.type), "cat operands must share an element type", op)
    require(shape_of(a.type)[1:] == shape_of(b.type)[1:], "cat operands must agree on all dims but the first", op)


declare("cat", operands=["lhs", "rhs"], attrs=[("can_reorder", "bool", False)], traits=(PURE,), verify=_verify_cat,
        reference=_cat, doc="concatenate along dim 0")


def _gather(src, index, *, axis):
    return np.take_along_axis(src, index.astype(np.int64), axis=axis)


def _verify_gather(op):
    src, index = op.operands
    require(len(shape_of(src.type)) == len(shape_of(index.type)), "gather src and index must have one rank", op)
    require(shape_of(op.result.type) == shape_of(index.type), "gather result has the index's shape", op)


declare("gather", operands=["src", "index"], attrs=[("axis", "int")], traits=(PURE,), verify=_verify_gather,
        reference=_gather, doc="result[..i..] = src[..index[..i..]..] along axis")


def _flip(x, *, axis):
    return np.flip(x, axis=axis)


declare("flip", operands=["x"], attrs=[("axis", "int")], traits=(PURE,), reference=_flip,
        doc="reverse the order of elements along axis")


def _sort(x, *, axis, descending):
    out = np.sort(x, axis=axis, kind="stable")
    return np.flip(out, axis=axis) if descending else out


declare("sort", operands=["x"], attrs=[("axis", "int"), ("descending", "bool", False)], traits=(PURE,),
        reference=_sort, doc="sort values along axis")


def _histogram(x, mask, *, num_bins):
    values = np.asarray(x).reshape(-1).astype(np.int64)
    keep = (values >= 0) & (values < num_bins)
    if mask is not None:
        keep &= np.broadcast_to(mask, np.shape(x)).reshape(-1)
    return np.bincount(values[keep], minlength=num_bins).astype(np.int32)


declare("histogram", operands=["x", "mask?"], attrs=[("num_bins", "int")], traits=(PURE,), reference=_histogram,
        doc="counts of the values 0..num_bins-1 among the (masked-in) elements; others are ignored")
