"""Arrays from other libraries as kernel arguments.

A pointer argument reaches a backend as a :class:`Buffer`: the address the kernel's pointer
holds, the bytes the argument's view spans from there, the allocation around it (``base`` and
``extent``, so the interpreter can check every access), the device it lives on, its element
type and the parameter's name.

Accepted, in this order: objects with ``__kernellab_buffer__()`` (kernellab's own device
array), numpy arrays, torch tensors (CPU and CUDA; imported lazily, never required), objects
with ``__cuda_array_interface__`` (CuPy, numba...), objects with ``__dlpack__``, DLPack
capsules, and, as in Triton, any other object with a ``data_ptr()`` method and a ``dtype``.
:func:`handler_for` finds how to read a type once; the launch path caches it per type
(``kernellab.runtime.specialize``).
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..backends.buffer import HOST, Buffer  # noqa: F401  (re-exported: the runtime's type)
from ..errors import LaunchError
from ..ir import types as T
from ..ir.types import ScalarType

# ---------------------------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------------------------

_NUMPY_DTYPES: dict[np.dtype, ScalarType] = {}


def dtype_of_numpy(dtype: np.dtype) -> ScalarType:
    found = _NUMPY_DTYPES.get(dtype)
    if found is not None:
        return found
    try:
        found = _NUMPY_DTYPES[np.dtype(dtype)] = T.from_numpy(dtype)
    except TypeError:
        raise LaunchError(f"arrays of dtype {dtype} cannot be kernel arguments; kernellab element types are "
                          f"{', '.join(t.name for t in T.SCALAR_TYPES)}") from None
    return found


_TORCH_DTYPES = {
    "bool": T.i1, "int8": T.i8, "int16": T.i16, "int32": T.i32, "int64": T.i64,
    "uint8": T.u8, "uint16": T.u16, "uint32": T.u32, "uint64": T.u64,
    "float16": T.f16, "bfloat16": T.bf16, "float32": T.f32, "float64": T.f64,
    "float8_e4m3fn": T.f8e4m3, "float8_e5m2": T.f8e5m2,
    "float8_e4m3fnuz": T.f8e4b8, "float8_e5m2fnuz": T.f8e5b16,
}


def dtype_of_torch(dtype: Any) -> ScalarType:
    name = str(dtype).removeprefix("torch.")
    try:
        return _TORCH_DTYPES[name]
    except KeyError:
        raise LaunchError(f"torch tensors of dtype {dtype} cannot be kernel arguments; supported: "
                          f"{', '.join('torch.' + n for n in _TORCH_DTYPES)}") from None


def element_type(dtype: Any) -> ScalarType:
    """A kernellab scalar type given as itself, a torch dtype or a numpy dtype."""
    if isinstance(dtype, ScalarType):
        return dtype
    if type(dtype).__module__ == "torch":
        return dtype_of_torch(dtype)
    return dtype_of_numpy(dtype)


def torch_module() -> Any | None:
    """torch, if something already imported it (kernellab never imports it first)."""
    return sys.modules.get("torch")


def is_torch_tensor_type(cls: type) -> bool:
    torch = torch_module()
    return torch is not None and isinstance(cls, type) and issubclass(cls, torch.Tensor)


# ---------------------------------------------------------------------------------------------
# Handlers: how to read one kind of array
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Handler:
    """How to read arguments of one kind: where they live (``location``) and the full
    :class:`Buffer` (``buffer(obj, name)``).  The launch path has faster readers for numpy,
    torch and kernellab's arrays (``specialize.py``)."""

    kind: str
    location: Callable[[Any], str]
    buffer: Callable[[Any, str], Buffer]


def _span(shape, strides, itemsize: int) -> tuple[int, int]:
    """(lowest, highest + 1) byte offsets a strided view touches, relative to its address."""
    low = high = 0
    for extent, stride in zip(shape, strides):
        if extent == 0:
            return 0, 0
        reach = (extent - 1) * stride
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return low, high + itemsize


def _c_strides(shape, itemsize: int) -> list[int]:
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(int(extent), 1)
    return strides[::-1]


# ---- numpy ----

NUMPY_DATA_OFFSET = object.__basicsize__  # PyArrayObject's first field, the data pointer, follows the header
read_word = ctypes.c_size_t.from_address


def numpy_address_by_layout(array: np.ndarray) -> int:
    """The array's data pointer, read from the array object (~0.2 us; numpy's own ways take ~1 us)."""
    return read_word(id(array) + NUMPY_DATA_OFFSET).value


def _numpy_address_slow(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _layout_works() -> bool:
    probe = np.arange(3, dtype=np.float32)[1:]
    return numpy_address_by_layout(probe) == _numpy_address_slow(probe)


numpy_address: Callable[[np.ndarray], int] = numpy_address_by_layout if _layout_works() else _numpy_address_slow


def _numpy_extent(array: np.ndarray) -> tuple[int, int]:
    """(lowest byte offset from the data pointer, bytes spanned) of an array."""
    if array.flags.c_contiguous:
        return 0, array.nbytes
    low, high = _span(array.shape, array.strides, array.itemsize)
    return low, high - low


def _numpy_buffer(array: np.ndarray, name: str) -> Buffer:
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    nbytes = _numpy_extent(array)[1]
    own_low, extent = _numpy_extent(owner)
    return Buffer(numpy_address(array), nbytes, numpy_address(owner) + own_low, extent, HOST,
                  dtype_of_numpy(array.dtype), name, array, array.flags.writeable)


NUMPY = Handler("numpy", lambda a: HOST, _numpy_buffer)


# ---- torch ----

def torch_location(tensor: Any) -> str:
    index = tensor.get_device()
    return HOST if index < 0 else f"cuda:{index}"


def _torch_buffer(tensor: Any, name: str) -> Buffer:
    storage = tensor.untyped_storage()
    itemsize = tensor.element_size()
    low, high = _span(tensor.shape, [s * itemsize for s in tensor.stride()], itemsize)
    return Buffer(int(tensor.data_ptr()), high - low, int(storage.data_ptr()), int(storage.nbytes()),
                  torch_location(tensor), dtype_of_torch(tensor.dtype), name, tensor)


TORCH = Handler("torch", torch_location, _torch_buffer)


def torch_to_numpy(tensor: Any) -> np.ndarray:
    """A numpy view of a host torch tensor; bfloat16 and fp8 through a same-size integer view
    (numpy has no such dtypes; ml_dtypes gives them back)."""
    torch = torch_module()
    dtype = dtype_of_torch(tensor.dtype)
    if dtype.np_dtype is not None and (dtype is T.bf16 or dtype.is_fp8()):
        carrier = torch.int16 if dtype is T.bf16 else torch.uint8
        return tensor.view(carrier).numpy().view(dtype.np_dtype)
    return tensor.numpy()


# ---- kernellab's own arrays (and anything returning a Buffer) ----

def _hook_buffer(obj: Any, name: str) -> Buffer:
    found = obj.__kernellab_buffer__()
    return replace(found, name=name) if name and found.name != name else found


HOOK = Handler("kernellab", lambda o: o.__kernellab_buffer__().device, _hook_buffer)


# ---- __cuda_array_interface__ (CuPy, numba, ...) ----

def _cai_device(obj: Any) -> str:
    device = getattr(obj, "device", None)
    index = getattr(device, "id", None)
    return f"cuda:{index}" if isinstance(index, int) else "cuda"


def _cai_buffer(obj: Any, name: str) -> Buffer:
    cai = obj.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    shape = tuple(int(d) for d in cai["shape"])
    strides = cai.get("strides") or _c_strides(shape, dtype.itemsize)
    address = int(cai["data"][0])
    low, high = _span(shape, strides, dtype.itemsize)
    base, extent = address + low, high - low
    memory = getattr(getattr(obj, "data", None), "mem", None)  # CuPy: the whole allocation
    if isinstance(getattr(memory, "ptr", None), int) and isinstance(getattr(memory, "size", None), int):
        base, extent = memory.ptr, memory.size
    writable = not bool(cai["data"][1])
    return Buffer(address, high - low, base, extent, _cai_device(obj), dtype_of_numpy(dtype), name, obj, writable)


CUDA_ARRAY_INTERFACE = Handler("cuda_array_interface", _cai_device, _cai_buffer)


# ---- DLPack ----

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_DTYPES = {(0, 8): T.i8, (0, 16): T.i16, (0, 32): T.i32, (0, 64): T.i64, (1, 8): T.u8, (1, 16): T.u16,
              (1, 32): T.u32, (1, 64): T.u64, (2, 16): T.f16, (2, 32): T.f32, (2, 64): T.f64, (4, 16): T.bf16,
              (6, 8): T.i1, (1, 1): T.i1}
_DL_READ_ONLY = 1


def _capsule_pointer(capsule: Any, name: bytes) -> int:
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, name) or 0


def _capsule_name(capsule: Any) -> bytes:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule) or b""


def is_capsule(obj: Any) -> bool:
    return type(obj).__name__ == "PyCapsule"


def _dl_location(device_type: int, device_id: int) -> str:
    if device_type in (_DL_CPU, _DL_CUDA_HOST):
        return HOST
    if device_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        return f"cuda:{device_id}"
    raise LaunchError(f"DLPack device type {device_type} is not supported; pass host (CPU) or CUDA memory")


def _capsule_buffer(capsule: Any, name: str, owner: Any = None) -> Buffer:
    capsule_name = _capsule_name(capsule)
    writable = True
    if capsule_name == b"dltensor":
        tensor = _DLTensor.from_address(_capsule_pointer(capsule, capsule_name))  # DLManagedTensor starts with it
    elif capsule_name == b"dltensor_versioned":
        managed = _DLManagedTensorVersioned.from_address(_capsule_pointer(capsule, capsule_name))
        tensor, writable = managed.dl_tensor, not managed.flags & _DL_READ_ONLY
    else:
        raise LaunchError(f"argument {name or '?'} is a capsule named {capsule_name!r}, not an unconsumed DLPack "
                          "tensor ('dltensor')")
    key = (tensor.dtype.code, tensor.dtype.bits)
    if key not in _DL_DTYPES or tensor.dtype.lanes != 1:
        raise LaunchError(f"argument {name or '?'}: DLPack dtype code={key[0]} bits={key[1]} "
                          f"lanes={tensor.dtype.lanes} is not supported")
    dtype = _DL_DTYPES[key]
    shape = [tensor.shape[i] for i in range(tensor.ndim)]
    itemsize = max(1, tensor.dtype.bits // 8)
    strides = ([tensor.strides[i] * itemsize for i in range(tensor.ndim)] if tensor.strides
               else _c_strides(shape, itemsize))
    address = (tensor.data or 0) + tensor.byte_offset
    low, high = _span(shape, strides, itemsize)
    location = _dl_location(tensor.device.device_type, tensor.device.device_id)
    return Buffer(address, high - low, address + low, high - low, location, dtype, name,
                  owner if owner is not None else capsule, bool(writable))


def _dlpack_object_buffer(obj: Any, name: str) -> Buffer:
    return _capsule_buffer(obj.__dlpack__(), name, owner=obj)


def _dlpack_location(obj: Any) -> str:
    device_type, device_id = obj.__dlpack_device__()
    return _dl_location(int(device_type), int(device_id))


DLPACK = Handler("dlpack", _dlpack_location, _dlpack_object_buffer)
CAPSULE = Handler("dlpack_capsule", lambda c: _capsule_buffer(c, "").device, _capsule_buffer)


# ---- anything else with ``data_ptr()`` and ``dtype`` (Triton's rule for a tensor argument) ----

# device types (torch.device.type, "cpu" in a device string) that name host memory: not targets
_HOST_DEVICE_TYPES = frozenset({"cpu", HOST})


def _data_ptr_location(obj: Any) -> str:
    """Where a ``data_ptr()`` object lives: its ``device`` (a torch.device or a string such as
    ``"cuda:0"``), else its storage's; the host when neither says."""
    for holder in (obj, _storage_of(obj)):
        device = getattr(holder, "device", None)
        if device is None:
            continue
        kind, index = getattr(device, "type", None), getattr(device, "index", None)
        if kind is None:
            kind, _, number = str(device).partition(":")
            index = int(number) if number.isdigit() else None
        return HOST if kind in _HOST_DEVICE_TYPES else f"{kind}:{index or 0}"
    return HOST


def _storage_of(obj: Any) -> Any:
    """``obj.untyped_storage()`` when it tells where its allocation starts and how large it is."""
    storage_of = getattr(obj, "untyped_storage", None)
    storage = storage_of() if callable(storage_of) else None
    if storage is None or not callable(getattr(storage, "nbytes", None)):
        return None
    return storage if callable(getattr(storage, "data_ptr", None)) else None


def _data_ptr_buffer(obj: Any, name: str) -> Buffer:
    """A pointer argument that is only an address and an element type (FlagGems' StridedBuffer,
    typed pointers): the allocation is its storage's when it has one (``untyped_storage()``), else
    the span of its ``shape``/``stride()`` when it has them, else unknown (empty: the interpreter's
    bounds checks then refuse every access through it)."""
    address = int(obj.data_ptr())
    dtype = getattr(obj, "dtype", None)
    element = None if dtype is None else element_type(dtype)
    span = 0
    shape, stride = getattr(obj, "shape", None), getattr(obj, "stride", None)
    if element is not None and shape is not None and callable(stride):
        low, high = _span(shape, [s * element.itemsize for s in stride()], element.itemsize)
        address_low, span = address + low, high - low
    else:
        address_low = address
    storage = _storage_of(obj)
    if storage is not None:
        base, extent = int(storage.data_ptr()), int(storage.nbytes())
    else:
        base, extent = address_low, span
    return Buffer(address, span, base, extent, _data_ptr_location(obj), element, name, obj)


DATA_PTR = Handler("data_ptr", _data_ptr_location, _data_ptr_buffer)


# ---------------------------------------------------------------------------------------------
# Lookup
# ---------------------------------------------------------------------------------------------

_HANDLERS: dict[type, Handler | None] = {}


def handler_for(cls: type) -> Handler | None:
    """How to read arguments of type ``cls`` as pointers, or ``None`` if they are not arrays."""
    try:
        return _HANDLERS[cls]
    except KeyError:
        pass
    except TypeError:  # an unhashable class
        return _find_handler(cls)
    found = _HANDLERS[cls] = _find_handler(cls)
    return found


def _find_handler(cls: type) -> Handler | None:
    if hasattr(cls, "__kernellab_buffer__"):
        return HOOK
    if issubclass(cls, np.ndarray):
        return NUMPY
    if is_torch_tensor_type(cls):
        return TORCH
    if hasattr(cls, "__cuda_array_interface__"):
        return CUDA_ARRAY_INTERFACE
    if hasattr(cls, "__dlpack__") and hasattr(cls, "__dlpack_device__"):
        return DLPACK
    if cls.__name__ == "PyCapsule":
        return CAPSULE
    if callable(getattr(cls, "data_ptr", None)):
        return DATA_PTR
    return None


def is_array(obj: Any) -> bool:
    return handler_for(type(obj)) is not None


def to_buffer(obj: Any, name: str = "") -> Buffer:
    """``obj`` (any accepted array) as a :class:`Buffer` named ``name``."""
    handler = handler_for(type(obj))
    if handler is None:
        raise LaunchError(f"argument {name or '?'} is a pointer parameter; pass an array (numpy, torch, CuPy, "
                          f"anything with __cuda_array_interface__ or DLPack, kl.to_device), not "
                          f"{type(obj).__name__}")
    return handler.buffer(obj, name)


def location_of(obj: Any) -> str | None:
    """Where an array lives (``"cpu"``, ``"cuda:N"``), ``None`` for non-arrays."""
    handler = handler_for(type(obj))
    return None if handler is None else handler.location(obj)


def host_array(obj: Any) -> np.ndarray:
    """A numpy view of a host array (numpy arrays, torch CPU tensors incl. bfloat16)."""
    if isinstance(obj, np.ndarray):
        return obj
    if is_torch_tensor_type(type(obj)) and obj.get_device() < 0:
        return torch_to_numpy(obj)
    raise LaunchError(f"{type(obj).__name__} has no host numpy view; pass a numpy array or a torch CPU tensor")


__all__ = ["Buffer", "Handler", "HOST", "handler_for", "is_array", "to_buffer", "location_of", "host_array",
           "numpy_address", "dtype_of_numpy", "dtype_of_torch", "torch_to_numpy", "torch_location", "is_capsule"]
