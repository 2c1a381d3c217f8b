"""The values a kernel's Python names hold while it is lowered.

* ``tensor``: a runtime value (scalar or tile) with its Tile IR handle;
* ``constexpr``: a compile-time value (numbers, strings, None, and anything a constexpr
  parameter holds);
* a Python ``tuple`` (or ``list``, for literals such as ``[BLOCK_M, BLOCK_N]``) of values;
* an aggregate (``tl.core._aggregate``): an object whose fields hold values;
* compile-time objects held as they are: modules, dtypes, jit functions, builtins, classes.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..ir.types import Type
from ..language.aggregate import field_names, field_values, is_aggregate
from ..language.core import TensorShape, constexpr, named_number, tensor, unwrap  # unwrap: constexprs -> Python values
from .arguments import same_structure

_PLAIN = (bool, int, float, complex, str, bytes, slice, type(None), type(Ellipsis))


def wrap(value: Any) -> Any:
    """A Python value as a kernel value: numbers, strings and None become constexprs; tuples
    are wrapped elementwise (a NamedTuple stays one); tensors, constexprs and compile-time objects stay as they are."""
    if isinstance(value, (tensor, constexpr, TensorShape)):  # a shape's sizes are constexprs already
        return value
    if isinstance(value, tuple):
        return same_structure(value, [wrap(v) for v in value])
    if isinstance(value, list):
        return [wrap(v) for v in value]
    if isinstance(value, _PLAIN) or isinstance(value, numbers.Number):
        return constexpr(value)
    return value


def bound_value(value: Any) -> Any:
    """What a variable holds after ``name = value`` (Triton's rule for assignments): a number --
    a literal, a constexpr's or a numpy scalar -- becomes a :class:`named_number`, typed as the
    0-d tensor Triton makes of it; anything else is bound as it is."""
    if isinstance(value, (tensor, named_number)):
        return value
    number = value.value if isinstance(value, constexpr) else value
    if isinstance(number, np.generic):
        number = number.item()
    if isinstance(number, (bool, int, float)):
        return named_number(number)
    return value


def holds_tensor(value: Any) -> bool:
    """Whether ``value`` is a tensor or a tuple/list/aggregate containing one."""
    if isinstance(value, tensor):
        return True
    if isinstance(value, (tuple, list)):
        return any(holds_tensor(v) for v in value)
    if is_aggregate(value):
        return any(holds_tensor(v) for v in field_values(value))
    return False


def holds_aggregate(value: Any) -> bool:
    """Whether ``value`` is an aggregate or a tuple/list containing one (something compile-time
    code may change in place)."""
    if is_aggregate(value):
        return True
    if isinstance(value, (tuple, list)):
        return any(holds_aggregate(v) for v in value)
    return False


def is_number(value: Any) -> bool:
    """A constexpr (or plain) Python number, bools included."""
    raw = unwrap(value)
    return isinstance(raw, numbers.Number) and not isinstance(raw, complex)


def describe(value: Any) -> str:
    """A short description of a value for error messages (``tile<128xf32>``, ``constexpr 3``)."""
    if isinstance(value, tensor):
        return value.type.ir
    if isinstance(value, constexpr):
        return f"the compile-time value {value.value!r}"
    if isinstance(value, tuple):
        return "(" + ", ".join(describe(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, Type):
        return f"the dtype {value.name}"
    if is_aggregate(value):
        fields = zip(field_names(type(value)), field_values(value))
        return f"{type(value).__name__}(" + ", ".join(f"{name}={describe(v)}" for name, v in fields) + ")"
    name = getattr(value, "__name__", None)
    return f"`{name}`" if name else f"a {type(value).__name__}"


def same_constant(a: Any, b: Any) -> bool:
    """Whether two compile-time values are the same (``1`` and ``True`` are not)."""
    a, b = unwrap(a), unwrap(b)
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__ are compared by identity
        return False


def truth(value: Any) -> bool:
    """The Python truth value of a compile-time value."""
    return bool(unwrap(value))


__all__ = ["wrap", "unwrap", "holds_tensor", "holds_aggregate", "is_number", "describe", "truth", "same_constant"]
