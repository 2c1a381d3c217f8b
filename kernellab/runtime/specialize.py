"""Specialization: what about an argument a compiled kernel depends on (Triton's rules).

Per argument the launch path computes a *key* (hashable; part of the in-memory cache key) and
the *value* the launcher receives:

=========================  ======================================  =========================
argument                   key                                     value
=========================  ======================================  =========================
array (numpy, torch...)    ``"*fp32@cpu/16"``: type, device, and   its address (an ``int``)
                           ``/16`` when 16-byte aligned
``int``                    ``"i32"``/``"i64"``/``"u64"`` by range,  the int
                           ``/16`` when divisible by 16; ``1``
                           becomes the constant ``("const", 1)``
``bool`` / ``float``       ``"i1"`` / ``"fp32"``                    the value
numpy scalar               its dtype (``"i64/16"``, ``"fp16"``)     a Python number
``None``, strings, dtypes, ``("const", value, type)``              (not passed)
constexpr, jit functions
tuple (NamedTuple...)      ``("tuple", class, element keys)``      the elements' values
=========================  ======================================  =========================

A tuple's elements follow the same rules (with its parameter's ``do_not_specialize`` ones), each
element its own argument of the compiled kernel (``frontend/arguments.py``).

``do_not_specialize`` turns every fact off for a parameter (no ``1``, no ``/16``);
``do_not_specialize_on_alignment`` turns off ``/16`` (pointers and ints).  The three rule
sets are the three :class:`SpecTable` instances ``FULL``, ``NO_ALIGN`` and ``NO_SPEC``: dicts
from an argument's exact type to its spec function, filled lazily per type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import KernelArgumentError
from ..frontend.arguments import describe_entry, display_name, is_namedtuple_class, leaf_name
from ..ir import types as T
from ..ir.types import PointerType, ScalarType, Type
from ..language.core import constexpr
from . import interop

Spec = Callable[[Any], tuple[Any, Any]]

CONST = "const"
INVALID = "invalid"
TUPLE = "tuple"
ANYWHERE = "any"
ONE = (CONST, 1, int)
NONE = (CONST, None, type(None))
_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1
_I64_MIN, _I64_MAX, _U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1

# ---------------------------------------------------------------------------------------------
# Pointer keys (interned strings: hashing them is free after the first time)
# ---------------------------------------------------------------------------------------------

_POINTER_KEYS: dict[tuple[ScalarType, str], tuple[str, str]] = {}


def pointer_keys(dtype: ScalarType | None, location: str) -> tuple[Any, Any]:
    """(unaligned key, 16-byte-aligned key) for a pointer to ``dtype`` living at ``location``."""
    found = _POINTER_KEYS.get((dtype, location))
    if found is None:
        if not isinstance(dtype, ScalarType):
            invalid = (INVALID, f"an array whose element type is {dtype!r}, not a kernellab scalar type")
            return invalid, invalid
        plain = f"*{T.to_signature(dtype)}@{location}"
        found = _POINTER_KEYS[(dtype, location)] = (plain, plain + "/16")
    return found


# ---- numpy (the CPU target's hot path) ----

_NUMPY_KEYS: dict[np.dtype, tuple[str, str]] = {}
_numpy_address = interop.numpy_address


def _numpy_keys(dtype: np.dtype) -> tuple[str, str]:
    found = _NUMPY_KEYS.get(dtype)
    if found is None:
        found = _NUMPY_KEYS[dtype] = pointer_keys(interop.dtype_of_numpy(dtype), interop.HOST)
    return found


if interop.numpy_address is interop.numpy_address_by_layout:  # the hot path: read PyArrayObject.data
    def _numpy_aligned(x: np.ndarray, _read=interop.read_word, _id=id, _offset=interop.NUMPY_DATA_OFFSET,
                       _keys=_NUMPY_KEYS) -> tuple[str, int]:
        address = _read(_id(x) + _offset).value
        return (_keys.get(x.dtype) or _numpy_keys(x.dtype))[not address & 15], address

    def _numpy_unaligned(x: np.ndarray, _read=interop.read_word, _id=id, _offset=interop.NUMPY_DATA_OFFSET,
                         _keys=_NUMPY_KEYS) -> tuple[str, int]:
        return (_keys.get(x.dtype) or _numpy_keys(x.dtype))[0], _read(_id(x) + _offset).value
else:  # pragma: no cover - a numpy whose array layout differs
    def _numpy_aligned(x: np.ndarray) -> tuple[str, int]:
        address = _numpy_address(x)
        return (_NUMPY_KEYS.get(x.dtype) or _numpy_keys(x.dtype))[not address & 15], address

    def _numpy_unaligned(x: np.ndarray) -> tuple[str, int]:
        return (_NUMPY_KEYS.get(x.dtype) or _numpy_keys(x.dtype))[0], _numpy_address(x)


# ---- torch ----

_TORCH_KEYS: dict[tuple[Any, int], tuple[str, str]] = {}


def _torch_keys(tensor: Any) -> tuple[str, str]:
    device = tensor.get_device()
    found = _TORCH_KEYS.get((tensor.dtype, device))
    if found is None:
        location = interop.HOST if device < 0 else f"cuda:{device}"
        found = _TORCH_KEYS[(tensor.dtype, device)] = pointer_keys(interop.dtype_of_torch(tensor.dtype), location)
    return found


def _torch_aligned(x: Any) -> tuple[str, int]:
    address = x.data_ptr() or _no_meta(x)
    return _torch_keys(x)[not address & 15], address


def _torch_unaligned(x: Any) -> tuple[str, int]:
    return _torch_keys(x)[0], x.data_ptr() or _no_meta(x)


def _no_meta(tensor: Any) -> int:
    """The null address of an empty tensor; a meta tensor (shapes only, no memory, as fake and
    meta tracing make) is refused: its get_device() says host, and a launch would read address 0."""
    if tensor.is_meta:
        raise TypeError("a meta tensor has no data to launch a kernel on: launch on real tensors (under "
                        "torch.compile or torch.library, kernellab.torch traces the launch instead)")
    return 0


# ---- kernellab's device arrays (``__kernellab_buffer__``, which they cache) ----

def _hook_aligned(x: Any) -> tuple[str, int]:
    buffer = x.__kernellab_buffer__()
    keys = buffer.spec_keys or _buffer_keys(buffer)
    address = buffer.address
    return keys[not address & 15], address


def _hook_unaligned(x: Any) -> tuple[str, int]:
    buffer = x.__kernellab_buffer__()
    return (buffer.spec_keys or _buffer_keys(buffer))[0], buffer.address


def _buffer_keys(buffer: Any) -> tuple[Any, Any]:
    keys = pointer_keys(buffer.dtype, buffer.device)
    if isinstance(buffer, interop.Buffer):
        buffer.spec_keys = keys  # arrays that keep their Buffer (kernellab's) pay this once
    return keys


# ---- everything else that is an array: through its Buffer ----

def _buffer_spec(handler: interop.Handler, align: bool) -> Spec:
    def spec(x: Any) -> tuple[str, int]:
        buffer = handler.buffer(x, "")
        keys = pointer_keys(buffer.dtype, buffer.device)
        return keys[align and not buffer.address & 15], buffer.address

    return spec


class MockPointer:
    """A pointer argument known only by its element type (``kernel.warmup(tl.float32, ...)``)."""

    def __init__(self, dtype: ScalarType):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"MockPointer({self.dtype.name})"


class MockTensor(MockPointer):
    """Triton's ``MockTensor(dtype, shape=None)``: a stand-in array for ``warmup`` (torch,
    numpy or kernellab dtypes); its address counts as 16-byte aligned."""

    def __init__(self, dtype: Any, shape: Any = None):
        super().__init__(interop.element_type(dtype))
        self.torch_dtype = dtype
        self.shape = list(shape) if shape is not None else [1]

    @staticmethod
    def wrap_dtype(arg: Any) -> Any:
        """A torch dtype becomes a MockTensor of it; anything else is returned as it is."""
        return MockTensor(arg) if type(arg).__module__ == "torch" and type(arg).__name__ == "dtype" else arg

    def stride(self) -> tuple[int, ...]:
        strides = [1]
        for size in reversed(self.shape[1:]):
            strides.append(strides[-1] * size)
        return tuple(reversed(strides))

    @staticmethod
    def data_ptr() -> int:
        return 0

    @staticmethod
    def ptr_range() -> int:
        return 0


def _mock_spec(x: MockPointer) -> tuple[str, int]:
    return pointer_keys(x.dtype, ANYWHERE)[1], 0


# ---------------------------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------------------------

def _wide_int(x: int, align: bool) -> tuple[Any, int]:
    if _I64_MIN <= x <= _I64_MAX:
        return ("i64" if not align or x & 15 else "i64/16"), x
    if 0 <= x <= _U64_MAX:
        return ("u64" if not align or x & 15 else "u64/16"), x
    return (INVALID, f"the integer {x}, which does not fit in 64 bits"), x


def _int_full(x: int) -> tuple[Any, int]:
    if x == 1:
        return ONE, 1
    if _I32_MIN <= x <= _I32_MAX:
        return ("i32" if x & 15 else "i32/16"), x
    return _wide_int(x, True)


def _int_no_align(x: int) -> tuple[Any, int]:
    if x == 1:
        return ONE, 1
    if _I32_MIN <= x <= _I32_MAX:
        return "i32", x
    return _wide_int(x, False)


def _int_no_spec(x: int) -> tuple[Any, int]:
    if _I32_MIN <= x <= _I32_MAX:
        return "i32", x
    return _wide_int(x, False)


def _bool(x: bool) -> tuple[str, bool]:
    return "i1", x


def _float(x: float) -> tuple[str, float]:
    return "fp32", x


def _none(x: None) -> tuple[tuple, None]:
    return NONE, None


def _constant(x: Any) -> tuple[tuple, Any]:
    value = x.value if isinstance(x, constexpr) else x
    return (CONST, value, type(value)), value


def _numpy_scalar_spec(cls: type, align: bool) -> Spec:
    dtype = T.from_numpy(np.dtype(cls))
    name = T.to_signature(dtype)
    if dtype.is_floating():
        return lambda x: (name, float(x))
    if dtype.is_bool():
        return lambda x: (name, bool(x))
    aligned = name + "/16"
    if not align:
        return lambda x: (name, int(x))
    return lambda x: (name if int(x) & 15 else aligned, int(x))


def _unsupported(x: Any) -> tuple[tuple, Any]:
    why = getattr(type(x), "__kernellab_argument_error__", None)  # a type that explains itself
    return (INVALID, why or f"a {type(x).__module__}.{type(x).__qualname__}"), x


def _is_constant_type(cls: type) -> bool:
    return (issubclass(cls, (str, constexpr, Type)) or getattr(cls, "__kernellab_jit__", False) is True
            or getattr(cls, "__kernellab_builtin__", False) is True)


# ---------------------------------------------------------------------------------------------
# The three rule sets
# ---------------------------------------------------------------------------------------------

def _tuple_spec(table: SpecTable) -> Spec:
    """Tuples (NamedTuples, ``torch.Size``...): each element by ``table``'s rules; the key holds
    the elements' keys and the class a NamedTuple is rebuilt as, the value the elements' values."""
    def spec(x: tuple) -> tuple[tuple, tuple]:
        pairs = [table[type(v)](v) for v in x]
        cls = type(x) if type(x) is not tuple and is_namedtuple_class(type(x)) else tuple
        return (TUPLE, cls, tuple([key for key, _ in pairs])), tuple([value for _, value in pairs])

    return spec


class SpecTable(dict):
    """Exact argument type -> spec function, resolved on first sight of a type."""

    def __init__(self, ints: Spec, align: bool):
        super().__init__({int: ints, bool: _bool, float: _float, type(None): _none, MockPointer: _mock_spec,
                          np.ndarray: _numpy_aligned if align else _numpy_unaligned})
        self[tuple] = _tuple_spec(self)
        self.align = align

    def __missing__(self, cls: type) -> Spec:
        spec = self.resolve(cls)
        self[cls] = spec
        return spec

    def resolve(self, cls: type) -> Spec:
        if issubclass(cls, np.generic) and not issubclass(cls, (np.complexfloating, np.object_, np.str_, np.bytes_)):
            try:
                return _numpy_scalar_spec(cls, self.align)
            except TypeError:  # a numpy scalar of no kernellab type (datetime64...): reported as unsupported
                return _unsupported
        if _is_constant_type(cls):
            return _constant
        if getattr(cls, "__kernellab_descriptor__", False) is True:  # a host TensorDescriptor: its parts
            parts = _tuple_spec(self)
            return lambda x: parts(x.__kernellab_parts__())
        if issubclass(cls, tuple):
            return self[tuple]
        if issubclass(cls, MockPointer):
            return _mock_spec
        handler = interop.handler_for(cls)
        if handler is interop.NUMPY:
            return _numpy_aligned if self.align else _numpy_unaligned
        if handler is interop.TORCH:
            return _torch_aligned if self.align else _torch_unaligned
        if handler is interop.HOOK:
            return _hook_aligned if self.align else _hook_unaligned
        if handler is not None:
            return _buffer_spec(handler, self.align)
        if issubclass(cls, int):  # IntEnum and other int subclasses
            return lambda x: self[int](int(x))
        if issubclass(cls, float):
            return lambda x: _float(float(x))
        return _unsupported


FULL = SpecTable(_int_full, align=True)
NO_ALIGN = SpecTable(_int_no_align, align=False)
NO_SPEC = SpecTable(_int_no_spec, align=False)


def table_for(do_not_specialize: bool, do_not_specialize_on_alignment: bool) -> SpecTable:
    if do_not_specialize:
        return NO_SPEC
    return NO_ALIGN if do_not_specialize_on_alignment else FULL


# ---------------------------------------------------------------------------------------------
# Reading keys back (on a cache miss)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ArgSpec:
    """What one argument's key says: a ``pointer`` (type, location, divisibility), a
    ``scalar`` (type, divisibility), a ``constant`` (value) or ``invalid`` (why)."""

    kind: str
    type: Any = None
    divisibility: int = 1
    location: str | None = None
    value: Any = None

    @property
    def signature(self) -> str:
        return T.to_signature(self.type)


_DECODED: dict[str, ArgSpec] = {}


def decode(key: Any) -> ArgSpec:
    """The :class:`ArgSpec` of one argument's key (a tuple's: kind ``tuple``, ``type`` the class,
    ``value`` the elements' keys)."""
    if isinstance(key, tuple):
        if key[0] == CONST:
            return ArgSpec("constant", value=key[1])
        if key[0] == TUPLE:
            return ArgSpec("tuple", type=key[1], value=key[2])
        return ArgSpec("invalid", value=key[1])
    found = _DECODED.get(key)
    if found is None:
        found = _DECODED[key] = _decode_text(key)
    return found


def _decode_text(key: str) -> ArgSpec:
    text, _, div = key.partition("/")
    divisibility = int(div) if div else 1
    if text.startswith("*"):
        signature, _, location = text.partition("@")
        return ArgSpec("pointer", T.from_signature(signature), divisibility, location)
    return ArgSpec("scalar", T.from_signature(text), divisibility)


# ---------------------------------------------------------------------------------------------
# The specialization: one path from arguments to what the compiler needs
# ---------------------------------------------------------------------------------------------

@dataclass
class Specialization:
    """What the compiler needs from a launch's arguments: runtime parameter types, constexpr
    values (those given and arguments that specialize to constants, in parameter order),
    facts (``divisibility``) and where pointer arguments live.  ``kernel[grid]`` and
    ``warmup`` make it from the binder's keys (:func:`from_keys`), ``%%tile_kernel`` and the
    notebook tools from example arguments (:func:`from_arguments`, the same rules), ``kl.compile``
    and ``--signature`` from types; all compile it through ``jit.compile_specialization``."""

    signature: dict[str, Any] = field(default_factory=dict)  # Type, or a tuple's nested entry
    constexprs: dict[str, Any] = field(default_factory=dict)
    arg_attrs: dict[str, dict] = field(default_factory=dict)
    pointers: list[tuple[str, str]] = field(default_factory=list)

    def key(self) -> dict[str, Any]:
        """A JSON-able description (for cache keys)."""
        from .cache import stable_value

        return {"signature": {name: describe_entry(entry, stable_value) for name, entry in self.signature.items()},
                "constexprs": {name: stable_value(value) for name, value in self.constexprs.items()},
                "arg_attrs": self.arg_attrs}


def from_keys(jit: Any, keys: Sequence[Any], constexpr_values: Sequence[Any]) -> Specialization:
    """The specialization of ``jit`` whose runtime arguments have ``keys`` (in parameter order,
    as :class:`SpecTable` functions compute them) and whose constexpr parameters have
    ``constexpr_values`` (in parameter order)."""
    value_params, constexpr_params = [], []
    for p in jit.params:  # one pass, plain loops: this runs on every process's first launch
        (constexpr_params if p.is_constexpr else value_params).append(p)
    by_name: dict[str, Any] = {}
    found = Specialization()
    signature = found.signature
    for param, key in zip(value_params, keys):
        spec = decode(key)
        if spec.kind == "constant":
            by_name[param.name] = spec.value
            continue
        entry = _entry(jit, found, param.name, (), spec)
        annotated = param.annotated_type
        if annotated is not None:
            entry = _annotated(jit, param.name, entry, annotated)
        elif param.is_const and isinstance(entry, PointerType):  # tl.const: Triton's "*k" pointer
            entry = T.pointer(entry.element_ty, entry.address_space, const=True)
        signature[param.name] = entry
    for param, value in zip(constexpr_params, constexpr_values):
        by_name[param.name] = value.value if isinstance(value, constexpr) else value
    constexprs = found.constexprs
    if by_name:
        for name in jit.arg_names:
            if name in by_name:
                constexprs[name] = by_name[name]
    return found


def _entry(jit: Any, found: Specialization, name: str, path: tuple[int, ...], spec: ArgSpec) -> Any:
    """The signature entry of one argument (or tuple element) from its decoded key; records its
    facts and where a pointer lives in ``found`` under the leaf's name."""
    leaf = leaf_name(name, path) if path else name
    if spec.kind == "invalid":
        raise KernelArgumentError(
            f"argument `{display_name(leaf)}` of `{jit.__name__}` is {spec.value}; kernels take arrays (numpy, "
            "torch, CuPy, __cuda_array_interface__, DLPack, kl.to_device), Python or numpy scalars, None, "
            "constexpr values (strings, dtypes, jit functions), or tuples of these")
    if spec.kind == "constant":
        return constexpr(spec.value)
    if spec.kind == "tuple":
        items = [_entry(jit, found, name, (*path, i), decode(k)) for i, k in enumerate(spec.value)]
        return spec.type(*items) if spec.type is not tuple else tuple(items)
    if spec.divisibility > 1:
        found.arg_attrs[leaf] = {"divisibility": spec.divisibility}
    if spec.kind == "pointer":
        found.pointers.append((leaf, spec.location))
    return spec.type


def _annotated(jit: Any, name: str, entry: Any, annotated: Type) -> Type:
    """The type of a parameter annotated with a dtype: the annotation's (Triton's rule), when the
    argument is of its kind (a scalar for a scalar dtype, an array for a pointer)."""
    if isinstance(entry, Type) and isinstance(entry, PointerType) == isinstance(annotated, PointerType):
        return annotated
    raise KernelArgumentError(f"argument `{name}` of `{jit.__name__}` is annotated {annotated} but its argument is "
                              f"{'a constant' if not isinstance(entry, Type) else entry}; pass a "
                              f"{'tensor' if isinstance(annotated, PointerType) else 'number'}")


def from_arguments(jit: Any, named: dict[str, Any]) -> Specialization:
    """The specialization a launch of ``jit`` with the arguments ``named`` (by parameter name;
    defaults fill the others) compiles: the binder's rules, per argument."""
    values = []
    for param in jit.params:
        if param.name not in named and not param.has_default:
            raise KernelArgumentError(f"`{jit.__name__}` needs a value for `{param.name}` (its parameters are "
                                      f"{', '.join(jit.arg_names)})")
        values.append(named.get(param.name, param.default))
    keys = [table_for(p.do_not_specialize, p.do_not_specialize_on_alignment)[type(v)](v)[0]
            for p, v in zip(jit.params, values) if not p.is_constexpr]
    return from_keys(jit, keys, [v for p, v in zip(jit.params, values) if p.is_constexpr])


def mock_argument(arg: Any) -> Any:
    """For ``warmup``: dtypes standing for pointer arguments become :class:`MockPointer`s
    (kernellab types, numpy dtypes, torch dtypes and ``"*fp32"`` strings)."""
    if isinstance(arg, ScalarType):
        return MockPointer(arg)
    if isinstance(arg, np.dtype):
        return MockPointer(interop.dtype_of_numpy(arg))
    if isinstance(arg, str) and arg.startswith("*"):
        return MockPointer(T.from_signature(arg[1:]))
    torch = interop.torch_module()
    if torch is not None and isinstance(arg, torch.dtype):
        return MockPointer(interop.dtype_of_torch(arg))
    return arg


__all__ = ["SpecTable", "FULL", "NO_ALIGN", "NO_SPEC", "table_for", "ArgSpec", "decode", "MockPointer",
           "Specialization", "from_keys", "from_arguments",
           "mock_argument", "pointer_keys", "CONST", "INVALID", "TUPLE", "ANYWHERE", "ONE", "NONE"]
