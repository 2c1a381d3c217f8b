"""What the interpreter needs to know about a pointer argument, and how to get it from arrays.

A pointer argument arrives as a *buffer*: any object with

* ``address``: the byte address the kernel's pointer holds,
* ``base`` and ``extent``: the start and size of the whole allocation the address lies in
  (what every masked-in access is checked against); an object without ``extent`` gives the
  allocation's size as ``nbytes``,
* ``name``: the kernel parameter's name (for error messages; may be empty),
* optionally ``host_view()``: a writable ``uint8`` numpy view of ``[base, base + nbytes)``,
  and ``writable`` (``False`` makes stores through it an error).

``kernellab.runtime.interop.Buffer`` is such an object (the interpreter does not import the
runtime, which sits above the backends); :class:`InterpreterBuffer` is the
interpreter's own, made by :func:`as_buffer` from numpy arrays, torch CPU tensors and anything
with ``__array_interface__``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import LaunchError
from ...ir.ops import TensorDesc
from ...ir.types import TensorDescType


@dataclass(frozen=True)
class InterpreterBuffer:
    """A pointer argument: the address it passes and the allocation around it."""

    address: int
    nbytes: int  # bytes the argument's own view spans
    base: int
    extent: int  # bytes of the whole allocation from base
    name: str = ""
    writable: bool = True
    owner: Any = field(default=None, repr=False, compare=False)  # keeps the memory alive

    def host_view(self) -> np.ndarray:
        return host_bytes(self.base, self.extent)


def allocation_extent(buffer: Any) -> int:
    """The size in bytes of the allocation a buffer lives in."""
    extent = getattr(buffer, "extent", None)
    return int(buffer.nbytes if extent is None else extent)


def is_buffer(obj: Any) -> bool:
    """Whether ``obj`` already describes a pointer argument (address, base, nbytes)."""
    return all(hasattr(obj, attr) for attr in ("address", "base", "nbytes")) and not isinstance(obj, np.ndarray)


def host_bytes(base: int, nbytes: int) -> np.ndarray:
    """A writable ``uint8`` view of host memory ``[base, base + nbytes)`` (the caller keeps the
    memory alive)."""
    if nbytes == 0:
        return np.zeros(0, np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(base))


def host_view(buffer: Any) -> np.ndarray:
    """The ``uint8`` view of a buffer's whole allocation."""
    view = getattr(buffer, "host_view", None)
    if view is not None:
        return view()
    device = getattr(buffer, "device", None)
    if device is not None and str(getattr(device, "type", device)).split(":")[0] not in ("cpu", "host"):
        raise LaunchError(f"argument {getattr(buffer, 'name', '') or '?'} lives on {device}; the interpreter runs "
                          "on the host: pass host arrays (numpy, torch CPU tensors) or use the cuda target")
    return host_bytes(int(buffer.base), allocation_extent(buffer))


def as_buffer(obj: Any, name: str = "") -> Any:
    """``obj`` as a buffer: numpy arrays, torch CPU tensors, ``__array_interface__`` objects; an
    object that already is a buffer is returned as it is."""
    if hasattr(obj, "__kernellab_buffer__"):
        return obj.__kernellab_buffer__()
    if is_buffer(obj):
        return obj
    if isinstance(obj, np.ndarray):
        return _numpy_buffer(obj, name)
    if _is_torch_tensor(obj):
        return _torch_buffer(obj, name)
    if hasattr(obj, "__array_interface__"):
        return _numpy_buffer(np.asarray(obj), name)
    raise LaunchError(f"argument {name or '?'} is a pointer parameter; pass a numpy array, a torch CPU tensor or "
                      f"a buffer, not {type(obj).__name__}")


def _numpy_buffer(array: np.ndarray, name: str) -> InterpreterBuffer:
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    low, high = np.lib.array_utils.byte_bounds(owner)
    view_low, view_high = np.lib.array_utils.byte_bounds(array)
    address = array.__array_interface__["data"][0]
    return InterpreterBuffer(address, view_high - view_low, low, high - low, name, bool(array.flags.writeable), owner)


def _is_torch_tensor(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.startswith("torch") and hasattr(obj, "untyped_storage") and hasattr(obj, "data_ptr")


def _torch_buffer(tensor: Any, name: str) -> InterpreterBuffer:
    if tensor.device.type != "cpu":
        raise LaunchError(f"argument {name or '?'} is a torch tensor on {tensor.device}; the interpreter runs on the "
                          "host: pass CPU tensors or use the cuda target")
    storage = tensor.untyped_storage()
    span = tensor.element_size() * (1 + sum((n - 1) * abs(s) for n, s in zip(tensor.shape, tensor.stride())))
    return InterpreterBuffer(int(tensor.data_ptr()), span if tensor.numel() else 0, int(storage.data_ptr()),
                             int(storage.nbytes()), name, True, tensor)


def host_descriptor(arg: Any, ty: TensorDescType, name: str = "") -> tuple[TensorDesc, Any]:
    """A tensor-descriptor argument as the reference's :class:`TensorDesc`, and the buffer of
    its memory (None when ``arg`` already is a ``TensorDesc``: its memory is then found among
    the other arguments' allocations).  ``arg`` is a host descriptor as Triton's
    ``TensorDescriptor``: ``base`` (an array), ``shape``, ``strides`` and optionally ``padding``."""
    if isinstance(arg, TensorDesc):
        return arg, None
    if not all(hasattr(arg, attr) for attr in ("base", "shape", "strides")):
        raise LaunchError(f"argument {name or '?'} is a tensor descriptor parameter; pass an object with base (an "
                          f"array), shape and strides (like Triton's TensorDescriptor), not {type(arg).__name__}")
    buffer = as_buffer(arg.base, name)
    block = ty.block_type
    if len(arg.shape) != len(block.shape) or len(arg.strides) != len(block.shape):
        raise LaunchError(f"argument {name or '?'}: a {ty.ir} needs {len(block.shape)} dims of shape and strides, "
                          f"got shape {list(arg.shape)} and strides {list(arg.strides)}")
    value = TensorDesc(int(buffer.address), tuple(int(d) for d in arg.shape), tuple(int(d) for d in arg.strides),
                       tuple(block.shape), block.element_ty.itemsize, str(getattr(arg, "padding", "zero")))
    return value, buffer
