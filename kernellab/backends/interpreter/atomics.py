"""Atomic read-modify-write and compare-and-swap over a typed view of memory.

Elements apply one by one in index order, so duplicate addresses within one tile see each
other's updates; each returns the value it found.  When the addresses are all distinct the
same result comes from one vectorized gather/scatter.  The operation is typed by the view:
signed, unsigned or floating-point; integer arithmetic wraps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _exchange(old, new):
    return new


_BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
_ARITHMETIC = {"add": np.add, "max": np.maximum, "min": np.minimum, "xchg": _exchange}


def combiner(kind: str, dtype: np.dtype) -> Callable:
    """``f(old, value) -> new`` for an ``atomic_rmw`` kind on ``dtype`` elements."""
    if kind in _ARITHMETIC:
        return _ARITHMETIC[kind]
    if kind in _BITWISE:
        if dtype.kind not in "iu":
            raise TypeError(f"atomic {kind} needs integer elements, not {dtype}; use add, max, min or xchg")
        return _BITWISE[kind]
    raise TypeError(f"unknown atomic kind {kind!r}; known: {', '.join([*_ARITHMETIC, *_BITWISE])}")


def _distinct(indices: np.ndarray) -> bool:
    return indices.size < 2 or np.unique(indices).size == indices.size


def read_modify_write(kind: str, view: np.ndarray, indices: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Apply ``kind`` at ``view[indices]`` with ``values``; returns the old values."""
    combine = combiner(kind, view.dtype)
    if _distinct(indices):
        old = view[indices]
        view[indices] = combine(old, values)
        return old
    old = np.empty(indices.shape, view.dtype)
    for k, (index, value) in enumerate(zip(indices.tolist(), values)):
        current = view[index]
        old[k] = current
        view[index] = combine(current, value)
    return old


def _bits(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values)
    return values.view(np.dtype(f"u{values.dtype.itemsize}"))


def compare_and_swap(view: np.ndarray, indices: np.ndarray, compare: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Where ``view[i]`` equals ``compare`` bit for bit, store ``values``; returns the old values."""
    if _distinct(indices):
        old = view[indices]
        equal = _bits(old) == _bits(np.ascontiguousarray(compare))
        view[indices[equal]] = values[equal]
        return old
    old = np.empty(indices.shape, view.dtype)
    expected = _bits(np.ascontiguousarray(compare))
    for k, index in enumerate(indices.tolist()):
        current = view[index : index + 1]
        old[k] = current[0]
        if _bits(current)[0] == expected[k]:
            view[index] = values[k]
    return old
