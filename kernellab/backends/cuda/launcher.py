"""Launching a loaded CUDA kernel, as cheaply as Python allows.

One launch is one ``struct.pack_into`` and one call of libcuda's ``cuLaunchKernelEx`` through
ctypes.  Each kernel owns one buffer that holds its ``CUlaunchConfig`` (grid, block, dynamic
shared memory, stream) followed by its parameters, and a ``void*[]`` that points at each
parameter in that buffer; both are built once at load.  A launch rewrites the buffer with a
single precompiled ``struct.Struct.pack_into`` and passes the two addresses.  The Python code of
the fast path is generated once per signature (number and kinds of parameters) and bound per
kernel; the measurements behind this choice are in ``bench/NOTES.md``.

Everything unusual leaves the fast path for :meth:`CudaLauncher._slow_launch`, which checks
and explains: a grid of 1 or 2 dimensions, a grid over the device's limits (:class:`LaunchError`
before anything runs), an empty grid (nothing runs), host arrays or objects instead of device
addresses, scalars that do not fit their parameter, stream objects, the first launch of a
kernel (every pointer is then checked with the driver: memory kind and device) and launches
from a second thread (given their own buffer, so two threads never share one).  A ``debug=True``
kernel's fast path asks the driver whether each pointer is reachable (one call each, as
Triton's launcher does on every launch) and leaves for the slow path, which explains, if not.
The fast path is made at the second launch of the thread that launched first (a kernel launched
once never pays for it: 0.16 ms of a new process's first launch).

Resource checks that need no device are plain functions (:func:`normalize_grid`,
:func:`check_resources`) so they are tested without a GPU.
"""

from __future__ import annotations

import ctypes
import functools
import struct
import threading
from _thread import get_ident
from collections.abc import Sequence
from typing import Any

from ...codecache import compile_cached
from ...errors import LaunchError, OutOfResources
from ...ir import types as ir_types
from ..record import Record
from . import driver
from .driver import DeviceProperties

# CUlaunchConfig (cuda.h): gridDim x/y/z, blockDim x/y/z, sharedMemBytes, hStream, attrs, numAttrs.
CONFIG_FORMAT = "@IIIIIIIPPI"

_LAUNCH_OUT_OF_RESOURCES = 701

# CUlaunchAttribute (cuda.h): a 4-byte CUlaunchAttributeID, 4 bytes of padding, a 64-byte value
# union; the attributes a kernel's options ask for, by option name: (CUlaunchAttributeID, int value)
ATTRIBUTE_FORMAT = "@I4xi60x"
LAUNCH_ATTRIBUTES = {"launch_cooperative_grid": 2,  # CU_LAUNCH_ATTRIBUTE_COOPERATIVE
                     "launch_pdl": 6}  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION


# ---------------------------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------------------------

class Param(Record):
    """One kernel parameter: its type and how it is stored in the parameter buffer.  Integers
    narrower than 32 bits are stored in 4 bytes (the driver copies the parameter's own size,
    which on a little-endian machine reads the low bytes)."""

    __slots__ = ("type", "code", "kind")
    type: ir_types.Type
    code: str            # struct code
    kind: str            # "pointer", "int", "float", "bf16"

    @property
    def spelling(self) -> str:
        return ir_types.to_signature(self.type)


_INT_CODES = {8: "i", 16: "i", 32: "i", 64: "q"}
_UINT_CODES = {8: "I", 16: "I", 32: "I", 64: "Q"}
_FLOAT_CODES = {16: "e", 32: "f", 64: "d"}


_BY_SPELLING: dict[str, Param] = {}  # a type's spelling -> its Param (read-only records, shared; a few types)


def param_of(spelling: Any) -> Param:
    """The parameter for a type: an ``ir.types.Type``, a Triton signature (``*fp32``, ``i32``)
    or a printed Tile IR type (``ptr<f32>``)."""
    if isinstance(spelling, ir_types.Type):
        return _param_of_type(spelling)
    text = str(spelling)
    found = _BY_SPELLING.get(text)
    if found is None:  # parsed once per spelling: a kernel's pointers often share one ("*fp32")
        found = _BY_SPELLING[text] = _param_of_type(_parse_type(text))
    return found


def _param_of_type(ty: ir_types.Type) -> Param:
    if isinstance(ty, ir_types.PointerType):
        return Param(ty, "Q", "pointer")
    if not isinstance(ty, ir_types.ScalarType):
        raise LaunchError(f"the CUDA launcher cannot pass a parameter of type {ty} (tensor descriptors and "
                          "tiles are not kernel parameters it supports); pass pointers and scalars")
    if ty is ir_types.i1:
        return Param(ty, "i", "int")
    if ty.is_bf16():
        return Param(ty, "H", "bf16")
    if ty.is_floating() and ty.primitive_bitwidth in _FLOAT_CODES:
        return Param(ty, _FLOAT_CODES[ty.primitive_bitwidth], "float")
    if ty.is_int_unsigned():
        return Param(ty, _UINT_CODES[ty.primitive_bitwidth], "int")
    if ty.is_int():
        return Param(ty, _INT_CODES[ty.primitive_bitwidth], "int")
    raise LaunchError(f"the CUDA launcher cannot pass a scalar of type {ty}; scalars are ints, fp16, bf16, "
                      "fp32 or fp64")


def _parse_type(text: str) -> ir_types.Type:
    try:
        return ir_types.from_signature(text)
    except ValueError:
        return ir_types.parse_type(text)


def params_of(arg_types: Sequence[Any]) -> tuple[Param, ...]:
    return tuple(param_of(t) for t in arg_types)


def bf16_bits(value: float) -> int:
    """The bfloat16 bits of ``value`` (round to nearest even; NaN stays NaN)."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF:
        return ((bits >> 16) | 0x40) & 0xFFFF
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


# ---------------------------------------------------------------------------------------------
# Checks that need no device
# ---------------------------------------------------------------------------------------------

def normalize_grid(grid: Any, properties: DeviceProperties) -> tuple[int, int, int] | None:
    """(x, y, z) of a grid of one to three non-negative ints, or None when it has no program
    (a zero dimension: nothing runs, as in Triton).  :class:`LaunchError` otherwise, naming the
    device's limit."""
    if isinstance(grid, int):
        grid = (grid,)
    try:
        dims = [int(d.__index__()) for d in grid]
    except (TypeError, AttributeError):
        raise LaunchError(f"a grid is a tuple of 1 to 3 ints, got {grid!r}") from None
    if not 1 <= len(dims) <= 3:
        raise LaunchError(f"a grid has 1 to 3 dimensions, got {len(dims)}: {tuple(dims)}")
    dims += [1] * (3 - len(dims))
    for axis, (size, limit) in enumerate(zip(dims, properties.max_grid_dim)):
        if size < 0:
            raise LaunchError(f"grid dimension {axis} is {size}; grid dimensions cannot be negative")
        if size > limit:
            raise LaunchError(f"grid dimension {axis} is {size}, over the device's limit of {limit} "
                              f"({properties.name}: grid limits are {properties.max_grid_dim}); "
                              "use fewer, larger programs or another axis")
    if 0 in dims:
        return None
    return dims[0], dims[1], dims[2]


def threads_per_block(metadata: dict, properties: DeviceProperties) -> int:
    if "threads_per_block" in metadata:
        return int(metadata["threads_per_block"])
    return int(metadata.get("num_warps", 4)) * properties.warp_size


def check_resources(metadata: dict, properties: DeviceProperties, loaded: dict | None = None) -> None:
    """Raise :class:`OutOfResources` when the kernel needs more threads or shared memory per
    block than ``properties`` allow.  ``loaded`` (``driver.function_resources``) adds what the
    driver knows once the code is loaded: static shared memory and the most threads a block can
    have with the kernel's register count."""
    threads = threads_per_block(metadata, properties)
    if threads > properties.max_threads_per_block:
        raise OutOfResources(threads, properties.max_threads_per_block, "threads per block")
    static = (loaded or {}).get("shared_static", metadata.get("shared_static", 0))
    shared = int(metadata.get("shared", 0)) + int(static)
    if shared > properties.max_shared_per_block_optin:
        raise OutOfResources(shared, properties.max_shared_per_block_optin, "shared memory")
    if loaded and threads > loaded["max_threads_per_block"]:
        raise OutOfResources(threads, loaded["max_threads_per_block"],
                             f"threads per block with {loaded['registers']} registers per thread")


# ---------------------------------------------------------------------------------------------
# The fast path, generated once per signature
# ---------------------------------------------------------------------------------------------

_FAST_PATH = '''
def bind(pack, buffer, config, function, params, launch, block, shared, max_x, max_y, max_z, errors,
         bf16_bits, current_stream, device, reachable):
    owner = None

    def set_owner(thread):
        nonlocal owner
        owner = thread

    def __call__(self, grid, args, stream=None):
        try:
            gx, gy, gz = grid
            {unpack} = args
{check}{convert}            handle = current_stream(device) if stream is None else stream
            pack(buffer, 0, gx, gy, gz, block, 1, 1, shared, handle, 0, 0{names})
        except errors:
            return self._slow_launch(grid, args, stream)
        if gx > max_x or gy > max_y or gz > max_z or get_ident() != owner:
            return self._slow_launch(grid, args, stream)
        code = launch(config, function, params, None)
        if code:
            self._failed(code, grid, args, stream)

    return __call__, set_owner
'''


@functools.cache
def _fast_path_binder(kinds: tuple[str, ...], checked: bool = False) -> Any:
    """The function that binds one kernel's constants into its fast path (one per signature);
    ``checked`` (``debug=True``): every pointer is asked of the driver first, and one a kernel
    cannot reach takes the slow path, which reports it."""
    names = [f"a{i}" for i in range(len(kinds))]
    unpack = "[]" if not names else ", ".join(names) + ("," if len(names) == 1 else "")
    check = "".join(f"            if {n} and not reachable({n}):\n                return self._slow_launch(grid, args, "
                    "stream)\n" for n, k in zip(names, kinds) if checked and k == "pointer")
    convert = "".join(f"            {n} = bf16_bits({n})\n" for n, k in zip(names, kinds) if k == "bf16")
    source = _FAST_PATH.format(unpack=unpack, check=check, convert=convert, names="".join(", " + n for n in names))
    scope: dict[str, Any] = {"get_ident": get_ident}
    label = f"{','.join(kinds) or 'no args'}{', checked' if checked else ''}"
    exec(compile_cached(source, f"<kernellab cuda launcher {label}>"), scope)
    return scope["bind"]


_FAST_PATH_ERRORS = (TypeError, ValueError, OverflowError, struct.error)
_claim_lock = threading.Lock()


# ---------------------------------------------------------------------------------------------
# The launcher
# ---------------------------------------------------------------------------------------------

class _LaunchBuffer:
    """A parameter buffer (config + parameters) and the ``void*[]`` pointing into it, as
    bytearrays (never resized, so their memory stays put; pymalloc aligns it to 16 bytes).  A
    ctypes array would make a new array type for each size it meets, ~20 us in a new process's
    first launch; the ``array`` module is an extension to load, 0.35 ms."""

    def __init__(self, layout: struct.Struct, offsets: list[int]):
        self.storage = bytearray(8 * ((layout.size + 7) // 8))
        self._views = [ctypes.c_char.from_buffer(self.storage)]  # also keeps the buffer from resizing
        self.address = ctypes.addressof(self._views[0])
        self.pointers = bytearray(8 * max(len(offsets), 1))
        struct.pack_into(f"{len(offsets)}P", self.pointers, 0, *[self.address + o for o in offsets])
        self._views.append(ctypes.c_char.from_buffer(self.pointers))
        self.pointers_address = ctypes.addressof(self._views[1])


class LaunchAttributes:
    """The ``CUlaunchAttribute`` array a kernel's options ask ``cuLaunchKernelEx`` for (Triton's
    ``launch_cooperative_grid`` and ``launch_pdl``), kept in memory for the launcher's life."""

    __slots__ = ("storage", "count", "_view")

    def __init__(self, ids: list[int]):
        size = struct.calcsize(ATTRIBUTE_FORMAT)
        self.storage = bytearray(size * len(ids))
        for i, attribute in enumerate(ids):
            struct.pack_into(ATTRIBUTE_FORMAT, self.storage, i * size, attribute, 1)
        self.count = len(ids)
        self._view = ctypes.c_char.from_buffer(self.storage)

    @classmethod
    def of(cls, metadata: dict) -> LaunchAttributes | None:
        ids = [attribute for name, attribute in LAUNCH_ATTRIBUTES.items() if metadata.get(name)]
        return cls(ids) if ids else None

    def address_and_count(self) -> tuple[int, int]:
        return ctypes.addressof(self._view), self.count


class CudaLauncher:
    """Launches one loaded kernel: ``launcher(grid, args, stream=None)`` with ``grid`` a tuple
    of three ints (one to three on the slow path), ``args`` the kernel's parameters in order
    (pointers as int device addresses) and ``stream`` an int handle, a stream object or None
    (torch's current stream when torch has initialised CUDA, else the legacy default stream).
    Built by :func:`load`; each instance's class carries the fast path bound to its kernel, so
    a call costs one Python frame."""

    __slots__ = ("module", "function", "name", "device", "properties", "metadata", "params", "names", "block",
                 "shared", "debug", "tensor_maps", "cluster", "attributes", "_maps", "_layout", "_offsets", "_buffer",
                 "_owner", "_set_owner",
                 "__weakref__")

    def __call__(self, grid: Any, args: Sequence[Any], stream: Any = None) -> None:  # replaced per kernel
        self._slow_launch(grid, args, stream)

    # -- the slow path ------------------------------------------------------------------------

    def _slow_launch(self, grid: Any, args: Sequence[Any], stream: Any, retried: bool = False) -> None:
        dims = normalize_grid(grid, self.properties)
        if dims is None:
            return
        if self.cluster > 1:
            dims = self._clustered(dims)
        values = self._convert(args)
        handle = self._stream(stream)
        first = self._claim_fast_path()
        if first or self.debug:
            self._check_pointers(values)
        if (not first and self._buffer is None and self._owner == get_ident() and not self.tensor_maps
                and self.cluster == 1 and self.attributes is None):
            self._install_fast_path()
        buffer = _LaunchBuffer(self._layout, self._offsets)
        maps: Sequence[bytes] = ()
        if self.tensor_maps:  # hidden parameters after the kernel's own (tma.py)
            maps = [spec.encoded(i, values, self._maps) for i, spec in enumerate(self.tensor_maps)]
        attributes, count = (0, 0) if self.attributes is None else self.attributes.address_and_count()
        self._layout.pack_into(buffer.storage, 0, *dims, self.block, 1, 1, self.shared, handle, attributes, count,
                               *values, *maps)
        code = driver.launch_entry()(buffer.address, self.function, buffer.pointers_address, None)
        if code:
            self._failed(code, grid, args, stream, retried)

    def _clustered(self, dims: tuple[int, int, int]) -> tuple[int, int, int]:
        """The CTA grid of a grid of clusters (``num_ctas`` CTAs each, along x)."""
        x = dims[0] * self.cluster
        limit = self.properties.max_grid_dim[0]
        if x > limit:
            raise LaunchError(f"grid dimension 0 is {dims[0]} programs of num_ctas={self.cluster} CTAs each: "
                              f"{x} CTAs, over the device's limit of {limit} ({self.properties.name})")
        return x, dims[1], dims[2]

    def _claim_fast_path(self) -> bool:
        """Give the fast path (and its shared buffer, made at its second launch) to the first
        thread that launches; True for that first launch."""
        with _claim_lock:
            if self._owner is not None:
                return False
            self._owner = get_ident()
        return True

    def _install_fast_path(self) -> None:
        self._buffer = _LaunchBuffer(self._layout, self._offsets)
        kinds = tuple(p.kind for p in self.params)
        limits = self.properties.max_grid_dim
        call, self._set_owner = _fast_path_binder(kinds, self.debug)(
            self._layout.pack_into, self._buffer.storage, self._buffer.address, self.function,
            self._buffer.pointers_address, driver.launch_entry(), self.block, self.shared, *limits,
            _FAST_PATH_ERRORS, bf16_bits, driver.current_stream_function(), self.device,
            driver.reachability_check() if self.debug else None)
        type(self).__call__ = call
        self._set_owner(get_ident())

    def native_tail(self) -> dict | None:
        """What a native launch function (``runtime.native.fastpath``) needs to launch this
        kernel with ``cuLaunchKernel``: None until the fast path is made (the first launch has
        checked the pointers, the second made it), and always with ``debug=True``, whose launches
        check them."""
        if (self.debug or self._buffer is None or self.tensor_maps or self.cluster > 1 or null_params(self.metadata)
                or self.attributes is not None):
            return None
        return {"kind": "cuda_driver", "launch": driver.launch_kernel_address(), "function": self.function,
                "block": self.block, "shared": self.shared, "max_grid": tuple(self.properties.max_grid_dim),
                "codes": "".join(p.code for p in self.params), "stream_getter": driver.current_stream_function(),
                "device": self.device, "devices": driver.device_count(), "owner": self}

    def _stream(self, stream: Any) -> int:
        return driver.current_stream(self.device) if stream is None else driver.stream_handle(stream)

    def current_stream(self) -> int:
        """The stream a launch without ``stream=`` goes on (what Triton's launch hooks are told)."""
        return driver.current_stream(self.device)

    def _convert(self, args: Sequence[Any]) -> list:
        if isinstance(args, str | bytes) or not isinstance(args, Sequence):
            raise LaunchError(f"{self.name}: the arguments are a list, got {type(args).__name__}")
        if len(args) != len(self.params):
            raise LaunchError(f"{self.name} takes {len(self.params)} arguments ({self._signature()}), "
                              f"got {len(args)}")
        return [self._value(i, p, a) for i, (p, a) in enumerate(zip(self.params, args))]

    def _value(self, index: int, param: Param, value: Any) -> Any:
        if param.kind == "pointer":
            return device_address(value, self._arg_name(index), self.device)
        if param.kind == "bf16":
            return bf16_bits(float(value))
        try:
            struct.pack("@" + param.code, value)
        except (struct.error, TypeError, OverflowError):
            raise LaunchError(f"{self.name}: argument {self._arg_name(index)} = {value!r} does not fit its "
                              f"parameter type {param.spelling}") from None
        return value

    def _check_pointers(self, values: list) -> None:
        pointers = [(i, v) for i, (p, v) in enumerate(zip(self.params, values)) if p.kind == "pointer" and v]
        if pointers:
            driver.activate(self.device)  # the driver answers about pointers in a current context only
        for index, value in pointers:
            info = driver.pointer_info(value)
            if info is None:
                raise LaunchError(f"{self.name}: argument {self._arg_name(index)} = {value:#x} is not CUDA memory "
                                  "(a host pointer?); a CUDA kernel reads device, managed or pinned memory only: "
                                  "move the array with kl.to_device(...) or use a CUDA tensor")
            if info.memory_type == driver.MEMORYTYPE_DEVICE and info.device != self.device:
                raise LaunchError(f"{self.name}: argument {self._arg_name(index)} lives on cuda:{info.device} but "
                                  f"the kernel is loaded on cuda:{self.device}")

    def _failed(self, code: int, grid: Any, args: Sequence[Any], stream: Any, retried: bool = False) -> None:
        if code == driver.ERROR_INVALID_CONTEXT and not retried:
            driver.activate(self.device)
            return self._slow_launch(grid, args, stream, retried=True)
        if normalize_grid(grid, self.properties) is None:
            return None
        if code == _LAUNCH_OUT_OF_RESOURCES:
            raise OutOfResources(self.block, self.block, f"registers for {self.block} threads per block "
                                 f"({self.name} needs too many registers or too much shared memory)")
        raise driver.cuda_error("cuLaunchKernelEx", code,
                               f"launching {self.name} with grid {tuple(grid)}, {self.block} threads per block "
                               f"and {self.shared} bytes of dynamic shared memory")

    def _arg_name(self, index: int) -> str:
        return f"{index} ({self.names[index]})" if index < len(self.names) else str(index)

    def _signature(self) -> str:
        return ", ".join(p.spelling for p in self.params)

    def __repr__(self) -> str:
        return (f"<CudaLauncher {self.name} on cuda:{self.device}: {self.block} threads, "
                f"{self.shared} B dynamic shared, ({self._signature()})>")


def device_address(value: Any, name: str, device: int) -> int:
    """The device address of a pointer argument: an int, None (null), a DeviceArray, a torch
    CUDA tensor, a CuPy array or anything with ``__cuda_array_interface__``; host arrays are a
    :class:`LaunchError` (a CUDA kernel must never be given host memory)."""
    if isinstance(value, int):
        if value < 0:
            raise LaunchError(f"argument {name} = {value} is not an address")
        return value
    if value is None:
        return 0
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    kind = type(value).__name__
    if hasattr(value, "__array_interface__") or hasattr(value, "__array__") or _is_host_tensor(value):
        raise LaunchError(f"argument {name} is a host array ({kind}) but the kernel runs on cuda:{device}; "
                          "move it first: kl.to_device(array), torch's .cuda(), or cupy.asarray(...)")
    raise LaunchError(f"argument {name} must be a device address or a CUDA array, got {kind}")


def _is_host_tensor(value: Any) -> bool:
    device = getattr(value, "device", None)
    return getattr(device, "type", None) == "cpu"


def load(module: driver.Module, metadata: dict, properties: DeviceProperties) -> CudaLauncher:
    """The launcher of kernel ``metadata["name"]`` in ``module``: checks its resources against the
    device (:class:`OutOfResources`), allows its dynamic shared memory, and builds its buffer."""
    name = metadata["name"]
    check_resources(metadata, properties)
    function = module.function(name)
    loaded = driver.function_resources(function)
    check_resources(metadata, properties, loaded)
    shared = int(metadata.get("shared", 0))
    if shared + loaded["shared_static"] > properties.max_shared_per_block:
        driver.set_max_dynamic_shared(function, shared)
    metadata.setdefault("registers", loaded["registers"])
    metadata.setdefault("local_bytes", loaded["local_bytes"])
    params = params_of(metadata.get("arg_types", ()))
    return build(module, function, metadata, properties, params, shared)


def _tensor_maps(metadata: dict) -> tuple:
    """The hidden tensor-map parameters (``tma.py``; imported only for kernels that have them:
    a cached launch of any other kernel imports nothing of the code generator)."""
    if not metadata.get("tma"):
        return ()
    from .tma import TensorMapSpec

    return tuple(TensorMapSpec.from_json(item) for item in metadata["tma"])


def build(module: Any, function: int, metadata: dict, properties: DeviceProperties, params: tuple[Param, ...],
          shared: int) -> CudaLauncher:
    """A launcher from its parts (also used by the tests and the benchmark)."""
    cls = type(f"CudaLauncher_{metadata['name']}", (CudaLauncher,), {"__slots__": ()})
    launcher = object.__new__(cls)
    launcher.module = module
    launcher.function = function
    launcher.name = metadata["name"]
    launcher.device = properties.ordinal
    launcher.properties = properties
    launcher.metadata = metadata
    launcher.params = params
    launcher.names = _param_names(metadata, len(params))
    launcher.block = threads_per_block(metadata, properties)
    launcher.shared = shared
    launcher.debug = bool(metadata.get("debug", False))
    launcher.tensor_maps = _tensor_maps(metadata)  # hidden parameters after the kernel's own (tma.py)
    launcher.cluster = int(metadata.get("num_ctas") or 1)  # > 1: the slow path launches clusters
    launcher.attributes = LaunchAttributes.of(metadata)  # not None: the slow path passes them
    launcher._maps = {}
    layout_format = CONFIG_FORMAT + "".join(p.code for p in params)
    offsets = _offsets(params)
    for _ in launcher.tensor_maps:  # 128 bytes each, 64-byte aligned
        size = struct.calcsize(layout_format)
        pad = -size % 64
        layout_format += f"{pad}x128s" if pad else "128s"
        offsets.append(size + pad)
    for _ in range(null_params(metadata)):  # zero bytes, never packed (ptx_params.py)
        size = struct.calcsize(layout_format)
        layout_format += f"{-size % 8}x8x"
        offsets.append(size + -size % 8)
    launcher._layout = struct.Struct(layout_format)
    launcher._offsets = offsets
    launcher._buffer = None
    launcher._owner = None
    launcher._set_owner = None
    return launcher


def null_params(metadata: dict) -> int:
    """How many null 64-bit parameters follow the kernel's own (an edited PTX's trailing
    scratch pointers, as Triton's PTX declares them: ``ptx_params.check_override_params``)."""
    return int(metadata.get("null_params") or 0)


def _param_names(metadata: dict, count: int) -> tuple[str, ...]:
    """The parameters' names as messages show them: the runtime's signature (non-constexpr
    parameters in order, a tuple's elements as ``P[0]``) or the code generator's ``arg_names``,
    whichever has one name per parameter."""
    from ...frontend.arguments import display_name

    for names in (list(metadata.get("signature") or ()), list(metadata.get("arg_names") or ())):
        if len(names) == count:
            return tuple(display_name(str(n)) for n in names)
    return ()


def _offsets(params: tuple[Param, ...]) -> list[int]:
    """Byte offsets of each parameter in the buffer (native alignment, after the config)."""
    offsets, prefix = [], CONFIG_FORMAT
    for param in params:
        prefix += param.code
        offsets.append(struct.calcsize(prefix) - struct.calcsize("@" + param.code))
    return offsets


__all__ = ["CudaLauncher", "LaunchAttributes", "Param", "param_of", "params_of", "normalize_grid", "check_resources",
           "threads_per_block", "device_address", "load", "build", "bf16_bits", "CONFIG_FORMAT"]
