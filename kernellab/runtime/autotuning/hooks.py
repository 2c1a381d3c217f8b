"""What the autotuner does to arrays around every benchmarked run: ``reset_to_zero`` arguments
are zeroed before it, ``restore_value`` arguments are saved before it and written back after.

Works on numpy arrays, torch tensors (``zero_``/``clone``/``copy_``), kernellab's
``DeviceArray`` (``fill_bytes``/``numpy``/``copy_from``) and CuPy-like arrays (``fill``,
``copy``, slice assignment), and on tuples of these (each array element; ``None`` elements are
left alone).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def zero(array: Any, name: str) -> None:
    """Set every element of ``array`` to zero."""
    if isinstance(array, tuple):
        for i, item in enumerate(array):
            if item is not None:
                zero(item, f"{name}[{i}]")
    elif isinstance(array, np.ndarray):
        array[...] = 0
    elif callable(getattr(array, "zero_", None)):
        array.zero_()
    elif callable(getattr(array, "fill_bytes", None)):
        array.fill_bytes(0)
    elif callable(getattr(array, "fill", None)):
        array.fill(0)
    else:
        raise TypeError(f"reset_to_zero names `{name}`, a {type(array).__name__}, which cannot be zeroed; it must be "
                        "an array (numpy, torch, kl.to_device, CuPy)")


def snapshot(array: Any, name: str) -> Any:
    """A copy of ``array``'s contents that :func:`restore` can write back."""
    if isinstance(array, tuple):
        return tuple(None if item is None else snapshot(item, f"{name}[{i}]") for i, item in enumerate(array))
    if isinstance(array, np.ndarray):
        return array.copy()
    if callable(getattr(array, "clone", None)):
        return array.clone()
    if callable(getattr(array, "copy_from", None)) and callable(getattr(array, "numpy", None)):
        return array.numpy()
    if callable(getattr(array, "copy", None)):
        return array.copy()
    raise TypeError(f"restore_value names `{name}`, a {type(array).__name__}, which cannot be copied; it must be an "
                    "array (numpy, torch, kl.to_device, CuPy)")


def restore(array: Any, saved: Any) -> None:
    """Write ``saved`` (from :func:`snapshot`) back into ``array``."""
    if isinstance(array, tuple):
        for item, kept in zip(array, saved):
            if item is not None:
                restore(item, kept)
    elif isinstance(array, np.ndarray):
        np.copyto(array, saved)
    elif callable(getattr(array, "copy_", None)):
        array.copy_(saved)
    elif callable(getattr(array, "copy_from", None)):
        array.copy_from(saved)
    else:
        array[...] = saved


class ResetRestore:
    """Triton's default pre- and post-hook for ``reset_to_zero`` and ``restore_value``."""

    def __init__(self, reset_to_zero: Iterable[str], restore_value: Iterable[str]):
        self.reset_to_zero = list(reset_to_zero)
        self.restore_value = list(restore_value)
        self._saved: dict[str, Any] = {}

    def __bool__(self) -> bool:
        return bool(self.reset_to_zero or self.restore_value)

    def pre_hook(self, named_args: dict[str, Any], reset_only: bool = False) -> None:
        for name in self.reset_to_zero:
            if named_args.get(name) is not None:
                zero(named_args[name], name)
        if not reset_only:
            self._saved = {name: snapshot(named_args[name], name) for name in self.restore_value
                           if named_args.get(name) is not None}

    def post_hook(self, named_args: dict[str, Any], exception: BaseException | None) -> None:
        for name, saved in self._saved.items():
            restore(named_args[name], saved)
        self._saved = {}


__all__ = ["zero", "snapshot", "restore", "ResetRestore"]
