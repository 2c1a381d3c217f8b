"""Reductions, scans and dot.

``reduce`` and ``scan`` carry a combine region: a block taking 2n scalars (the running values
of n operands, then the incoming ones) and yielding n.  The reference receives that region as
a Python callable over numpy values; a callable may carry a ``ufunc`` attribute (``np.add``,
``np.maximum``...) when the region is one known op, which the reference uses directly.
"""

from __future__ import annotations

import numpy as np

from ..types import TileType, element_of, shape_of
from .checks import require
from .registry import PURE, declare, is_float_dtype, numpy_dtype


def _take(values: list, index, axis: int) -> list:
    return [np.take(v, index, axis=axis) for v in values]


def _narrow_float(dtype: np.dtype) -> bool:
    return dtype.kind == "V" or (dtype.kind == "f" and dtype.itemsize == 2)  # ml_dtypes' types, float16


def _reduce(operands, *, axis, regions):
    combine = regions[0]
    ufunc = getattr(combine, "ufunc", None)
    if ufunc is not None and len(operands) == 1 and not _narrow_float(np.asarray(operands[0]).dtype):
        values = np.asarray(operands[0])
        return ufunc.reduce(values, axis=axis, dtype=values.dtype)  # keep the element type (ints wrap)
    # below: pairwise, as a GPU's tree; also for the narrow floats, whose ufunc.reduce runs one accumulator
    # along a leading axis (ml_dtypes' bfloat16 along any): it stops growing (a bf16 sum of 4096 values
    # near 0.75 stayed at 512; an fp16 sum of 4096 ones down a column stays at 2048)
    values = [np.asarray(v) for v in operands]
    while values[0].shape[axis] > 1:
        length = values[0].shape[axis]
        evens = _take(values, np.arange(0, length - 1, 2), axis)
        odds = _take(values, np.arange(1, length, 2), axis)
        merged = [np.asarray(m) for m in combine(*evens, *odds)]
        if length % 2:
            tail = _take(values, [length - 1], axis)
            merged = [np.concatenate([m, t], axis=axis) for m, t in zip(merged, tail)]
        values = merged
    out = [np.take(v, 0, axis=axis) for v in values]
    out = [o if np.ndim(o) else o[()] for o in out]
    return out[0] if len(out) == 1 else tuple(out)


def _verify_reduce(op):
    axis = op.attrs["axis"]
    require(op.operands, "reduce needs operands", op)
    shape = shape_of(op.operands[0].type)
    require(0 <= axis < len(shape), f"reduce axis {axis} out of range for {list(shape)}", op)
    expected = shape[:axis] + shape[axis + 1:]
    for operand, result in zip(op.operands, op.results):
        require(shape_of(operand.type) == shape, "reduce operands must have one shape", op)
        require(shape_of(result.type) == expected, f"reduce result must have shape {list(expected)}", op)
        require(element_of(result.type) is element_of(operand.type), "reduce keeps element types", op)
    require(len(op.regions[0].args) == 2 * len(op.operands), "combine region takes 2 values per operand", op)


declare("reduce", operands=["operands*"], results=-1, attrs=[("axis", "int")], regions=1, traits=(PURE,),
        verify=_verify_reduce, reference=_reduce,
        doc="combine the elements along axis with the region (associative); removes the axis")


def _scan(operands, *, axis, reverse, regions):
    combine = regions[0]
    values = [np.asarray(v) for v in operands]
    if reverse:
        values = [np.flip(v, axis=axis) for v in values]
    ufunc = getattr(combine, "ufunc", None)
    if ufunc is not None and len(values) == 1:
        out = [ufunc.accumulate(values[0], axis=axis, dtype=values[0].dtype)]
    else:
        out = [np.empty_like(v) for v in values]
        running = _take(values, 0, axis)
        for i in range(values[0].shape[axis]):
            if i:
                running = [np.asarray(r) for r in combine(*running, *_take(values, i, axis))]
            for o, r in zip(out, running):
                index = [slice(None)] * o.ndim
                index[axis] = i
                o[tuple(index)] = r
    if reverse:
        out = [np.flip(o, axis=axis) for o in out]
    return out[0] if len(out) == 1 else tuple(out)


def _verify_scan(op):
    axis = op.attrs["axis"]
    shape = shape_of(op.operands[0].type)
    require(0 <= axis < len(shape), f"scan axis {axis} out of range", op)
    for operand, result in zip(op.operands, op.results):
        require(result.type is operand.type, "scan results have the operands' types", op)


declare("scan", operands=["operands*"], results=-1, attrs=[("axis", "int"), ("reverse", "bool", False)], regions=1,
        traits=(PURE,), verify=_verify_scan, reference=_scan,
        doc="inclusive prefix combine along axis (from the end with reverse)")


def _dot(a, b, acc, *, input_precision, max_num_imprecise_acc, result_types):
    out_dtype = numpy_dtype(result_types[0])
    a, b = np.asarray(a), np.asarray(b)
    if is_float_dtype(a.dtype):
        compute = np.float64 if np.float64 in (a.dtype, b.dtype, out_dtype) else np.float32
        product = np.matmul(a.astype(compute), b.astype(compute))
        return (product + np.asarray(acc).astype(compute)).astype(out_dtype)
    product = np.matmul(a.astype(np.int64), b.astype(np.int64))
    return (product + np.asarray(acc).astype(np.int64)).astype(out_dtype)


def _verify_dot(op):
    a, b, acc = (v.type for v in op.operands)
    require(all(isinstance(t, TileType) for t in (a, b, acc)), "dot takes tiles", op)
    require(len(a.shape) in (2, 3) and len(a.shape) == len(b.shape) == len(acc.shape), "dot takes 2-D or 3-D tiles",
            op)
    require(a.shape[-1] == b.shape[-2], f"dot inner dims differ: {list(a.shape)} @ {list(b.shape)}", op)
    require(acc.shape == a.shape[:-1] + b.shape[-1:], "dot accumulator shape is wrong", op)
    require(op.result.type is acc, "dot yields the accumulator type", op)
    require(element_of(a) is element_of(b), "dot operands must share an element type", op)


declare("dot", operands=["a", "b", "acc"], attrs=[("input_precision", "str", "ieee"),
                                                  ("max_num_imprecise_acc", "int", 0)],
        traits=(PURE,), verify=_verify_dot, reference=_dot, wants_types=True,
        doc="acc + a @ b; float inputs multiply in f32 (f64 if any side is f64), integers in i64; "
            "input_precision 'tf32'/'tf32x3' lets a backend use tensor-float inputs")
