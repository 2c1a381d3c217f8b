"""Triton's ``triton.tools.ragged_tma``: a descriptor over a tensor whose ``ragged_dim`` axis
(the first, by default) concatenates sub-arrays of different lengths, and device functions that
read, write or add into one sub-array ``T[offset:offset + size]`` through it, the descriptor's
own bounds check keeping every access inside the sub-array (reads outside give zeros, writes
and adds outside are dropped).

How: the descriptor has two more dims in front.  For row ``r`` of the sub-array at ``offset``
of ``size`` rows the coordinates are ``(2**30, offset + size, 2**30 - size + r)`` on the two new
dims and the ragged one, whose strides are ``2**34 - s``, ``s`` and ``s`` (``s`` the ragged
dim's stride).  The element offset is then ``2**64 + (offset + r) * s``, which is
``(offset + r) * s`` in 64-bit address arithmetic, and the ragged coordinate is below the
ragged dim's extent, ``2**30``, exactly when ``r < size``.  (The new dims' extents are large
enough never to clip.)
"""

from __future__ import annotations

from typing import Any

from .. import language as tl
from ..runtime.jit import jit
from .tensor_descriptor import TensorDescriptor

RAGGED_EXTENT = 1 << 30  # the ragged dim's extent in the descriptor: at most this many rows
LEADING_EXTENT = 0x7FFF0000  # the two leading dims' extents (below 2**31)


def create_ragged_descriptor(T: Any, block_shape: Any, ragged_dim: int = 0) -> TensorDescriptor:
    """The descriptor of the 2-D or 3-D tensor ``T`` (rows along ``ragged_dim``, not the last
    dim) for :func:`load_ragged`, :func:`store_ragged` and :func:`atomic_add_ragged`, which
    take blocks of ``block_shape``."""
    block_shape, shape = list(block_shape), list(T.shape)
    rank = len(shape)
    ragged_dim = ragged_dim + rank if ragged_dim < 0 else ragged_dim
    assert 0 <= ragged_dim < rank - 1, f"the last dim cannot be ragged (ragged_dim {ragged_dim}, rank {rank})"
    assert rank <= 3, f"a ragged descriptor's tensor has 2 or 3 dims, got {rank}"
    assert len(block_shape) == rank, f"block_shape {block_shape} needs one entry per dim of the tensor ({rank})"
    assert shape[ragged_dim] <= RAGGED_EXTENT, f"at most 2**30 rows, got {shape[ragged_dim]}"
    stride = T.stride(ragged_dim)
    shape[ragged_dim] = RAGGED_EXTENT
    return TensorDescriptor(T, [LEADING_EXTENT, LEADING_EXTENT] + shape,
                            [2**34 - stride, stride] + [T.stride(d) for d in range(rank)], [1, 1] + block_shape)


@jit
def _ragged_coordinates(batch_offset, batch_size, coords, ragged_dim: tl.constexpr):
    """The descriptor's coordinates of the block at ``coords`` of the sub-array."""
    row = RAGGED_EXTENT - batch_size + coords[ragged_dim]
    return [RAGGED_EXTENT, batch_offset + batch_size] + coords[:ragged_dim] + [row] + coords[ragged_dim + 1:]


@jit
def load_ragged(TMA, batch_offset, batch_size, coords, ragged_dim: tl.constexpr = 0):
    """The block at ``coords`` (a list, one per dim of the tensor) of the sub-array
    ``T[batch_offset:batch_offset + batch_size]``; zeros outside it."""
    tl.static_assert(len(TMA.shape) == len(coords) + 2, "load_ragged needs a descriptor of create_ragged_descriptor")
    block = TMA.load(_ragged_coordinates(batch_offset, batch_size, coords, ragged_dim))
    return tl.reshape(block, block.shape[2:])


@jit
def store_ragged(TMA, batch_offset, batch_size, coords, data, ragged_dim: tl.constexpr = 0):
    """Write ``data`` as the block at ``coords`` of the sub-array; rows outside it are dropped."""
    TMA.store(_ragged_coordinates(batch_offset, batch_size, coords, ragged_dim), tl.reshape(data, [1, 1] + data.shape))


@jit
def atomic_add_ragged(TMA, batch_offset, batch_size, coords, data, ragged_dim: tl.constexpr = 0):
    """Add ``data`` into the block at ``coords`` of the sub-array, atomically; rows outside it
    are dropped."""
    TMA.atomic_add(_ragged_coordinates(batch_offset, batch_size, coords, ragged_dim),
                   tl.reshape(data, [1, 1] + data.shape))


__all__ = ["create_ragged_descriptor", "load_ragged", "store_ragged", "atomic_add_ragged"]
