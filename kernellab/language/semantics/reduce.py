"""Reductions, scans, sorting and histograms.

``reduce`` and ``scan`` ops carry a combine region: a block taking the running values of the n
operands, then the incoming ones (2n scalars), and yielding n.  Built-in reductions (``sum``,
``max``, ``argmax``...) build that region directly from ops; ``tl.reduce`` and
``tl.associative_scan`` build it by running the user's ``combine_fn`` through
``Semantic.call_function`` (installed by the frontend).

Result dtypes follow Triton: ``sum``/``cumsum`` accumulate integers narrower than 32 bits in
int32 (signed) or uint32 (unsigned, bool); ``max``/``min`` compute narrow floats in fp32 and
narrow integers in int32; bf16 becomes fp32 before ``max``, ``min``, ``cumsum``, ``cumprod``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...ir import types as T
from ...ir.core import Block
from ...ir.types import ScalarType, Type
from ..core import tensor
from .base import SemanticError
from .shape import ShapeMixin, wrap_axis
from .typing import is_python_number, tile_type

Combine = Callable[[list[tensor]], Any]


def accumulation_type(dtype: ScalarType, requested: Type | None = None) -> ScalarType:
    """The dtype ``sum``/``cumsum`` accumulate in: ``requested`` if given; int32 for signed
    integers narrower than 32 bits; uint32 for narrower unsigned ones (and bool); else ``dtype``."""
    if requested is not None:
        return requested
    if dtype.is_int() and dtype.int_bitwidth < 32:
        return T.u32 if dtype.is_int_unsigned() else T.i32
    return dtype


def extremum_type(dtype: ScalarType) -> ScalarType:
    """The dtype ``max``/``min`` (without indices) compute in: fp32 for floats narrower than 32
    bits, int32 for integers narrower than 32 bits, else ``dtype``."""
    if dtype.primitive_bitwidth >= 32:
        return dtype
    return T.f32 if dtype.is_floating() else T.i32


class ReduceMixin(ShapeMixin):
    # ---- regions ----
    def combine_region(self, element_types: list[Type], body: Combine, what: str) -> Block:
        """A region block over ``2n`` scalars built by ``body`` (which returns n values)."""
        arg_types = list(element_types) * 2
        block = Block(arg_types)
        args = [tensor(v, t) for v, t in zip(block.args, arg_types)]
        with self.builder.at_end(block):
            results = body(args)
            results = list(results) if isinstance(results, (tuple, list)) else [results]
            if len(results) != len(element_types):
                raise SemanticError(f"the combine function of {what} must return {len(element_types)} value(s), "
                                    f"one per input; it returned {len(results)}")
            values = [self._region_result(r, t, what) for r, t in zip(results, element_types)]
            self.builder.yield_([v.handle for v in values])
        return block

    def _region_result(self, value: Any, expected: Type, what: str) -> tensor:
        if is_python_number(value):
            return self.scalar_constant(value, expected)
        value = self.to_tensor(value)
        if value.type is not expected:
            raise SemanticError(f"the combine function of {what} must return {expected.name} scalars (the input "
                                f"element types), got {value.type}")
        return value

    # ---- reductions ----
    def _prepare_axis(self, inputs: list[tensor], axis: int | None, what: str) -> tuple[list[tensor], int]:
        shape = T.shape_of(inputs[0].type)
        if any(T.shape_of(t.type) != shape for t in inputs):
            raise SemanticError(f"all inputs of {what} must have one shape, got "
                                f"{[list(T.shape_of(t.type)) for t in inputs]}")
        if axis is None:
            numel = inputs[0].numel.value
            flat = [self.reshape_exact(t, (numel,), can_reorder=True) if shape else self.splat(t, (1,))
                    for t in inputs]
            return flat, 0
        if not shape:
            raise SemanticError(f"{what} of a scalar needs axis=None")
        return inputs, wrap_axis(axis, len(shape))

    def reduction(self, inputs: Sequence[Any], axis: int | None, combine: Combine, keep_dims: bool = False,
                  what: str = "tl.reduce") -> tuple[tensor, ...]:
        """Reduce ``inputs`` (one shape) along ``axis`` (None: all dims) with ``combine``."""
        originals = [self.to_tensor(t) for t in inputs]
        rank = len(T.shape_of(originals[0].type))
        values, real_axis = self._prepare_axis(originals, axis, what)
        shape = T.shape_of(values[0].type)
        out_shape = shape[:real_axis] + shape[real_axis + 1:]
        elements = [v.dtype for v in values]
        result_types = [tile_type(e, out_shape) for e in elements]
        region = self.combine_region(elements, combine, what)
        op = self.builder.create("reduce", [v.handle for v in values], result_types, {"axis": real_axis},
                                 regions=[region])
        results = tuple(tensor(r, t) for r, t in zip(op.results, result_types))
        if not keep_dims:
            return results
        if axis is None:
            return tuple(self.expand_dims(r, list(range(rank))) if rank else r for r in results)
        return tuple(self.expand_dims_once(r, real_axis) for r in results)

    def reduce_with(self, x: Any, axis: int | None, combine: Callable[[tensor, tensor], tensor],
                    keep_dims: bool = False, what: str = "a reduction") -> tensor:
        """Reduce one tensor with a two-argument combine built from ops."""
        return self.reduction([x], axis, lambda args: combine(args[0], args[1]), keep_dims, what)[0]

    def reduce(self, inputs: Sequence[Any], axis: int | None, combine_fn: Any,
               keep_dims: bool = False) -> tuple[tensor, ...]:
        """``tl.reduce`` with a user ``@jit`` combine function."""
        return self.reduction(inputs, axis, lambda args: self.call_function(combine_fn, args), keep_dims,
                              "tl.reduce")

    # ---- scans ----
    def scan(self, inputs: Sequence[Any], axis: int, combine: Combine, reverse: bool = False,
             what: str = "tl.associative_scan") -> tuple[tensor, ...]:
        """Inclusive scan of ``inputs`` along ``axis`` (from the end with ``reverse``)."""
        values = [self.to_tensor(t) for t in inputs]
        shape = T.shape_of(values[0].type)
        if not shape:
            raise SemanticError(f"{what} needs a tile, got a scalar")
        if any(T.shape_of(v.type) != shape for v in values):
            raise SemanticError(f"all inputs of {what} must have one shape")
        axis = wrap_axis(axis, len(shape))
        region = self.combine_region([v.dtype for v in values], combine, what)
        op = self.builder.create("scan", [v.handle for v in values], [v.type for v in values],
                                 {"axis": axis, "reverse": bool(reverse)}, regions=[region])
        return tuple(tensor(r, v.type) for r, v in zip(op.results, values))

    def associative_scan(self, inputs: Sequence[Any], axis: int, combine_fn: Any,
                         reverse: bool = False) -> tuple[tensor, ...]:
        return self.scan(inputs, axis, lambda args: self.call_function(combine_fn, args), reverse)

    # ---- built-in reductions ----
    def sum(self, x: Any, axis: int | None = None, keep_dims: bool = False, dtype: Type | None = None) -> tensor:
        x = self.to_tensor(x)
        x = self.cast(x, accumulation_type(x.dtype, dtype))
        return self.reduce_with(x, axis, self.add, keep_dims, "tl.sum")

    def xor_sum(self, x: Any, axis: int | None = None, keep_dims: bool = False) -> tensor:
        x = self._integer_input(x, "xor_sum")
        return self.reduce_with(x, axis, self.xor_, keep_dims, "tl.xor_sum")

    def reduce_or(self, x: Any, axis: int | None = None, keep_dims: bool = False) -> tensor:
        x = self._integer_input(x, "reduce_or")
        return self.reduce_with(x, axis, self.or_, keep_dims, "tl.reduce_or")

    def _integer_input(self, x: Any, what: str) -> tensor:
        x = self.to_tensor(x)
        if not x.dtype.is_int():
            raise SemanticError(f"{what} only supports integer tensors, got {x.dtype.name}")
        return x

    def extremum(self, x: Any, axis: int | None, largest: bool, return_indices: bool = False,
                 tie_break_left: bool = True, keep_dims: bool = False) -> tensor | tuple[tensor, tensor]:
        """``tl.max``/``tl.min`` (``largest`` picks which), optionally with the index of the extremum."""
        what = "tl.max" if largest else "tl.min"
        x = self.promote_bf16(self.to_tensor(x))
        if return_indices:
            return self._extremum_with_index(x, axis, largest, tie_break_left, keep_dims, what)
        x = self.cast(x, extremum_type(x.dtype))
        pick = self.maximum if largest else self.minimum
        return self.reduce_with(x, axis, pick, keep_dims, what)

    def _extremum_with_index(self, x: tensor, axis: int | None, largest: bool, tie_break_left: bool,
                             keep_dims: bool, what: str) -> tuple[tensor, tensor]:
        if axis is None:
            x = self.reshape_exact(x, (x.numel.value,)) if x.shape else self.splat(x, (1,))
            axis = 0
        shape = T.shape_of(x.type)
        if not shape:
            raise SemanticError(f"{what} with indices needs a tile")
        axis = wrap_axis(axis, len(shape))
        index = self.arange(0, shape[axis])
        if len(shape) > 1:
            index = self.expand_dims(index, [d for d in range(len(shape)) if d != axis])
            index = self.broadcast_to(index, shape)

        def combine(args: list[tensor]) -> tuple[tensor, tensor]:
            value1, index1, value2, index2 = args
            better = self.greater_than(value1, value2) if largest else self.less_than(value1, value2)
            if tie_break_left:
                tie = self.logical_and(self.equal(value1, value2), self.less_than(index1, index2))
                better = self.logical_or(better, tie)
            return self.where(better, value1, value2), self.where(better, index1, index2)

        value, where = self.reduction([x, index], axis, combine, keep_dims, what)
        return value, where

    # ---- built-in scans ----
    def cumsum(self, x: Any, axis: int = 0, reverse: bool = False, dtype: Type | None = None) -> tensor:
        x = self.promote_bf16(self.to_tensor(x))
        x = self.cast(x, accumulation_type(x.dtype, dtype))
        return self.scan([x], axis, lambda args: self.add(args[0], args[1]), reverse, "tl.cumsum")[0]

    def cumprod(self, x: Any, axis: int = 0, reverse: bool = False) -> tensor:
        x = self.promote_bf16(self.to_tensor(x))
        return self.scan([x], axis, lambda args: self.mul(args[0], args[1]), reverse, "tl.cumprod")[0]

    # ---- sort, flip, histogram ----
    def _last_dim(self, x: tensor, dim: int | None, what: str) -> int:
        shape = T.shape_of(x.type)
        if not shape:
            raise SemanticError(f"{what} needs a tile, got a scalar")
        dim = len(shape) - 1 if dim is None else wrap_axis(dim, len(shape), "dim")
        return dim

    def sort(self, x: Any, dim: int | None = None, descending: bool = False) -> tensor:
        """Sort along ``dim`` (only the last dim, the default, is supported, as in Triton)."""
        x = self.to_tensor(x)
        axis = self._last_dim(x, dim, "tl.sort")
        if axis != len(x.shape) - 1:
            raise SemanticError(f"tl.sort sorts along the last dim only (dim={len(x.shape) - 1} or None), got "
                                f"dim={dim}; permute the tensor first")
        return self.make("sort", [x], x.type, {"axis": axis, "descending": bool(descending)})

    def flip(self, x: Any, dim: int | None = None) -> tensor:
        """Reverse the order of elements along ``dim`` (default: the last dim)."""
        x = self.to_tensor(x)
        axis = self._last_dim(x, dim, "tl.flip")
        return self.make("flip", [x], x.type, {"axis": axis})

    def histogram(self, x: Any, num_bins: int, mask: Any = None) -> tensor:
        """Counts (int32) of the values ``0..num_bins-1`` among the masked-in elements of a 1-D tile."""
        x = self.to_tensor(x)
        if len(T.shape_of(x.type)) != 1 or not x.dtype.is_int():
            raise SemanticError(f"tl.histogram takes a 1-D integer tile, got {x.type}")
        result = tile_type(T.i32, (num_bins,))
        if mask is None:
            op = self.builder.create("histogram", [x.handle, None], [result], {"num_bins": num_bins}, grouped=True)
            return tensor(op.result, result)
        mask = self.broadcast_to(self.to_tensor(mask), T.shape_of(x.type))
        if mask.dtype is not T.i1:
            raise SemanticError(f"tl.histogram's mask must be boolean (tl.int1), got {mask.dtype.name}")
        op = self.builder.create("histogram", [x.handle, mask.handle], [result], {"num_bins": num_bins},
                                 grouped=True)
        return tensor(op.result, result)
