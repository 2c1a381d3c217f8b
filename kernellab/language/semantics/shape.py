"""Tile creation and shape manipulation: program ids, ``arange``, ``full``, reshapes,
permutations, ``expand_dims``/indexing with ``None``, ``join``/``split``, ``cat``, ``gather``."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

from ...ir import types as T
from ...ir.types import ScalarType, Type
from ..core import is_power_of_two, tensor
from .base import SemanticError
from .math import MathMixin
from .typing import python_value, tile_type, validate_shape


def wrap_axis(axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` in ``[0, rank)``; negative axes count from the end."""
    if not -rank <= axis < rank:
        raise SemanticError(f"invalid {what} {axis}. Expected {-rank} <= {what} < {rank} (a tensor of rank {rank})")
    return axis + rank if axis < 0 else axis


class ShapeMixin(MathMixin):
    # ---- the programming model ----
    def program_id(self, axis: int) -> tensor:
        self._check_grid_axis(axis, "program_id")
        return self.make_nullary("program_id", T.i32, {"axis": axis})

    def num_programs(self, axis: int) -> tensor:
        self._check_grid_axis(axis, "num_programs")
        return self.make_nullary("num_programs", T.i32, {"axis": axis})

    @staticmethod
    def _check_grid_axis(axis: Any, what: str) -> None:
        if isinstance(axis, bool) or axis not in (0, 1, 2):
            raise SemanticError(f"{what} axis must be 0, 1, or 2 but got {axis!r} (the launch grid is 3-D)")

    def make_nullary(self, name: str, ty: Type, attrs: dict) -> tensor:
        return tensor(self.builder.create(name, [], [ty], attrs).result, ty)

    # ---- creation ----
    def arange(self, start: Any, end: Any) -> tensor:
        """The i32 values ``start, ..., end - 1``; the length must be a power of two."""
        start, end = python_value(start), python_value(end)
        runtime = [bound for bound in (start, end) if isinstance(bound, tensor)]
        if runtime:
            raise SemanticError(_runtime_bound_message(runtime[0]))
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
            raise SemanticError(f"arange's bounds must be integers, got {start!r} and {end!r}")
        if not (-2**31 <= start < 2**31 and -2**31 <= end < 2**31):
            raise SemanticError(f"arange's bounds must fit in int32, got [{start}, {end})")
        if end <= start:
            raise SemanticError(f"arange needs end > start, got start={start}, end={end}")
        length = end - start
        if not is_power_of_two(length):
            raise SemanticError("arange's range must be a power of 2", hint=f"end - start is {length}")
        ty = tile_type(T.i32, (length,))
        return self.make_nullary("arange", ty, {"start": start, "end": end})

    def full(self, shape: Sequence[int], value: Any, dtype: Type) -> tensor:
        """A tile of ``shape`` filled with ``value`` (a number or a scalar tensor) as ``dtype``."""
        shape = validate_shape(shape, "full's shape")
        dtype = python_value(dtype)
        if not isinstance(dtype, ScalarType):
            raise SemanticError(f"full's dtype must be a scalar dtype such as tl.float32, got {dtype!r}")
        value = python_value(value)
        if isinstance(value, tensor):
            if T.shape_of(value.type):
                raise SemanticError(f"full's value must be a scalar, got a tile of shape "
                                    f"{list(T.shape_of(value.type))}")
            return self.splat(self.cast(value, dtype), shape)
        if not isinstance(value, (bool, int, float)):
            raise SemanticError(f"full's value must be a number or a scalar tensor, got {value!r}")
        if shape:
            return self.full_constant(shape, value, dtype)
        return self.scalar_constant(value, dtype)

    # ---- reshaping ----
    def reshape(self, x: Any, shape: Sequence[int], can_reorder: bool = False) -> tensor:
        """The same elements in ``shape`` (row-major unless ``can_reorder``); ``()`` turns a
        one-element tile into a scalar."""
        x = self.to_tensor(x)
        shape = validate_shape(shape, "reshape's shape")
        numel = math.prod(shape)
        if x.numel.value != numel:
            raise SemanticError(f"reshape cannot change the number of elements: {list(T.shape_of(x.type))} has "
                                f"{x.numel.value}, {list(shape)} has {numel}")
        if not shape:
            return self.unsplat(x)
        if not T.shape_of(x.type):
            return self.splat(x, shape)
        return self.reshape_exact(x, shape, can_reorder)

    def unsplat(self, x: tensor) -> tensor:
        """The scalar in a one-element tile."""
        if not T.shape_of(x.type):
            return x
        if x.numel.value != 1:
            raise SemanticError(f"only a one-element tile converts to a scalar, got shape {list(T.shape_of(x.type))}")
        if len(T.shape_of(x.type)) > 1:
            x = self.reshape_exact(x, (1,))
        return self.reduce_with(x, 0, lambda a, b: a)

    def permute(self, x: Any, dims: Sequence[int]) -> tensor:
        """Result dim i is source dim ``dims[i]``."""
        x = self.to_tensor(x)
        shape = T.shape_of(x.type)
        dims = tuple(python_value(d) for d in dims)
        if len(dims) != len(shape):
            raise SemanticError(f"permute needs one dim per axis of the tensor ({len(shape)}), got {list(dims)}")
        if sorted(dims) != list(range(len(dims))):
            raise SemanticError(f"permute dims must be a permutation of 0..{len(dims) - 1}, got {list(dims)}")
        if dims == tuple(range(len(dims))):
            return x
        ty = tile_type(T.element_of(x.type), tuple(shape[d] for d in dims))
        return self.make("trans", [x], ty, {"order": dims})

    def expand_dims(self, x: Any, axes: int | Sequence[int]) -> tensor:
        """Insert dims of size 1; axes are positions in the result (negative ones count from its end)."""
        x = self.to_tensor(x)
        axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        new_rank = len(T.shape_of(x.type)) + len(axes)
        axes = [wrap_axis(int(python_value(a)), new_rank) for a in axes]
        if len(set(axes)) != len(axes):
            raise SemanticError(f"expand_dims received duplicate axes, normalized axes = {axes}")
        for axis in sorted(axes):
            x = self.expand_dims_once(x, axis)
        return x

    def subscript(self, x: Any, index: Any) -> tensor:
        """``x[None, :]``: ``None`` inserts a dim of size 1 at its position, ``:`` keeps the tensor as
        it is; nothing else is allowed.  As in Triton, a ``None`` turns a scalar into a ``[1]`` tile
        wherever it stands (``pid[:, None]``), and a ``None`` past the dims a tensor has is refused."""
        x = self.to_tensor(x)
        index = python_value(index)
        items = index if isinstance(index, tuple) else (index,)
        result = x
        for dim, item in enumerate(items):
            item = python_value(item)
            if item is None:
                result = self.expand_dims_once(result, self._new_axis(x, result, items, dim))
            elif isinstance(item, builtins.slice) and all(
                    python_value(v) is None for v in (item.start, item.stop, item.step)):
                continue
            else:
                raise SemanticError(f"unsupported tensor index {item!r}: only None (new axis) and ':' are allowed; "
                                    "use tl.gather, pointer arithmetic or tl.split to select elements")
        return result

    @staticmethod
    def _new_axis(x: tensor, result: tensor, items: tuple, dim: int) -> int:
        """Where the ``None`` at position ``dim`` of ``items`` inserts its dim into ``result``."""
        rank = len(T.shape_of(result.type))
        if rank == 0:
            return 0
        if dim <= rank:
            return dim
        source_rank = len(T.shape_of(x.type))
        what = "a scalar" if source_rank == 0 else f"a {source_rank}-d tensor"
        shown = ", ".join("None" if python_value(i) is None else ":" for i in items)
        raise SemanticError(f"cannot index {what} with [{shown}]: the None at position {dim} is past the "
                            f"{rank} dim(s) there; each ':' keeps one of the tensor's dims (it has "
                            f"{source_rank}); use None to add dims, e.g. x[None, :] or, for a scalar, x[None]")

    def join(self, a: Any, b: Any) -> tensor:
        """Stack two tensors along a new last dim of size 2 (after broadcasting them)."""
        a, b = self.broadcast_pair(self.to_tensor(a), self.to_tensor(b))
        if a.dtype is not b.dtype:
            raise SemanticError(f"join needs tensors of one dtype, got {a.dtype.name} and {b.dtype.name}")
        shape = T.shape_of(a.type)
        if not shape:
            a, b = self.splat(a, (1,)), self.splat(b, (1,))
            joined = self.make("join", [a, b], tile_type(a.dtype, (1, 2)))
            return self.reshape_exact(joined, (2,))
        return self.make("join", [a, b], tile_type(a.dtype, shape + (2,)))

    def split(self, x: Any) -> tuple[tensor, tensor]:
        """The two halves of the last dim, which must have size 2 (scalars from a ``[2]`` tile)."""
        x = self.to_tensor(x)
        shape = T.shape_of(x.type)
        if not shape or shape[-1] != 2:
            raise SemanticError(f"split needs a last dim of size 2, got shape {list(shape)}")
        was_vector = len(shape) == 1
        if was_vector:
            x = self.expand_dims_once(x, 0)
            shape = (1, 2)
        half = tile_type(x.dtype, shape[:-1])
        op = self.builder.create("split", [x.handle], [half, half])
        lhs, rhs = (tensor(r, half) for r in op.results)
        if was_vector:
            return self.unsplat(lhs), self.unsplat(rhs)
        return lhs, rhs

    def interleave(self, a: Any, b: Any) -> tensor:
        """Interleave along the last dim: ``join(a, b)`` reshaped to ``[..., 2 * n]``."""
        joined = self.join(a, b)
        shape = T.shape_of(joined.type)
        if len(shape) == 1:
            return joined
        return self.reshape_exact(joined, shape[:-2] + (2 * shape[-2],))

    def cat(self, a: Any, b: Any, can_reorder: bool = False) -> tensor:
        """Concatenate along dim 0 (the result length must stay a power of two)."""
        a, b = self.to_tensor(a), self.to_tensor(b)
        a_shape, b_shape = T.shape_of(a.type), T.shape_of(b.type)
        if not a_shape or not b_shape:
            raise SemanticError("cat concatenates tiles, not scalars")
        if a.dtype is not b.dtype:
            raise SemanticError(f"cat needs tiles of one dtype, got {a.dtype.name} and {b.dtype.name}")
        if a_shape[1:] != b_shape[1:]:
            raise SemanticError(f"cat needs tiles that agree on every dim but the first, got {list(a_shape)} and "
                                f"{list(b_shape)}")
        ty = tile_type(a.dtype, (a_shape[0] + b_shape[0],) + a_shape[1:])
        return self.make("cat", [a, b], ty, {"can_reorder": bool(can_reorder)})

    def gather(self, src: Any, index: Any, axis: int) -> tensor:
        """``result[..i..] = src[..index[..i..]..]`` along ``axis``."""
        src, index = self.to_tensor(src), self.to_tensor(index)
        if not index.dtype.is_int():
            raise SemanticError(f"gather's index must be an integer tensor, got {index.dtype.name}")
        src_shape, index_shape = T.shape_of(src.type), T.shape_of(index.type)
        if len(src_shape) != len(index_shape) or not src_shape:
            raise SemanticError(f"gather's src and index must be tiles of one rank, got shapes {list(src_shape)} and "
                                f"{list(index_shape)}")
        axis = wrap_axis(axis, len(src_shape))
        for d, (s, i) in enumerate(zip(src_shape, index_shape)):
            if d != axis and s != i:
                raise SemanticError(f"gather's index must match src on every dim but axis {axis}; dim {d} is {i} "
                                    f"vs {s}")
        return self.make("gather", [src, index], tile_type(src.dtype, index_shape), {"axis": axis})


__all__ = ["ShapeMixin", "wrap_axis"]


def _runtime_bound_message(bound: tensor) -> str:
    """Why a runtime value cannot bound ``tl.arange``, and the fix: most often a kernel parameter
    that lacks its ``tl.constexpr`` annotation."""
    name = bound.handle.name_hint
    if name is None:
        return ("arange's bounds must be tl.constexpr (compile-time) values; got a runtime value. A kernel parameter "
                "used as a bound needs its annotation, `BLOCK: tl.constexpr`; a start known only at run time is "
                "added after: tl.arange(0, BLOCK) + start.")
    return (f"arange's bounds must be tl.constexpr (compile-time) values, but {name} is a runtime value. If {name} "
            f"is a parameter of the kernel, annotate it in the kernel's signature: `{name}: tl.constexpr` (each value "
            f"then compiles its own kernel); a start known only at run time is added after: "
            f"tl.arange(0, SIZE) + {name}.")
