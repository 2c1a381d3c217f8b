"""Indexing: ``where`` and ``swizzle2d`` (``flip`` lives with the reductions)."""

from __future__ import annotations

from typing import Any

from .core import builtin, semantic, tensor, unwrap
from .math import minimum


@builtin
def where(condition: Any, x: Any, y: Any) -> tensor:
    """``x`` where ``condition`` is true, else ``y``; ``x`` and ``y`` are promoted to one type and
    all three broadcast together.  Both sides are always evaluated."""
    return semantic().where(unwrap(condition), unwrap(x), unwrap(y))


@builtin
def swizzle2d(i: Any, j: Any, size_i: Any, size_j: Any, size_g: Any) -> tuple[Any, Any]:
    """Map the indices of a row-major ``size_i x size_j`` matrix to those of a matrix that is
    column-major within each group of ``size_g`` rows (the grouped ordering of tiled matmuls)."""
    ij = i * size_j + j  # the linear index
    size_gj = size_g * size_j  # elements in one group of size_g rows
    group_id = ij // size_gj
    off_i = group_id * size_g  # the group's first row
    size_g = minimum(size_i - off_i, size_g)  # the last group may have fewer rows
    ij = ij % size_gj  # the index within the group
    return off_i + ij % size_g, ij // size_g


__all__ = ["where", "swizzle2d"]
