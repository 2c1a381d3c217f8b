"""Triton's type-level names that kernellab models with Python's own objects.

In kernellab a kernel's tuple is a Python tuple and a constexpr's type is its Python value, so
these classes exist for code that names them: ``tl.tuple((a, b))`` is a tuple,
``isinstance(x, tl.tuple)`` holds for every tuple, ``tl.tuple_type``/``tl.constexpr_type``
describe them, ``tl.str_to_ty`` reads Triton's signature spellings, and ``tl.condition`` marks a
``while`` loop's condition.
"""

from __future__ import annotations

import builtins
from typing import Any

from ..ir import types as _types
from .core import SemanticError, builtin, compile_time, constexpr, semantic, unwrap


class const:
    """An annotation marking a pointer parameter as pointing to constant data (Triton's
    ``tl.const``): its type is ``ptr<const T>`` (Triton's ``*kT``), which no store or atomic may
    write through, and which does not merge with ``ptr<T>`` (an ``if``, a ternary, a function's
    returns), as in Triton."""


class constexpr_type:
    """The type of a compile-time value: equal when the values are equal."""

    def __init__(self, value: Any):
        self.value = unwrap(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value}]"


class tuple_type:
    """The type of a tuple of kernel values: element types and (for named tuples) field names."""

    def __init__(self, types: Any, fields: Any = None):
        self.types = list(types)
        self.fields = list(fields) if fields else [""] * len(self.types)
        self.name = "[" + ",".join(f"{k}:{v}" for k, v in zip(self.fields, self.types)) + "]"

    def __str__(self) -> str:
        return self.name

    def __iter__(self):
        return iter(self.types)

    def __len__(self) -> int:
        return len(self.types)

    def __getitem__(self, index: int) -> Any:
        return self.types[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, tuple_type) and (self.types, self.fields) == (other.types, other.fields)

    def __hash__(self) -> int:
        return hash(builtins.tuple(self.types))


def type_of(value: Any) -> Any:
    """Triton's ``x.type`` of a kernel value: a tensor's type, ``tuple_type`` of a tuple,
    ``constexpr_type`` of a compile-time value."""
    if isinstance(value, builtins.tuple):
        return tuple_type([type_of(v) for v in value], getattr(type(value), "_fields", None))
    found = getattr(value, "type", None)
    return found if isinstance(found, _types.Type) else constexpr_type(value)


class _PythonClass(type):
    """``isinstance(x, tl.tuple)`` / ``tl.slice``: true for every Python tuple / slice."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._python_class)


class tuple(builtins.tuple, metaclass=_PythonClass):
    """Triton's ``tl.tuple``: a kernel tuple.  ``tl.tuple([a, b])`` is the tuple ``(a, b)``, and
    every Python tuple is a ``tl.tuple``."""

    _python_class = builtins.tuple

    def __new__(cls, args: Any = (), type: Any = None):
        return builtins.tuple.__new__(cls, args)

    @property
    def values(self) -> list:
        return list(self)

    @property
    def type(self) -> tuple_type:
        return type_of(self)


class slice(metaclass=_PythonClass):
    """Triton's ``tl.slice(start, stop, step)``: Python's slice (kernels index with ``a:b``)."""

    _python_class = builtins.slice

    def __new__(cls, start: Any = None, stop: Any = None, step: Any = None):
        return builtins.slice(unwrap(start), unwrap(stop), unwrap(step))


class tensor_descriptor_type:
    """The type of a tensor descriptor, as Triton spells it: the block type and the types of the
    shape and stride tuples.  kernellab's own is ``desc<...>`` (``ir.types.TensorDescType``)."""

    def __init__(self, block_type: Any, shape_type: Any = None, strides_type: Any = None):
        self.block_type = block_type
        self.shape_type = shape_type
        self.strides_type = strides_type

    def __eq__(self, other: object) -> bool:
        return isinstance(other, tensor_descriptor_type) and self.block_type == other.block_type

    def __hash__(self) -> int:
        return hash(self.block_type)

    def __str__(self) -> str:
        return f"tensordesc<{self.block_type}>"


def str_to_ty(name: Any, c: Any = None) -> Any:
    """A type from Triton's signature spelling: ``"*fp32"``, ``"i32"``, ``"fp16"``, ``"*kfp16"``
    (pointer to const), ``"constexpr"``, a tuple of spellings."""
    if isinstance(name, builtins.tuple):
        return tuple_type([str_to_ty(n, c) for n in name], getattr(type(name), "_fields", None))
    name = str(unwrap(name))
    if name == "constexpr":
        return constexpr_type(c)
    return _types.from_signature(name)


def must_use_result(x: Any, s: Any = True) -> Any:
    """Mark a builtin whose result must be used (Triton's ``triton.must_use_result``): a kernel
    statement that drops it is a compile error (``s``, when a string, is the message).
    ``@must_use_result("why")`` and ``must_use_result(fn)`` both work."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


class LoopCondition:
    """What ``tl.condition`` gives: a ``while`` loop's condition with the loop's hints."""

    def __init__(self, value: Any, disable_licm: bool):
        self.value, self.disable_licm = value, disable_licm

    def __bool__(self) -> bool:
        raise SemanticError("tl.condition marks the condition of a while loop (`while tl.condition(c): ...`); "
                            "use the condition itself elsewhere")


@builtin
def condition(arg: Any, disable_licm: Any = False) -> Any:
    """``while tl.condition(c, disable_licm=True):`` — the loop's condition ``c``, with the hint
    that loop-invariant code stays inside the loop (kernellab's LICM and LLVM's leave it)."""
    value = semantic().to_tensor(unwrap(arg)) if not isinstance(arg, constexpr) else arg
    return LoopCondition(value, bool(compile_time(disable_licm, "tl.condition's disable_licm")))


__all__ = ["const", "constexpr_type", "tuple", "tuple_type", "slice", "tensor_descriptor_type", "str_to_ty",
           "condition", "LoopCondition", "must_use_result", "type_of"]
