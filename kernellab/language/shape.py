"""Shape manipulation: ``broadcast``, ``broadcast_to``, ``expand_dims``, ``reshape``, ``view``,
``permute``, ``trans``, ``ravel``, ``join``, ``split``, ``interleave``, ``cat``, ``item``.

Shapes and dims are compile-time values; a shape may be given as one tuple or as separate
arguments (``x.reshape(4, 8)`` or ``x.reshape((4, 8))``).
"""

from __future__ import annotations

import warnings
from typing import Any

from .core import (
    SemanticError,
    builtin,
    compile_time,
    compile_time_ints,
    member,
    semantic,
    shape_arguments,
    tensor,
    unwrap,
)


def _shape(shape: tuple, what: str) -> tuple[int, ...]:
    return compile_time_ints(shape_arguments(shape), what)


@builtin
def broadcast(input: Any, other: Any) -> tuple[tensor, tensor]:
    """Both tensors broadcast to their common shape (numpy rules; no type promotion)."""
    sem = semantic()
    return sem.broadcast_pair(sem.to_tensor(input), sem.to_tensor(other))


@member
@builtin
def broadcast_to(input: Any, *shape: Any) -> tensor:
    """``input`` broadcast to ``shape``."""
    sem = semantic()
    return sem.broadcast_to(sem.to_tensor(input), _shape(shape, "broadcast_to's shape"))


@member
@builtin
def expand_dims(input: Any, axis: Any) -> tensor:
    """Insert dims of size 1 at ``axis`` (an int or a sequence; positions in the result)."""
    axis = compile_time(axis, "expand_dims' axis")
    return semantic().expand_dims(input, axis)


@member
@builtin
def reshape(input: Any, *shape: Any, can_reorder: Any = False) -> tensor:
    """The same elements in a new shape (row-major order unless ``can_reorder``)."""
    return semantic().reshape(input, _shape(shape, "reshape's shape"), bool(compile_time(can_reorder, "can_reorder")))


@member
@builtin
def view(input: Any, *shape: Any) -> tensor:
    """Deprecated: ``reshape(input, shape, can_reorder=True)``."""
    warnings.warn("tl.view is deprecated; use tl.reshape (with can_reorder=True for the same freedom)",
                  DeprecationWarning, stacklevel=2)
    return semantic().reshape(input, _shape(shape, "view's shape"), True)


@member
@builtin
def permute(input: Any, *dims: Any) -> tensor:
    """Permute the dims: result dim i is ``input`` dim ``dims[i]``."""
    return semantic().permute(input, _shape(dims, "permute's dims"))


@member
@builtin
def trans(input: Any, *dims: Any) -> tensor:
    """``permute``, defaulting to swapping the last two dims (a batched 2-D transpose)."""
    if dims:
        return semantic().permute(input, _shape(dims, "trans' dims"))
    input = semantic().to_tensor(input)
    rank = len(input.shape)
    if rank < 2:
        raise SemanticError(f"tl.trans without dims swaps the last two dims; this tensor has {rank}")
    return semantic().permute(input, tuple(range(rank - 2)) + (rank - 1, rank - 2))


@member
@builtin
def ravel(x: Any, can_reorder: Any = False) -> tensor:
    """``x`` flattened to one dim."""
    x = semantic().to_tensor(x)
    return semantic().reshape(x, (x.numel.value,), bool(compile_time(can_reorder, "can_reorder")))


@builtin
def join(a: Any, b: Any) -> tensor:
    """Stack ``a`` and ``b`` along a new last dim of size 2 (scalars give a ``[2]`` tile)."""
    return semantic().join(unwrap(a), unwrap(b))


@member
@builtin
def split(a: Any) -> tuple[tensor, tensor]:
    """The two halves of the last dim (of size 2); the inverse of ``join``."""
    return semantic().split(a)


@builtin
def interleave(a: Any, b: Any) -> tensor:
    """Interleave ``a`` and ``b`` along their last dim."""
    return semantic().interleave(unwrap(a), unwrap(b))


@builtin
def cat(input: Any, other: Any, can_reorder: Any = False) -> tensor:
    """Concatenate along dim 0 (``can_reorder`` lets the compiler reorder the elements)."""
    return semantic().cat(input, other, bool(compile_time(can_reorder, "can_reorder")))


@member
@builtin
def item(input: Any) -> tensor:
    """The scalar in a one-element tile."""
    return semantic().unsplat(semantic().to_tensor(input))


__all__ = ["broadcast", "broadcast_to", "expand_dims", "reshape", "view", "permute", "trans", "ravel", "join",
           "split", "interleave", "cat", "item"]
