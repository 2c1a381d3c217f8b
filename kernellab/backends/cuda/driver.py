"""The CUDA driver API, called in libcuda directly through ctypes.

Why ctypes and not ``cuda.bindings.driver``: importing cuda-bindings costs about 65 ms (measured on
the development machine), which alone is thirteen times the budget for loading a cached kernel in
a new process (5 ms), and every cuda-bindings call converts its arguments to wrapper objects.
libcuda's C entry points through ctypes cost nothing to import and a fraction of a microsecond
per call.  cuda-bindings stays a dependency for users and is the comparison in
``bench/launch_overhead_cuda.py``; nothing here needs it.

What lives here: lazy initialisation, device properties, the primary context of each device,
modules (cubin or PTX) and their functions, function attributes, memory and copies, pointer
attributes and stream handles.  Every call's result is checked; a failure raises
:class:`CudaError` naming the call, the CUDA error and what was asked.  The launch itself is in
``launcher.py``.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_uint, c_uint64, c_void_p
from typing import Any

from ...errors import KernelLabError
from ..record import Record

# CUresult codes the code reacts to (cuda.h).
SUCCESS = 0
ERROR_INVALID_VALUE = 1
ERROR_DEINITIALIZED = 4
ERROR_NO_DEVICE = 100
ERROR_INVALID_CONTEXT = 201
ERROR_CONTEXT_IS_DESTROYED = 709

# CUdevice_attribute values (cuda.h).
_DEVICE_ATTRIBUTES = {
    "max_threads_per_block": 1,
    "max_block_dim_x": 2,
    "max_block_dim_y": 3,
    "max_block_dim_z": 4,
    "max_grid_dim_x": 5,
    "max_grid_dim_y": 6,
    "max_grid_dim_z": 7,
    "max_shared_per_block": 8,
    "total_constant_memory": 9,
    "warp_size": 10,
    "max_registers_per_block": 12,
    "sm_count": 16,
    "memory_bus_width": 37,
    "l2_cache_bytes": 38,
    "max_threads_per_sm": 39,
    "unified_addressing": 41,
    "major": 75,
    "minor": 76,
    "max_shared_per_sm": 81,
    "max_registers_per_sm": 82,
    "max_shared_per_block_optin": 97,
}

# CUfunction_attribute values (cuda.h).
FUNC_MAX_THREADS_PER_BLOCK = 0
FUNC_SHARED_SIZE_BYTES = 1
FUNC_CONST_SIZE_BYTES = 2
FUNC_LOCAL_SIZE_BYTES = 3
FUNC_NUM_REGS = 4
FUNC_PTX_VERSION = 5
FUNC_BINARY_VERSION = 6
FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

# CUpointer_attribute and CUmemorytype values (cuda.h).
POINTER_MEMORY_TYPE = 2
POINTER_DEVICE_POINTER = 3
POINTER_DEVICE_ORDINAL = 9
POINTER_RANGE_START = 11
POINTER_RANGE_SIZE = 12
MEMORYTYPE_HOST = 1
MEMORYTYPE_DEVICE = 2
MEMORYTYPE_ARRAY = 3
MEMORYTYPE_UNIFIED = 4

# CUjit_option values for cuModuleLoadDataEx's logs (cuda.h).
_JIT_INFO_LOG_BUFFER = 3
_JIT_INFO_LOG_BUFFER_SIZE = 4
_JIT_ERROR_LOG_BUFFER = 5
_JIT_ERROR_LOG_BUFFER_SIZE = 6
_JIT_LOG_SIZE = 1 << 14

# Prototypes of the entry points used (the _v2 names are the ones cuda.h maps the plain names to),
# spelled as in cuda.h: the ctypes types are made when the entry point is first used
# (:func:`_argtypes`; each pointer type ctypes makes costs ~0.03 ms, and a launch calls few).
_PROTOTYPES: dict[str, tuple[str, ...]] = {
    "cuInit": ("unsigned",),
    "cuDriverGetVersion": ("int*",),
    "cuGetErrorName": ("int", "char**"),
    "cuGetErrorString": ("int", "char**"),
    "cuDeviceGetCount": ("int*",),
    "cuDeviceGet": ("int*", "int"),
    "cuDeviceGetName": ("char*", "int", "int"),
    "cuDeviceGetAttribute": ("int*", "int", "int"),
    "cuDeviceTotalMem_v2": ("size_t*", "int"),
    "cuDevicePrimaryCtxRetain": ("void**", "int"),
    "cuCtxGetCurrent": ("void**",),
    "cuCtxSetCurrent": ("void*",),
    "cuCtxGetDevice": ("int*",),
    "cuCtxSynchronize": (),
    "cuStreamSynchronize": ("void*",),
    "cuModuleLoadDataEx": ("void**", "void*", "unsigned", "int*", "void**"),
    "cuModuleUnload": ("void*",),
    "cuModuleGetFunction": ("void**", "void*", "char*"),
    "cuFuncGetAttribute": ("int*", "int", "void*"),
    "cuFuncSetAttribute": ("void*", "int", "int"),
    "cuMemAlloc_v2": ("uint64*", "size_t"),
    "cuMemFree_v2": ("uint64",),
    "cuMemGetInfo_v2": ("size_t*", "size_t*"),
    "cuMemcpyHtoD_v2": ("uint64", "void*", "size_t"),
    "cuMemcpyDtoH_v2": ("void*", "uint64", "size_t"),
    "cuMemcpyDtoD_v2": ("uint64", "uint64", "size_t"),
    "cuMemsetD8_v2": ("uint64", "uchar", "size_t"),
    "cuPointerGetAttribute": ("void*", "int", "uint64"),
    "cuTensorMapEncodeTiled": ("void*", "int", "unsigned", "void*", "uint64*", "uint64*", "unsigned*", "unsigned*",
                               "int", "int", "int", "int"),
    "cuStreamCreate": ("void**", "unsigned"),
    "cuStreamDestroy_v2": ("void*",),
    "cuStreamBeginCapture_v2": ("void*", "int"),
    "cuStreamEndCapture": ("void*", "void**"),
    "cuGraphInstantiateWithFlags": ("void**", "void*", "uint64"),
    "cuGraphLaunch": ("void*", "void*"),
    "cuGraphExecDestroy": ("void*",),
    "cuGraphDestroy": ("void*",),
    "cuEventCreate": ("void**", "unsigned"),
    "cuEventRecord": ("void*", "void*"),
    "cuEventSynchronize": ("void*",),
    "cuEventElapsedTime": ("float*", "void*", "void*"),
    "cuEventDestroy_v2": ("void*",),
}
_C_TYPES = {"int": c_int, "unsigned": c_uint, "uchar": ctypes.c_ubyte, "size_t": c_size_t, "uint64": c_uint64,
            "float": ctypes.c_float, "void*": c_void_p, "char*": c_char_p}


def _argtypes(spellings: tuple[str, ...]) -> tuple:
    """The ctypes types of a prototype's cuda.h spellings: ``int`` -> ``c_int``, ``int*`` ->
    ``POINTER(c_int)`` (``void*`` and ``char*`` are ``c_void_p`` and ``c_char_p``)."""
    types = []
    for spelling in spellings:  # a plain loop: a generator cost a cached launch's 13 prototypes ~0.01 ms more
        found = _C_TYPES.get(spelling)
        types.append(POINTER(_C_TYPES[spelling[:-1]]) if found is None else found)
    return tuple(types)


class CudaError(KernelLabError):
    """A CUDA driver call failed.  ``code`` is the CUresult, ``call`` the entry point."""

    def __init__(self, call: str, code: int, detail: str = ""):
        self.call = call
        self.code = code
        name, text = error_text(code)
        message = f"{call} failed with {name} ({code}): {text}"
        super().__init__(f"{message}; {detail}" if detail else message)


CUDA_ERROR_ASSERT = 710


def cuda_error(call: str, code: int, detail: str = "") -> CudaError:
    """The exception for a failed driver call: a ``device_assert.DeviceAssertError`` (a
    KernelAssertionError too) for a device assert."""
    if code == CUDA_ERROR_ASSERT:
        from .device_assert import DeviceAssertError  # a device assert only: its class is not made before

        return DeviceAssertError(call, code)
    return CudaError(call, code, detail)


class NoDevice(KernelLabError):
    """No CUDA driver or no CUDA device on this machine."""


# ---------------------------------------------------------------------------------------------
# The library
# ---------------------------------------------------------------------------------------------

_LIBRARY_NAMES = ("nvcuda.dll",) if sys.platform == "win32" else ("libcuda.so.1", "libcuda.so")


@functools.cache
def library() -> ctypes.CDLL:
    """libcuda; :class:`NoDevice` without one.  Call its entry points through
    :func:`entry_point`, which gives them their prototypes."""
    errors = []
    for name in _LIBRARY_NAMES:
        try:
            return ctypes.CDLL(name)
        except OSError as error:
            errors.append(str(error))
    raise NoDevice("the CUDA driver (libcuda) is not installed on this machine, so nothing can run on an NVIDIA "
                   "GPU here: host arrays (numpy, CPU torch tensors) run on the CPU target, and compiling for "
                   "CUDA needs no driver (kl.compile(..., target=\"cuda:sm_90a\")). The loader said: " +
                   "; ".join(errors))


_typed: set[str] = set()


def entry_point(name: str) -> Any:
    """libcuda's ``name``, with its prototype from ``_PROTOTYPES`` set on first use (setting all
    of them when the library loads cost ~0.1 ms of a new process's first launch, which uses
    fewer than half).  Entry points without a prototype here are returned as they are."""
    function = getattr(library(), name)
    if name not in _typed:
        spellings = _PROTOTYPES.get(name)
        if spellings is not None:
            function.argtypes = _argtypes(spellings)
            function.restype = c_int
        _typed.add(name)
    return function


@functools.cache
def launch_entry() -> Any:
    """``cuLaunchKernelEx(const CUlaunchConfig*, CUfunction, void** params, void** extra)``,
    called with the GIL held (like any other Python-level operation, the launch is then atomic
    with respect to other Python threads, and there is no thread-state switch to pay for): a
    function pointer of ``ctypes.pythonapi``'s type (a PyDLL's), made from the entry point's
    address.  A PyDLL of libcuda for it made a ctypes class of its own (~0.04 ms of a cached
    first launch)."""
    address = ctypes.cast(library().cuLaunchKernelEx, c_void_p).value
    function = ctypes.pythonapi._FuncPtr(address)
    function.argtypes = (c_void_p, c_void_p, c_void_p, c_void_p)
    function.restype = c_int
    return function


@functools.cache
def launch_kernel_address() -> int:
    """The address of ``cuLaunchKernel``, for generated code that calls it directly (the
    native launch path)."""
    return ctypes.cast(library().cuLaunchKernel, c_void_p).value


def error_text(code: int) -> tuple[str, str]:
    """(``CUDA_ERROR_...`` name, description) of a CUresult."""
    try:
        get_name, get_text = entry_point("cuGetErrorName"), entry_point("cuGetErrorString")
    except NoDevice:
        return f"CUDA error {code}", "unknown"
    name, text = c_char_p(), c_char_p()
    if get_name(code, byref(name)) != SUCCESS or not name.value:
        return f"CUDA error {code}", "unknown error code"
    get_text(code, byref(text))
    return name.value.decode(), (text.value or b"").decode()


def call(entry: str, *args: Any, detail: str = "") -> None:
    """Call ``entry`` in libcuda and raise :class:`CudaError` unless it succeeds."""
    code = entry_point(entry)(*args)
    if code != SUCCESS:
        raise cuda_error(entry, code, detail)


# ---------------------------------------------------------------------------------------------
# Initialisation and devices
# ---------------------------------------------------------------------------------------------

_init_lock = threading.Lock()
_initialized = False


def init() -> None:
    """``cuInit`` once per process; :class:`NoDevice` when there is no driver or no device."""
    global _initialized
    if _initialized:
        return
    with _init_lock:
        if _initialized:
            return
        code = entry_point("cuInit")(0)
        if code == ERROR_NO_DEVICE:
            raise NoDevice("the CUDA driver found no device (CUDA_ERROR_NO_DEVICE)")
        if code != SUCCESS:
            raise CudaError("cuInit", code)
        _initialized = True


@functools.cache
def available() -> bool:
    """Whether a CUDA device can be used (driver present, initialised, at least one device)."""
    try:
        return device_count() > 0
    except (NoDevice, CudaError):
        return False


def device_count() -> int:
    init()
    count = c_int()
    call("cuDeviceGetCount", byref(count))
    return count.value


def driver_version() -> tuple[int, int]:
    """The CUDA version the driver supports, e.g. (13, 0)."""
    version = c_int()
    call("cuDriverGetVersion", byref(version))
    return version.value // 1000, (version.value % 1000) // 10


def _device(ordinal: int) -> int:
    init()
    count = device_count()
    if not isinstance(ordinal, int) or not 0 <= ordinal < count:
        raise ValueError(f"CUDA device {ordinal!r} does not exist; this machine has devices 0..{count - 1}")
    handle = c_int()
    call("cuDeviceGet", byref(handle), ordinal)
    return handle.value


class DeviceProperties(Record):
    """What the compiler and the launcher need to know about a device.  Tests build one by hand
    (every limit is a plain field, given by keyword) to check launches without a device."""

    __slots__ = ("name", "ordinal", "major", "minor", "sm_count", "warp_size", "max_threads_per_block",
                 "max_block_dim", "max_grid_dim", "max_shared_per_block", "max_shared_per_block_optin",
                 "max_shared_per_sm", "max_registers_per_block", "max_registers_per_sm", "max_threads_per_sm",
                 "l2_cache_bytes", "total_memory", "memory_bus_width")
    _defaults = {"l2_cache_bytes": 0, "total_memory": 0, "memory_bus_width": 0}
    name: str
    ordinal: int
    major: int
    minor: int
    sm_count: int
    warp_size: int
    max_threads_per_block: int
    max_block_dim: tuple[int, int, int]
    max_grid_dim: tuple[int, int, int]
    max_shared_per_block: int
    max_shared_per_block_optin: int
    max_shared_per_sm: int
    max_registers_per_block: int
    max_registers_per_sm: int
    max_threads_per_sm: int
    l2_cache_bytes: int
    total_memory: int
    memory_bus_width: int

    @property
    def compute_capability(self) -> tuple[int, int]:
        return self.major, self.minor

    @property
    def arch(self) -> str:
        """The PTX target for this device: ``sm_90a`` on Hopper (the ``a`` variants unlock the
        architecture-specific instructions from compute capability 9.0 on)."""
        return arch_of(self.major, self.minor)


def arch_of(major: int, minor: int) -> str:
    suffix = "a" if major >= 9 else ""
    return f"sm_{major}{minor}{suffix}"


@functools.cache
def properties(ordinal: int = 0) -> DeviceProperties:
    """The properties of device ``ordinal`` (read once per process)."""
    device = _device(ordinal)
    value = c_int()
    pointer = byref(value)
    get = entry_point("cuDeviceGetAttribute")
    read = {}
    for key, attribute in _DEVICE_ATTRIBUTES.items():  # the entry point itself: 23 calls, in the first launch
        code = get(pointer, attribute, device)
        if code != SUCCESS:
            raise cuda_error("cuDeviceGetAttribute", code, key)
        read[key] = value.value
    name = ctypes.create_string_buffer(256)
    call("cuDeviceGetName", name, 256, device)
    total = c_size_t()
    call("cuDeviceTotalMem_v2", byref(total), device)
    return DeviceProperties(
        name=name.value.decode(), ordinal=ordinal, major=read["major"], minor=read["minor"],
        sm_count=read["sm_count"], warp_size=read["warp_size"],
        max_threads_per_block=read["max_threads_per_block"],
        max_block_dim=(read["max_block_dim_x"], read["max_block_dim_y"], read["max_block_dim_z"]),
        max_grid_dim=(read["max_grid_dim_x"], read["max_grid_dim_y"], read["max_grid_dim_z"]),
        max_shared_per_block=read["max_shared_per_block"],
        max_shared_per_block_optin=read["max_shared_per_block_optin"],
        max_shared_per_sm=read["max_shared_per_sm"], max_registers_per_block=read["max_registers_per_block"],
        max_registers_per_sm=read["max_registers_per_sm"], max_threads_per_sm=read["max_threads_per_sm"],
        l2_cache_bytes=read["l2_cache_bytes"], total_memory=total.value, memory_bus_width=read["memory_bus_width"])


_CLOCK_ATTRIBUTES = (13, 36)  # CU_DEVICE_ATTRIBUTE_CLOCK_RATE, _MEMORY_CLOCK_RATE


@functools.cache
def clocks_khz(ordinal: int = 0) -> tuple[int, int]:
    """Device ``ordinal``'s SM and memory clocks in kHz.  Apart from :func:`properties`: on the
    H200 these two queries took 0.35-0.57 ms each, against ~1 us for any other attribute, and no
    launch needs them."""
    device = _device(ordinal)
    value = c_int()
    read = []
    for attribute in _CLOCK_ATTRIBUTES:
        call("cuDeviceGetAttribute", byref(value), attribute, device)
        read.append(value.value)
    return read[0], read[1]


# ---------------------------------------------------------------------------------------------
# Contexts: one primary context per device, shared with torch, CuPy and the CUDA runtime
# ---------------------------------------------------------------------------------------------

_contexts: dict[int, int] = {}
_context_lock = threading.Lock()


def primary_context(ordinal: int = 0) -> int:
    """The handle of device ``ordinal``'s primary context (retained once per process)."""
    found = _contexts.get(ordinal)
    if found is not None:
        return found
    with _context_lock:
        if ordinal not in _contexts:
            device = _device(ordinal)
            handle = c_void_p()
            call("cuDevicePrimaryCtxRetain", byref(handle), device)
            _contexts[ordinal] = handle.value
    return _contexts[ordinal]


def activate(ordinal: int = 0) -> int:
    """Make device ``ordinal``'s primary context current on this thread; return its handle."""
    context = primary_context(ordinal)
    current = c_void_p()
    call("cuCtxGetCurrent", byref(current))
    if current.value != context:
        call("cuCtxSetCurrent", c_void_p(context))
    return context


def current_device() -> int | None:
    """The device of this thread's current context, or None when no context is current (the
    driver is initialised first: asked before any launch, as Triton's test helpers ask
    ``driver.active.get_current_target()`` at import, cuCtxGetCurrent would fail)."""
    init()
    current = c_void_p()
    call("cuCtxGetCurrent", byref(current))
    if not current.value:
        return None
    device = c_int()
    call("cuCtxGetDevice", byref(device))
    return device.value


def synchronize(ordinal: int = 0) -> None:
    """Wait for all work on device ``ordinal``."""
    activate(ordinal)
    call("cuCtxSynchronize")


def stream_synchronize(stream: int) -> None:
    call("cuStreamSynchronize", c_void_p(stream))


def event_create() -> int:
    """A new CUDA event (with timing) on the current context."""
    handle = c_void_p()
    call("cuEventCreate", byref(handle), 0)
    return handle.value


def event_record(event: int, stream: int) -> None:
    call("cuEventRecord", c_void_p(event), c_void_p(stream or None))


def event_elapsed_ms(start: int, end: int) -> float:
    """Milliseconds between two recorded events, once ``end`` has happened."""
    call("cuEventSynchronize", c_void_p(end))
    elapsed = ctypes.c_float()
    call("cuEventElapsedTime", byref(elapsed), c_void_p(start), c_void_p(end))
    return float(elapsed.value)


def event_destroy(event: int) -> None:
    call("cuEventDestroy_v2", c_void_p(event))


# ---------------------------------------------------------------------------------------------
# Modules and functions
# ---------------------------------------------------------------------------------------------

class Module:
    """A loaded module (cubin or PTX) on one device; unloaded when garbage collected."""

    def __init__(self, handle: int, ordinal: int):
        self.handle = handle
        self.ordinal = ordinal
        self._finalizer = weakref.finalize(self, _unload, handle)

    def function(self, name: str) -> int:
        """The CUfunction handle of kernel ``name`` in this module."""
        handle = c_void_p()
        call("cuModuleGetFunction", byref(handle), c_void_p(self.handle), name.encode(),
             detail=f"no kernel named {name!r} in the module")
        return handle.value


def _unload(handle: int) -> None:
    try:
        entry_point("cuModuleUnload")(c_void_p(handle))
    except Exception:  # at interpreter exit the driver may already be gone
        pass


def load_module(image: bytes | str, ordinal: int = 0) -> Module:
    """Load a cubin (ELF bytes) or PTX (text) into device ``ordinal``'s primary context.

    PTX is compiled by the driver's JIT; a PTX or cubin the driver rejects raises
    :class:`CudaError` with the JIT's error log."""
    activate(ordinal)
    data = _module_image(image)
    handle = c_void_p()
    code = entry_point("cuModuleLoadDataEx")(byref(handle), data, 0, None, None)
    if code != SUCCESS:
        log = _load_error_log(data)
        kind = "PTX" if isinstance(image, str) or not image.startswith(b"\x7fELF") else "cubin"
        raise CudaError("cuModuleLoadDataEx", code, f"loading a {kind} of {len(data)} bytes"
                        + (f"; JIT log:\n{log}" if log else ""))
    return Module(handle.value, ordinal)


def _load_error_log(data: bytes) -> str:
    """The JIT's error log for an image the driver refused: it is loaded again with log
    buffers (a load that succeeds passes none: allocating them cost ~0.05 ms per load)."""
    error_log = ctypes.create_string_buffer(_JIT_LOG_SIZE)
    info_log = ctypes.create_string_buffer(_JIT_LOG_SIZE)
    options = (c_int * 4)(_JIT_ERROR_LOG_BUFFER, _JIT_ERROR_LOG_BUFFER_SIZE, _JIT_INFO_LOG_BUFFER,
                          _JIT_INFO_LOG_BUFFER_SIZE)
    values = (c_void_p * 4)(ctypes.addressof(error_log), _JIT_LOG_SIZE, ctypes.addressof(info_log),
                            _JIT_LOG_SIZE)
    handle = c_void_p()
    if entry_point("cuModuleLoadDataEx")(byref(handle), data, 4, options, values) == SUCCESS:
        entry_point("cuModuleUnload")(handle)  # it loaded this time: nothing to report
        return ""
    return error_log.value.decode(errors="replace").strip()


def _module_image(image: bytes | str) -> bytes:
    if isinstance(image, str):
        image = image.encode()
    if not isinstance(image, bytes | bytearray) or not image:
        raise TypeError(f"a module image is cubin bytes or PTX text, got {type(image).__name__}")
    if image.startswith(b"\x7fELF"):
        return bytes(image)
    return bytes(image) if image.endswith(b"\0") else bytes(image) + b"\0"


def function_attribute(function: int, attribute: int) -> int:
    value = c_int()
    call("cuFuncGetAttribute", byref(value), attribute, c_void_p(function))
    return value.value


def function_resources(function: int) -> dict[str, int]:
    """Registers, static shared memory, local memory (stack + spills) and the most threads a
    block of this function can have, as the driver sees the loaded code."""
    return {
        "registers": function_attribute(function, FUNC_NUM_REGS),
        "shared_static": function_attribute(function, FUNC_SHARED_SIZE_BYTES),
        "local_bytes": function_attribute(function, FUNC_LOCAL_SIZE_BYTES),
        "max_threads_per_block": function_attribute(function, FUNC_MAX_THREADS_PER_BLOCK),
        "binary_version": function_attribute(function, FUNC_BINARY_VERSION),
    }


TENSOR_MAP_BYTES = 128
_L2_PROMOTION_128B = 2  # CUtensorMapL2promotion


def encode_tensor_map(data_type: int, address: int, dims: list[int], strides: list[int], box: list[int],
                      swizzle: int, nan_fill: bool) -> bytes:
    """A CUtensorMap (``cuTensorMapEncodeTiled``) for a tiled copy of a tensor at ``address``:
    ``dims``, ``box`` innermost first (elements), ``strides`` the byte strides of every dim but
    the innermost; ``swizzle`` and ``data_type`` are the driver's enum values."""
    rank = len(dims)
    storage = ctypes.create_string_buffer(TENSOR_MAP_BYTES + 64)
    aligned = (ctypes.addressof(storage) + 63) & ~63  # a CUtensorMap is 64-byte aligned
    detail = (f"encoding the tensor map of a {rank}-D tensor at {address:#x}: dims {dims}, byte strides "
              f"{strides}, box {box} (TMA needs a 16-byte aligned base and strides that are multiples of 16 "
              "bytes)")
    call("cuTensorMapEncodeTiled", c_void_p(aligned), data_type, rank, c_void_p(address),
         (c_uint64 * rank)(*dims), (c_uint64 * max(rank - 1, 1))(*strides), (c_uint * rank)(*box),
         (c_uint * rank)(*([1] * rank)), 0, swizzle, _L2_PROMOTION_128B, 1 if nan_fill else 0, detail=detail)
    return ctypes.string_at(aligned, TENSOR_MAP_BYTES)


def set_max_dynamic_shared(function: int, nbytes: int) -> None:
    """Allow ``nbytes`` of dynamic shared memory (needed above the default 48 KiB)."""
    call("cuFuncSetAttribute", c_void_p(function), FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(nbytes),
         detail=f"asking for {nbytes} bytes of dynamic shared memory")


# ---------------------------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------------------------

def mem_alloc(nbytes: int, ordinal: int = 0) -> int:
    """``nbytes`` of device memory (at least 1 byte is allocated); the address."""
    activate(ordinal)
    pointer = c_uint64()
    call("cuMemAlloc_v2", byref(pointer), max(int(nbytes), 1), detail=f"allocating {nbytes} bytes")
    return pointer.value


def mem_free(pointer: int, ordinal: int = 0) -> None:
    activate(ordinal)
    call("cuMemFree_v2", pointer)


def mem_info(ordinal: int = 0) -> tuple[int, int]:
    """(free, total) bytes of device memory."""
    activate(ordinal)
    free, total = c_size_t(), c_size_t()
    call("cuMemGetInfo_v2", byref(free), byref(total))
    return free.value, total.value


def copy_host_to_device(dst: int, src: int, nbytes: int) -> None:
    call("cuMemcpyHtoD_v2", dst, c_void_p(src), nbytes)


def copy_device_to_host(dst: int, src: int, nbytes: int) -> None:
    call("cuMemcpyDtoH_v2", c_void_p(dst), src, nbytes)


def copy_device_to_device(dst: int, src: int, nbytes: int) -> None:
    call("cuMemcpyDtoD_v2", dst, src, nbytes)


def memset_bytes(pointer: int, value: int, nbytes: int) -> None:
    call("cuMemsetD8_v2", pointer, value, nbytes)


class PointerInfo(Record):
    """What the driver says about an address: its memory type (MEMORYTYPE_HOST / DEVICE /
    UNIFIED), the ordinal of the device it belongs to, and the allocation it lies in."""

    __slots__ = ("memory_type", "device", "start", "size")
    memory_type: int
    device: int
    start: int
    size: int


def pointer_info(address: int) -> PointerInfo | None:
    """What the driver knows of ``address``, or None when a kernel cannot reach it: plain
    (pageable) host memory, which a kernel must never be given.  Device, managed and pinned
    host memory (reached through unified addressing) have a device address and are usable."""
    init()
    get = entry_point("cuPointerGetAttribute")
    device_address = c_uint64()
    code = get(byref(device_address), POINTER_DEVICE_POINTER, address)
    if code == ERROR_INVALID_VALUE:
        return None
    if code != SUCCESS:
        raise CudaError("cuPointerGetAttribute", code, f"asking about address {address:#x}")
    memory_type, ordinal = c_uint(), c_int()
    start, size = c_uint64(), c_size_t()
    get(byref(memory_type), POINTER_MEMORY_TYPE, address)
    get(byref(ordinal), POINTER_DEVICE_ORDINAL, address)
    get(byref(start), POINTER_RANGE_START, address)
    get(byref(size), POINTER_RANGE_SIZE, address)
    return PointerInfo(memory_type.value, ordinal.value, start.value, size.value)


def reachability_check() -> Any:
    """``reachable(address)``: whether a kernel can read ``address`` (not plain pageable host
    memory), in one driver call, as Triton's launcher asks of every pointer on every launch; the
    fast path of a ``debug=True`` kernel asks it (the first launch made :func:`pointer_info`'s full
    check, which also names the device)."""
    init()
    get, scratch = entry_point("cuPointerGetAttribute"), c_uint64()
    where = byref(scratch)

    def reachable(address: int) -> bool:
        return get(where, POINTER_DEVICE_POINTER, address) != ERROR_INVALID_VALUE

    return reachable


# ---------------------------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------------------------

_torch_stream: list = []  # torch's current-stream function, once torch has initialised CUDA
_stream_stack: list[int] = []  # streams made current by launches_on (innermost last)


def current_stream(ordinal: int) -> int:
    """The stream a launch without an explicit one goes on: torch's current stream of device
    ``ordinal`` when torch is imported and has initialised CUDA (as in Triton: ``with
    torch.cuda.stream(s): kernel[grid](...)`` runs on ``s``), else the innermost
    :func:`launches_on` stream, else the legacy default stream 0 (torch's default stream too)."""
    if _torch_stream:
        return _torch_stream[0](ordinal)
    if _stream_stack:
        return _stream_stack[-1]
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    cuda = getattr(torch, "cuda", None)
    if getattr(cuda, "_initialized", None) is False:  # torch's own flag: a cheap "not yet" (~0.05 us)
        return 0
    getter = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if cuda is None or getter is None or not cuda.is_initialized():
        return 0
    _torch_stream.append(getter)
    return getter(ordinal)


@contextlib.contextmanager
def launches_on(handle: int) -> Iterator[None]:
    """Launches without an explicit stream go on ``handle`` inside the block (unless torch has
    initialised CUDA: torch's current stream decides then, as in Triton).  Not thread-aware:
    meant for a graph capture, which runs its launches on the capturing thread."""
    _stream_stack.append(handle)
    try:
        yield
    finally:
        _stream_stack.pop()


def current_stream_function() -> Callable[[int], int]:
    """:func:`current_stream`, or torch's own getter (a C function, cheaper to call) once torch
    has initialised CUDA."""
    current_stream(0)
    return _torch_stream[0] if _torch_stream else current_stream


def stream_handle(stream: Any) -> int:
    """The CUstream handle (an int; 0 = the legacy default stream) of any stream object:
    an int, None, torch's ``torch.cuda.Stream`` (``cuda_stream``), CuPy's (``ptr``), cuda.core's
    (``__cuda_stream__()`` or ``handle``), or a cuda-bindings ``CUstream`` (``int()``)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if callable(protocol):
        return int(protocol()[1])
    for attribute in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attribute, None)
        if value is not None:
            return int(value)
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise TypeError(f"{type(stream).__name__} is not a CUDA stream; pass an int handle, None (the "
                        "default stream), or a torch/CuPy/cuda.core stream") from None


__all__ = [
    "CudaError", "NoDevice", "DeviceProperties", "Module", "PointerInfo", "available", "init", "device_count",
    "driver_version", "properties", "clocks_khz", "primary_context", "activate", "current_device", "synchronize",
    "stream_synchronize", "event_create", "event_record", "event_elapsed_ms", "event_destroy", "load_module",
    "function_attribute", "function_resources", "set_max_dynamic_shared",
    "mem_alloc", "mem_free", "mem_info", "copy_host_to_device", "copy_device_to_host", "copy_device_to_device",
    "memset_bytes", "pointer_info", "stream_handle", "current_stream", "current_stream_function", "launches_on",
    "launch_entry", "launch_kernel_address", "arch_of", "error_text", "library", "entry_point", "call",
]
