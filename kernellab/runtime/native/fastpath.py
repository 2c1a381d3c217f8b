"""The native launch path: ``kernel[grid](...)`` handled by generated machine code.

Once a specialization has been launched twice through the Python binder (which compiled or
loaded it, checked its arguments and made its first launch; a kernel launched once in a process
never pays for the rest), the binder hands the launch to ``launches.NativeLaunches``, which
describes it as a launch *shape* and the *data* of that shape
(``launchgen``), gets the shape's machine code (from this process, else the disk cache, else
compiled with llvmlite and stored), and puts a builtin function running it at the head of the
kernel's launch chain: ``kernel[grid]`` binds the head.  The function checks a call against its
specialization and launches; anything else goes down the chain (at most
:data:`MAX_SPECIALIZATIONS` functions, one per specialization) to the Python binder.

``KERNELLAB_NATIVE_LAUNCH=0`` turns this off; so do interpreters where the C API layouts do not
hold (``capi.supported``), kernels reading plain globals (checked by the binder at every launch)
and launches the data cannot describe (other array types, numpy scalars, u64 ints...).
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import cachedir, config
from ...backends.cpu import objload
from ...frontend.arguments import leaf_name
from .. import specialize
from ..cache import DiskCache, cache_key, fingerprint
from . import capi, launchgen
from .launches import MAX_SPECIALIZATIONS, NativeLaunches
from .launchgen import (
    ANY,
    CUDA_DRIVER,
    DEVICE_CUDA,
    DEVICE_HOST,
    DEVICE_INDEX,
    HOST_GRID,
    LAUNCH_SLOTS,
    MUST,
    MUST_NOT,
    Layout,
    Shape,
)

# Attribute and method names the generated code looks up (interned: compared as they are).
_NAMES = {"s_dtype": sys.intern("dtype"), "s_get_device": sys.intern("get_device"),
          "s_data_ptr": sys.intern("data_ptr"), "s_is_cuda": sys.intern("is_cuda")}

# How a launch value is packed, by the CUDA launcher's struct code and by the CPU slot kind.
_CUDA_CODES = {("pointer", "Q"): "Q", ("i32", "i"): "i", ("i64", "q"): "q", ("bool", "i"): "i", ("float", "f"): "f"}
_CPU_KINDS = {("pointer", "ptr"): "Q", ("i32", "i32"): "q", ("i64", "i64"): "q", ("bool", "i1"): "q",
              ("float", "f32"): "d"}


class NotNative(Exception):
    """This specialization cannot be launched natively (the Python binder keeps it)."""


def enabled() -> bool:
    return config.native_launch() and capi.supported()


# ---------------------------------------------------------------------------------------------
# Machine code per shape: this process, the disk cache, or llvmlite
# ---------------------------------------------------------------------------------------------

_code: dict[Any, tuple[objload.LoadedObject, int]] = {}
_code_lock = threading.Lock()


def code_for(shape: Shape) -> int:
    """The address of ``shape``'s launch function, loaded once per process."""
    return loaded_code(shape, {"native_launch": shape.describe()}, lambda: launchgen.compile_object(shape),
                       launchgen.SYMBOL)


def loaded_code(key: Any, description: dict, compile_it: Callable[[], bytes], symbol: str) -> int:
    """The address of ``symbol`` in the object code ``description`` names (disk cache, else
    ``compile_it()``), loaded once per process under ``key``."""
    found = _code.get(key)
    if found is None:
        with _code_lock:
            found = _code.get(key)
            if found is None:
                loaded = objload.load_object(_object_for(description, compile_it), lambda name: None)
                found = _code[key] = (loaded, loaded.address(symbol))
    return found[1]


def _object_for(description: dict, compile_it: Callable[[], bytes]) -> bytes:
    """The object code ``description`` names: from the disk cache, else compiled and stored."""
    root = cachedir.root()
    cache = DiskCache(root) if root is not None else None
    key = cache_key({**description, "kernellab": fingerprint(), "python": sys.implementation.cache_tag,
                     "machine": platform.machine()})
    stored = cache.load(key) if cache is not None else None
    if stored is not None and isinstance(stored[0].get("obj"), bytes):
        return stored[0]["obj"]
    obj = compile_it()
    if cache is not None:
        cache.store(key, {"obj": obj}, {"name": "native launch code", **description})
    return obj


# ---------------------------------------------------------------------------------------------
# kernel[grid] natively: JITFunction.__getitem__ as a C method
# ---------------------------------------------------------------------------------------------

_getitem: list = []  # what the installed method needs alive: code, data, definition, descriptor


def _wrong_count(*args: Any) -> Any:
    raise TypeError(f"kernel[grid] takes one grid, got {max(len(args) - 1, 0)} subscripts")


def install_getitem(cls: type) -> None:
    """Make ``cls.__getitem__`` (a Python function binding the grid to ``self._head``) a C
    method doing the same, once per process; ``cls.__getitem__``'s Python version handles the
    case of no binder yet."""
    from ..jit import torch_intercept

    _used.append(cls)
    if torch_intercept() is not None:  # kernellab.torch: Dynamo traces Python only
        _install_subscript(cls)
        return
    if _getitem:
        return
    slow = cls.__getitem__
    words = {name: capi.api(name) for name in ("PyObject_GetAttr", "PyObject_Vectorcall", "Py_DecRef", "PyMethod_New")}
    words.update({"s_head": id(_HEAD), "none": id(None), "slow": id(slow), "wrong_count": id(_wrong_count)})
    data = (ctypes.c_uint64 * len(launchgen.GETITEM_WORDS))(*(words[w] for w in launchgen.GETITEM_WORDS))
    obj = _object_for({"native_getitem": launchgen.FORMAT}, lambda: launchgen.compile_ir(launchgen.generate_getitem()))
    loaded = objload.load_object(obj, lambda name: ctypes.addressof(data) if name == launchgen.GETITEM_DATA else None)
    descriptor = capi.make_method(cls, loaded.address(launchgen.GETITEM_SYMBOL), "__getitem__",
                                  "kernel[grid]: the launch function with the grid bound")
    _getitem.append((loaded, data, descriptor, slow))
    type.__setattr__(cls, "__getitem__", descriptor)


def uninstall_getitem(cls: type) -> None:
    """Put the Python ``cls.__getitem__`` back (``kernellab.torch``: TorchDynamo traces Python,
    not C methods); ``install_getitem`` installs nothing while torch's intercept is set."""
    if _getitem:
        type.__setattr__(cls, "__getitem__", _getitem[0][3])


def reinstall_getitem(cls: type) -> None:
    """The C method again, where ``install_getitem`` made it before."""
    if _getitem:
        type.__setattr__(cls, "__getitem__", _getitem[0][2])


_used: list = []  # a native launch was made: kernel[grid] is worth a native subscript


def _install_subscript(cls: type) -> None:
    from ..jit import torch_eager_when
    from . import subscript

    eager_when = torch_eager_when()
    if eager_when is not None:
        subscript.install(cls, *eager_when)


def intercept_changed(cls: type) -> None:
    """``kernellab.torch``'s intercept was set or removed: the Python ``__getitem__`` and, where
    a native launch was made, the native subscript slot; or the C method again."""
    from ..jit import torch_intercept
    from . import subscript

    if torch_intercept() is None:
        subscript.uninstall(cls)
        reinstall_getitem(cls)
        return
    uninstall_getitem(cls)  # assigning __getitem__ gives the class CPython's slot back
    subscript.uninstall(cls)
    if _used:
        _install_subscript(cls)


_HEAD = sys.intern("_head")


# ---------------------------------------------------------------------------------------------
# Addresses the data needs
# ---------------------------------------------------------------------------------------------

@functools.cache
def numpy_descr_offset() -> int | None:
    """Where a numpy array object holds its dtype (``PyArrayObject.descr``), found on probes."""
    probes = [np.zeros(3, np.float32), np.arange(5, dtype=np.int64)[1:], np.ones((2, 2), np.float16).T]
    read = ctypes.c_uint64.from_address
    for offset in range(16, 128, 8):
        if all(read(id(a) + offset).value == id(a.dtype) for a in probes):
            return offset
    return None


def _torch_functions(tensor: Any) -> tuple[int, ...] | None:
    """torch's C getters of ``dtype`` and ``is_cuda`` (with their closures) and C function of
    ``data_ptr``, checked on ``tensor``; None when any is not what is expected."""
    cls = type(tensor)
    dtype, is_cuda = capi.getter(cls, "dtype", tensor), capi.getter(cls, "is_cuda", tensor)
    data_ptr = capi.no_args_method(cls, "data_ptr", tensor)
    if dtype is None or is_cuda is None or data_ptr is None:
        return None
    return (*dtype, *is_cuda, data_ptr)


def _klarray_slots(array: Any) -> tuple[int, int, int] | None:
    """The offsets of DeviceArray._buffer, Buffer.spec_keys and Buffer.address, when reading
    them from ``array`` and its buffer gives the objects Python sees."""
    buffer = array._buffer
    offsets = (capi.member_offset(type(array), "_buffer"), capi.member_offset(type(buffer), "spec_keys"),
               capi.member_offset(type(buffer), "address"))
    if None in offsets:
        return None
    read = ctypes.c_uint64.from_address
    owners, expected = (array, buffer, buffer), (buffer, buffer.spec_keys, buffer.address)
    if any(read(id(owner) + offset).value != id(value) for owner, offset, value in zip(owners, offsets, expected)):
        return None
    return offsets  # type: ignore[return-value]


@functools.cache
def _clock_gettime() -> int:
    return capi.address_of(ctypes.CDLL(None).clock_gettime)


def _environment() -> tuple[Any, tuple[bytes, ...]]:
    data = getattr(os.environ, "_data", None)
    keys = config.forced_target_keys()
    if data is None or len(keys) != 3:
        raise NotNative("os.environ has no dict of its own here")
    return data, keys


# ---------------------------------------------------------------------------------------------
# Describing one specialization
# ---------------------------------------------------------------------------------------------

class _Builder:
    """Slots (kind and words) of one launch, then the shape and its data."""

    def __init__(self, tail: dict):
        self.tail = tail
        self.kinds: list[str] = []
        self.words: list[dict[str, Any]] = []  # per slot: word name -> int or object (kept alive)
        self.passed: dict[int, str] = {}        # slot -> value kind ("pointer", "i32"...)
        self.klarray_slots: tuple[int, ...] = (0, 0, 0)  # where DeviceArrays keep their Buffer's parts
        self.torch_direct: tuple[int, ...] | None = None  # torch's C functions for dtype, is_cuda, data_ptr
        self.by_name: dict[str, int] = {}  # a parameter's or tuple element's name (P.0.1) -> its slot
        self.tuples: list[tuple[int, str, Any, tuple, tuple]] = []  # tuple slots whose elements are to add
        self.elements: list[tuple[int, int]] = []  # (parent slot, index) of each element slot

    def add(self, kind: str, default: Any, name: str, **words: Any) -> int:
        self.kinds.append(kind)
        self.words.append({"name": sys.intern(name), "default": default, **words})
        self.by_name.setdefault(name, len(self.kinds) - 1)
        return len(self.kinds) - 1

    def add_elements(self) -> None:
        """The slots of the tuples' elements (after every other slot; nested tuples' after
        their parents')."""
        while self.tuples:
            parent, name, table, keys, values = self.tuples.pop(0)
            for index, (key, value) in enumerate(zip(keys, values)):
                self.elements.append((parent, index))
                _value_slot(self, leaf_name(name, (index,)), table, key, value, None)


_REQUIRED = object()
_TORCH_WORDS = ("torch_dtype_get", "torch_dtype_closure", "torch_is_cuda_get", "torch_is_cuda_closure",
                "torch_data_ptr")
_DEVICE_ARRAY_MODULE = "kernellab.backends.cuda.device_array"  # a parameter without a default (its default word is 0)


def _mode(key: str, table: specialize.SpecTable) -> int:
    """MUST / MUST_NOT be a multiple of 16 (of 16-byte aligned), as the key says, or ANY when
    the parameter's rule set ignores it."""
    if table is not specialize.FULL:
        return ANY
    return MUST if key.endswith("/16") else MUST_NOT


def _value_slot(builder: _Builder, name: str, table: specialize.SpecTable, key: Any, value: Any,
                default: Any) -> None:
    """One non-constexpr parameter (or tuple element, ``name`` ``P.0.1``), from its key and the
    value that made it, by its parameter's rules (``table``)."""
    if isinstance(key, tuple):
        if key == specialize.ONE:
            builder.add("one", default, name)
        elif key == specialize.NONE:
            builder.add("none", default, name)
        elif key[0] == specialize.CONST:
            _const_slot(builder, value, default, name)
        elif key[0] == specialize.TUPLE:  # checked by type and length; its elements get slots of their own
            if not isinstance(value, tuple):  # a host tensor descriptor (specialized as its parts)
                raise NotNative(f"argument {name} is a {type(value).__name__}")
            slot = builder.add("tuple", default, name, type=type(value))
            builder.tuples.append((slot, name, table, key[2], value))
        else:
            raise NotNative(f"argument {name} is invalid")
        return
    spec = specialize.decode(key)
    if spec.kind == "pointer":
        kind, words = _pointer(value, key, builder.tail)
        if kind == "klarray":
            builder.klarray_slots = _klarray_slots(value)
        elif kind == "torch" and builder.torch_direct is None:
            builder.torch_direct = _torch_functions(value)
        slot = builder.add(kind, default, name, align=_mode(key, table), **words)
        builder.passed[slot] = "pointer"
        return
    kind = {int: "int", bool: "bool", float: "float"}.get(type(value))
    signature = spec.signature.split("/")[0]
    if kind == "int" and signature in ("i32", "i64"):
        one = 0 if table is specialize.NO_SPEC else 1
        slot = builder.add(signature, default, name, div=_mode(key, table),
                           **({"one": one} if signature == "i32" else {}))
        builder.passed[slot] = signature
    elif kind == "bool" and signature == "i1":
        builder.passed[builder.add("bool", default, name)] = "bool"
    elif kind == "float" and signature == "fp32":
        builder.passed[builder.add("float", default, name)] = "float"
    else:
        raise NotNative(f"argument {name} ({type(value).__name__} as {signature})")


def _pointer(value: Any, key: str, tail: dict) -> tuple[str, dict[str, Any]]:
    cls = type(value)
    if cls is np.ndarray:
        offset = numpy_descr_offset()
        if offset is None or ctypes.c_uint64.from_address(id(value) + offset).value != id(value.dtype):
            raise NotNative("numpy's array layout is not the one expected")
        return "numpy", {"type": cls, "dtype": value.dtype}
    torch = sys.modules.get("torch")
    if torch is not None and cls is torch.Tensor:
        device = value.get_device()
        if tail["kind"] == HOST_GRID:
            mode = DEVICE_HOST if device < 0 else DEVICE_INDEX
        else:
            mode = DEVICE_CUDA if tail.get("devices") == 1 and device == 0 else DEVICE_INDEX
        return "torch", {"type": cls, "dtype": value.dtype, "device": device, "device_mode": mode}
    buffer = getattr(value, "_buffer", None) if cls.__module__ == _DEVICE_ARRAY_MODULE else None
    keys = getattr(buffer, "spec_keys", None)
    if keys is not None and cls.__name__ == "DeviceArray" and key in keys and _klarray_slots(value) is not None:
        return "klarray", {"type": cls, "keys": keys}
    raise NotNative(f"a pointer argument of type {cls.__module__}.{cls.__qualname__}")


def _const_slot(builder: _Builder, value: Any, default: Any, name: str) -> int:
    is_int = type(value) is int and -(2**63) <= value < 2**63
    return builder.add("const", default, name, expected=value, expected_is_int=int(is_int),
                       expected_int=value if is_int else 0)


def describe(jit: Any, key: tuple, kernel: Any, arguments: tuple, options: tuple, tail: dict
             ) -> tuple[Shape, _Builder]:
    """The shape and slots of a launch of ``kernel`` (binder key ``key``) made with
    ``arguments`` (every parameter, in order) and ``options`` (the compile options)."""
    builder = _Builder(tail)
    value_keys = iter(key[:sum(not p.is_constexpr for p in jit.params)])
    for param, value in zip(jit.params, arguments):
        default = param.default if param.has_default else _REQUIRED
        if param.is_constexpr:
            _const_slot(builder, value, default, param.name)
        else:
            table = specialize.table_for(param.do_not_specialize, param.do_not_specialize_on_alignment)
            _value_slot(builder, param.name, table, next(value_keys), value, default)
    nparams = len(builder.kinds)
    for name, value in zip(LAUNCH_SLOTS[:5], options):
        _const_slot(builder, value, None, name)
    builder.add("stream" if tail["kind"] == CUDA_DRIVER else "skip", None, "stream")
    _const_slot(builder, False, False, "warmup")
    builder.add_elements()
    values = _packing(kernel, builder, tail)
    shape = Shape(tail["kind"], tuple(builder.kinds), nparams, values, tuple(builder.elements))
    return shape, builder


def _packing(kernel: Any, builder: _Builder, tail: dict) -> tuple[tuple[int, str], ...]:
    """(slot, pack code) of each value the launcher takes, in its order (a tuple's elements by
    their names, ``P.0``)."""
    runtime = kernel.runtime_args
    slot_of = builder.by_name
    if tail["kind"] == CUDA_DRIVER:
        codes, table = tail["codes"], _CUDA_CODES
    else:
        codes, table = tail["kinds"], _CPU_KINDS
    if len(codes) != len(runtime):
        raise NotNative("the launcher's parameters are not the runtime arguments")
    values = []
    for name, code in zip(runtime, codes):
        slot = slot_of.get(name)
        packed = table.get((builder.passed.get(slot), code)) if slot is not None else None
        if packed is None:
            raise NotNative(f"argument {name} is passed as {code}")
        values.append((slot, packed))
    return tuple(values)


# ---------------------------------------------------------------------------------------------
# The data
# ---------------------------------------------------------------------------------------------

_OBJECT_WORDS = {"name", "default", "expected", "type", "dtype", "keys"}  # per slot; the rest are ints


class Data:
    """A native function's data words (``layout[name]`` is a word's index, ``layout.size`` their
    number), and the objects they point at (kept alive here)."""

    def __init__(self, layout: Any):
        self.layout = layout
        self.words = (ctypes.c_uint64 * self.layout.size)()
        self.words._keep = []

    def set_object(self, name: str, value: Any) -> None:
        """The address of ``value``, which is kept alive."""
        self.words._keep.append(value)
        self.words[self.layout[name]] = id(value)

    def set_int(self, name: str, value: int) -> None:
        """An int (negative ones as two's complement) or an address."""
        self.words[self.layout[name]] = int(value) & (2**64 - 1)

    def get(self, name: str) -> int:
        return self.words[self.layout[name]]

    def refresh_environment(self) -> None:
        """Record the forced-target variables' current objects (0 for an unset variable), as
        ``config.forced_target`` last saw them."""
        for i, key in enumerate(self.environment_keys):
            value = self.environ.get(key)
            if value is None:
                self.words[self.layout[f"env_val{i}"]] = 0
            elif self.words[self.layout[f"env_val{i}"]] != id(value):
                self.set_object(f"env_val{i}", value)


def fill(shape: Shape, builder: _Builder, kernel: Any, fallback: Any) -> Data:
    """The data of a launch described by ``builder``; ``fallback`` gets every other call."""
    data = Data(Layout(shape))
    data.set_object("fallback", fallback)
    data.set_object("kernel", kernel)
    for name in capi.API_FUNCTIONS:
        data.set_int(name, capi.api(name))
    for name, value in (("long_type", int), ("float_type", float), ("tuple_type", tuple), ("none", None),
                        ("true", True), ("false", False), *_NAMES.items()):
        data.set_object(name, value)
    data.set_int("numpy_descr", numpy_descr_offset() or 0)
    for word, offset in zip(("klarray_buffer", "klarray_keys", "klarray_address"), builder.klarray_slots):
        data.set_int(word, offset)
    data.set_int("torch_direct", int(builder.torch_direct is not None))
    for word, address in zip(_TORCH_WORDS, builder.torch_direct or ()):
        data.set_int(word, address)
    data.environ, data.environment_keys = _environment()
    data.set_object("environ", data.environ)
    for i, key in enumerate(data.environment_keys):
        data.set_object(f"env_key{i}", key)
    data.refresh_environment()
    for k, words in enumerate(builder.words):
        for word, value in words.items():
            if word == "default" and value is _REQUIRED:
                data.set_int(f"default{k}", 0)  # a missing argument: Python reports it
            elif word in _OBJECT_WORDS:
                data.set_object(f"{word}{k}", value)
            else:
                data.set_int(f"{word}{k}", value)
    _fill_tail(data, builder.tail)
    return data


def _fill_tail(data: Data, tail: dict) -> None:
    if tail["kind"] == CUDA_DRIVER:
        for name in ("launch", "function", "block", "shared"):
            data.set_int(name, tail[name])
        for axis, limit in zip("xyz", tail["max_grid"]):
            data.set_int(f"max_{axis}", limit)
        data.set_object("stream_getter", tail["stream_getter"])
        data.set_object("device_long", int(tail["device"]))
    else:
        for name in ("grid", "status", "inline_cell"):
            data.set_int(name, tail[name])
        data.set_int("inline_work", tail["inline_work_cell"])
        data.set_int("clock", _clock_gettime())
    data.words._keep.append(tail.get("owner"))  # whatever keeps the tail's addresses valid


# ---------------------------------------------------------------------------------------------
# A kernel's chain
# ---------------------------------------------------------------------------------------------

__all__ = ["NativeLaunches", "NotNative", "describe", "fill", "code_for", "loaded_code", "Data", "enabled",
           "numpy_descr_offset", "MAX_SPECIALIZATIONS"]
