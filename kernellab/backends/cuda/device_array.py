"""kernellab's own device array, so that running on a GPU needs neither torch nor CuPy.

    x = kl.to_device(np.arange(8, dtype=np.float32))    # cuMemAlloc + copy
    out = kl.empty((8,), np.float32)                     # device memory, uninitialised
    kernel[grid](x, out, 8, BLOCK=8)
    out.numpy()                                          # waits for the device, then copies

A :class:`DeviceArray` is C-contiguous; it exposes ``__cuda_array_interface__`` (version 3),
``data_ptr()`` and ``__kernellab_buffer__()``, so torch (``torch.as_tensor(x, device="cuda")``),
CuPy (``cupy.asarray(x)``) and kernellab's runtime all read it in place.  Its memory is freed
when the last array using it is garbage collected.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from . import driver


def device_ordinal(device: Any) -> int:
    """The ordinal of ``device``: an int, ``"cuda"`` (the current device, else 0), ``"cuda:N"``,
    or an object with ``.type == "cuda"`` and ``.index`` (``torch.device``)."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    kind, index = getattr(device, "type", None), getattr(device, "index", None)
    if kind is not None:
        device = kind if index is None else f"{kind}:{index}"
    if isinstance(device, str):
        name, _, number = device.strip().partition(":")
        if name == "cuda" and not number:
            return _current_or_first()
        if name == "cuda" and number.isdigit():
            return int(number)
    raise ValueError(f"a CUDA device is an int, 'cuda' or 'cuda:N', got {device!r}")


def _current_or_first() -> int:
    driver.init()
    current = driver.current_device()
    return 0 if current is None else current


class _Allocation:
    """``nbytes`` of device memory on one device; freed when collected."""

    def __init__(self, nbytes: int, ordinal: int):
        self.pointer = driver.mem_alloc(nbytes, ordinal)
        self.nbytes = nbytes
        self.ordinal = ordinal
        self._finalizer = weakref.finalize(self, _free, self.pointer, ordinal)


def _free(pointer: int, ordinal: int) -> None:
    try:
        driver.mem_free(pointer, ordinal)
    except Exception:  # at interpreter exit the driver may already be gone
        pass


class DeviceArray:
    """A C-contiguous array in CUDA device memory."""

    __slots__ = ("_allocation", "shape", "dtype", "_buffer", "__weakref__")

    def __init__(self, shape: Any, dtype: Any = np.float32, device: Any = "cuda"):
        self.shape = _shape(shape)
        self.dtype = np.dtype(dtype)
        self._allocation = _Allocation(self.nbytes, device_ordinal(device))
        self._buffer = None

    # -- what it is ---------------------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides, as numpy gives them (C order)."""
        strides, step = [], self.dtype.itemsize
        for extent in reversed(self.shape):
            strides.append(step)
            step *= max(extent, 1)
        return tuple(reversed(strides))

    @property
    def device(self) -> str:
        return f"cuda:{self._allocation.ordinal}"

    @property
    def device_index(self) -> int:
        return self._allocation.ordinal

    def data_ptr(self) -> int:
        return self._allocation.pointer

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, device='{self.device}')"

    # -- copies -------------------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """A host copy, after all work queued on the device has finished."""
        out = np.empty(self.shape, self.dtype)
        driver.synchronize(self._allocation.ordinal)
        if self.nbytes:
            driver.copy_device_to_host(out.ctypes.data, self.data_ptr(), self.nbytes)
        return out

    def copy_from(self, array: Any) -> DeviceArray:
        """Overwrite this array with the host array ``array`` (same shape; cast to this dtype)."""
        host = np.ascontiguousarray(array, dtype=self.dtype)
        if host.shape != self.shape:
            raise ValueError(f"cannot copy an array of shape {host.shape} into a DeviceArray of shape {self.shape}")
        driver.synchronize(self._allocation.ordinal)
        if self.nbytes:
            driver.copy_host_to_device(self.data_ptr(), host.ctypes.data, self.nbytes)
        return self

    def fill_bytes(self, value: int) -> DeviceArray:
        """Set every byte to ``value`` (0..255)."""
        driver.activate(self._allocation.ordinal)
        if self.nbytes:
            driver.memset_bytes(self.data_ptr(), int(value) & 0xFF, self.nbytes)
        return self

    # -- interop ------------------------------------------------------------------------------

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """Version 3.  ``stream`` 1 is the legacy default stream, where kernellab's copies and
        default launches run: a consumer on another stream synchronises with it first."""
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.data_ptr(), False), "version": 3,
                "strides": None, "stream": 1}

    def __kernellab_buffer__(self) -> Any:
        """The runtime's view of this array (``kernellab.runtime.interop.Buffer``), built once."""
        if self._buffer is None:
            from ...ir import types as ir_types
            from ..buffer import Buffer

            pointer, nbytes = self.data_ptr(), self.nbytes
            self._buffer = Buffer(pointer, nbytes, pointer, nbytes, self.device,
                                  ir_types.from_numpy(self.dtype), "", self)
        return self._buffer


def _shape(shape: Any) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    try:
        dims = tuple(int(d.__index__()) for d in dims)
    except (TypeError, AttributeError):
        raise TypeError(f"a shape is an int or a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"array dimensions cannot be negative, got {dims}")
    return dims


def to_device(array: Any, device: Any = "cuda") -> DeviceArray:
    """A device copy of ``array`` (a numpy array, or anything ``np.asarray`` takes)."""
    host = np.ascontiguousarray(array)
    if host.dtype == object:
        raise TypeError("to_device needs an array of numbers, not Python objects")
    result = DeviceArray(host.shape, host.dtype, device)
    if result.nbytes:
        driver.copy_host_to_device(result.data_ptr(), host.ctypes.data, result.nbytes)
    return result


def empty(shape: Any, dtype: Any = np.float32, device: Any = "cuda") -> DeviceArray | np.ndarray:
    """An uninitialised array on ``device`` (``"cuda"``, ``"cuda:N"``, an int; ``"cpu"`` gives
    a numpy array)."""
    if device == "cpu":
        return np.empty(_shape(shape), dtype)
    return DeviceArray(shape, dtype, device)


def zeros(shape: Any, dtype: Any = np.float32, device: Any = "cuda") -> DeviceArray | np.ndarray:
    """A zero-filled array on ``device`` (as :func:`empty`)."""
    if device == "cpu":
        return np.zeros(_shape(shape), dtype)
    return DeviceArray(shape, dtype, device).fill_bytes(0)


__all__ = ["DeviceArray", "to_device", "empty", "zeros", "device_ordinal"]
