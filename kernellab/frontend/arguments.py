"""Kernel parameters that take tuples: nested signature entries and their leaves.

A tuple argument (of arrays, scalars, constexprs, nested tuples; a ``NamedTuple`` keeps its
class) is specialized per element, so its signature entry is a *nested entry*: a tuple with the
argument's structure whose leaves are ``Type`` objects (runtime elements) or ``constexpr``
values (elements specialized to constants: ``None``, ints equal to 1, ``tl.constexpr(...)``,
dtypes, jit functions)::

    signature = {"x_ptr": ptr<f32>, "Ptrs": (ptr<f32>, (constexpr[1], i32))}

Each runtime leaf is one kernel argument (one IR argument, one launcher value) named by its
path with dots, ``Ptrs.0``, ``Ptrs.1.1`` (parameter names have no dots), which is how the
metadata's flat ``signature``, ``arg_attrs`` and the launchers name them; messages show
``Ptrs[1][1]``.  This module is shared by the frontend (IR arguments, bindings) and the runtime
(specialization, metadata, the launch path): it imports only types and ``constexpr``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from ..ir import types as T
from ..ir.types import Type
from ..language.core import constexpr, is_namedtuple_class, same_structure

SEPARATOR = "."

Path = tuple[int, ...]


def leaf_name(name: str, path: Path) -> str:
    """The argument name of the leaf at ``path`` of parameter ``name``: ``Ptrs.1.0``."""
    return SEPARATOR.join([name, *map(str, path)])


def split_leaf_name(leaf: str) -> tuple[str, Path]:
    """``"Ptrs.1.0"`` -> ``("Ptrs", (1, 0))``; a plain parameter name has the empty path."""
    name, *rest = leaf.split(SEPARATOR)
    return name, tuple(int(part) for part in rest)


def display_name(leaf: str) -> str:
    """How messages name a leaf: ``Ptrs[1][0]`` (any other name as it is)."""
    if SEPARATOR not in leaf:  # a plain parameter's name (every name of most kernels)
        return leaf
    name, *rest = leaf.split(SEPARATOR)
    if not all(part.isdigit() for part in rest):
        return leaf
    return name + "".join(f"[{part}]" for part in rest)


def leaves(entry: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """``(path, leaf)`` of every leaf of a (possibly nested) entry, in order."""
    if isinstance(entry, tuple):
        for index, item in enumerate(entry):
            yield from leaves(item, (*path, index))
    else:
        yield path, entry


def runtime_leaves(signature: dict[str, Any]) -> dict[str, Type]:
    """The flat signature: leaf name -> type of every runtime leaf, in parameter order (a plain
    entry is its own leaf, under the parameter's name)."""
    return {leaf_name(name, path): leaf for name, entry in signature.items()
            for path, leaf in leaves(entry) if isinstance(leaf, Type)}


def constant_leaves(signature: dict[str, Any]) -> dict[str, Any]:
    """Leaf name -> value of every compile-time leaf of the tuple entries."""
    return {leaf_name(name, path): leaf.value for name, entry in signature.items() if isinstance(entry, tuple)
            for path, leaf in leaves(entry) if isinstance(leaf, constexpr)}


def has_tuples(signature: dict[str, Any]) -> bool:
    return any(isinstance(entry, tuple) for entry in signature.values())


def get_path(value: Any, path: Path) -> Any:
    """The element of ``value`` at ``path`` (``value[i][j]...``; a host tensor descriptor as its
    :class:`HostDescriptor` parts)."""
    for index in path:
        parts = getattr(value, "__kernellab_parts__", None)
        value = (parts() if parts is not None else value)[index]
    return value


class HostDescriptor(NamedTuple):
    """A host tensor descriptor (``TensorDescriptor``, as Triton's ``triton.tools``) as a kernel
    argument: a tuple argument whose elements are specialized as any (the base pointer's
    alignment, ints equal to 1 — a contiguous last stride — and divisibility), with the block
    shape and padding compile-time constants; the frontend binds the parameter to
    ``tl.make_tensor_descriptor`` of its parts, so every target takes it, and on CUDA the launch
    encodes its tensor map (``backends/cuda/tma.py``)."""

    base: Any
    shape: tuple
    strides: tuple
    block_shape: tuple  # of constexpr
    padding: Any  # constexpr


def host_descriptor(desc: Any) -> HostDescriptor:
    """The parts of a host descriptor (an object with ``base``, ``shape``, ``strides``,
    ``block_shape`` and ``padding``)."""
    return HostDescriptor(desc.base, tuple(desc.shape), tuple(desc.strides),
                          tuple(constexpr(int(b)) for b in desc.block_shape), constexpr(str(desc.padding)))


def parse_entry(name: str, spec: Any, constant: Any = None) -> Any:
    """A signature entry as a type or a nested entry: ``Type`` objects, Triton's spellings
    (``"*fp32"``, ``"i32"``) and tuples of them; a tuple's ``"constexpr"`` leaf takes its value
    from ``constant(path)``; ``constexpr`` values stay as they are."""
    return _parse(name, spec, (), constant)


def _parse(name: str, spec: Any, path: Path, constant: Any) -> Any:
    if isinstance(spec, Type):
        return spec
    if isinstance(spec, constexpr):
        return spec
    if isinstance(spec, tuple):
        return same_structure(spec, [_parse(name, item, (*path, i), constant) for i, item in enumerate(spec)])
    if isinstance(spec, str) and path and spec == "constexpr":
        if constant is None:
            raise TypeError(f"the signature gives `{display_name(leaf_name(name, path))}` as 'constexpr' but no "
                            "value for it")
        return constexpr(constant(path))
    if isinstance(spec, str):
        return T.from_signature(spec)
    where = display_name(leaf_name(name, path))
    raise TypeError(f"the signature gives `{where}` the type {spec!r}; expected a kernellab type (tl.float32, a "
                    "pointer type), a string such as '*fp32' or 'i32', or a tuple of those")


def describe_entry(entry: Any, stable: Any) -> Any:
    """A JSON form of an entry (for cache keys and metadata): spellings for types,
    ``{"constexpr": stable(value)}`` for constants, ``{"tuple": [...]}`` for tuples, and for a
    NamedTuple ``{"namedtuple": "module.Class", "fields": [...], "tuple": [...]}``."""
    if isinstance(entry, Type):
        return T.to_signature(entry)
    if isinstance(entry, constexpr):
        return {"constexpr": stable(entry.value)}
    described: dict[str, Any] = {"tuple": [describe_entry(item, stable) for item in entry]}
    cls = type(entry)
    if cls is not tuple:
        described = {"namedtuple": f"{cls.__module__}.{cls.__qualname__}", "fields": list(cls._fields), **described}
    return described


def type_text(entry: Any) -> str:
    """A readable form of an entry: ``(*fp32, constexpr 1)``."""
    if isinstance(entry, Type):
        return T.to_signature(entry)
    if isinstance(entry, constexpr):
        return f"constexpr {entry.value!r}"
    inner = ", ".join(type_text(item) for item in entry)
    return f"({inner}{',' if len(entry) == 1 else ''})"


__all__ = ["SEPARATOR", "is_namedtuple_class", "same_structure", "leaf_name", "split_leaf_name", "display_name",
           "leaves", "runtime_leaves", "constant_leaves", "has_tuples", "get_path", "parse_entry", "describe_entry",
           "type_text", "HostDescriptor", "host_descriptor"]
