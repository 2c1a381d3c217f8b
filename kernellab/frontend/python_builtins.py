"""Python's builtins that kernels may call: they run at compile time on compile-time values
(``len(shape)``, ``min(BLOCK, 64)``, ``isinstance(x, tl.tensor)``); ``min``/``max`` and
``abs`` also work on tensors; ``print`` becomes ``tl.device_print``."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

from .. import language
from ..language.compat import tuple_type
from ..language.core import constexpr, semantic, tensor
from ..language.semantics import SemanticError
from .values import holds_tensor, unwrap, wrap

Handler = Callable[[list, dict], Any]


def _compile_time_args(name: str, args: list, kwargs: dict) -> tuple[list, dict]:
    if holds_tensor(list(args)) or holds_tensor(list(kwargs.values())):
        raise SemanticError(f"{name}() runs at compile time and cannot take a kernel tensor (its value is only "
                            "known when the kernel runs)")
    return [unwrap(a) for a in args], {k: unwrap(v) for k, v in kwargs.items()}


def _static(fn: Callable) -> Handler:
    """A builtin applied to unwrapped compile-time values; the result is wrapped again."""

    def handler(args: list, kwargs: dict) -> Any:
        raw_args, raw_kwargs = _compile_time_args(fn.__name__, args, kwargs)
        return wrap(fn(*raw_args, **raw_kwargs))

    return handler


def sequence_items(value: Any) -> tuple:
    """The items of a tuple, list or constexpr tuple, as kernel values."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    raw = unwrap(value)
    if isinstance(raw, (tuple, list, range, str, tuple_type)):
        return tuple(wrap(v) for v in raw)
    if isinstance(value, tensor):
        raise SemanticError("a kernel tensor is not iterable at compile time; use tl.split, tl.reshape or "
                            "indexing")
    raise SemanticError(f"{type(raw).__name__} is not iterable")


def _extremum(name: str, python_fn: Callable, tl_method: str) -> Handler:
    def handler(args: list, kwargs: dict) -> Any:
        if kwargs:
            raise SemanticError(f"{name}() in a kernel takes no keyword arguments")
        items = list(sequence_items(args[0])) if len(args) == 1 else list(args)
        if not items:
            raise SemanticError(f"{name}() needs at least one value")
        if not holds_tensor(items):
            values = [unwrap(v) for v in items]
            _check_orderable(name, values)
            return wrap(python_fn(values))
        result = items[0]
        for item in items[1:]:
            result = getattr(semantic(), tl_method)(result, item)
        return result

    return handler


def _check_orderable(name: str, values: list) -> None:
    """As Triton: no NaN and no -0.0 among compile-time values to ``min``/``max``, whose
    result Python's comparisons would make depend on the order of the arguments."""
    for value in values:
        if isinstance(value, float) and (math.isnan(value) or value == 0.0 and math.copysign(1.0, value) < 0):
            raise SemanticError(f"{name}() of compile-time values cannot take {value!r}: Python's {name}() then "
                                "depends on the order of its arguments; use tl.minimum/tl.maximum on tensors for "
                                "IEEE semantics")


def _len(args: list, kwargs: dict) -> Any:
    if len(args) != 1 or kwargs:
        raise SemanticError("len() takes exactly one argument")
    value = args[0]
    if isinstance(value, tensor):
        raise SemanticError("len() of a kernel tensor is not defined; use x.shape[0] or x.numel")
    return constexpr(len(sequence_items(value)))


def _conversion(fn: Callable) -> Handler:
    def handler(args: list, kwargs: dict) -> Any:
        if args and isinstance(args[0], tensor):
            raise SemanticError(f"{fn.__name__}() of a kernel tensor is not known at compile time; "
                                f"use x.to(tl.{_dtype_for(fn)}) to convert its type")
        return _static(fn)(args, kwargs)

    return handler


def _dtype_for(fn: Callable) -> str:
    return {"int": "int32", "float": "float32", "bool": "int1"}[fn.__name__]


def _isinstance(args: list, kwargs: dict) -> Any:
    if len(args) != 2 or kwargs:
        raise SemanticError("isinstance() takes exactly two arguments")
    value, classes = args
    classes = unwrap(classes)
    classes = classes if isinstance(classes, tuple) else (classes,)
    result = any(isinstance(value, cls) if cls is constexpr else isinstance(unwrap(value), cls) for cls in classes)
    return constexpr(result)


def _getattr(args: list, kwargs: dict) -> Any:
    if len(args) not in (2, 3) or kwargs:
        raise SemanticError("getattr() takes two or three arguments")
    target, name = args[0], unwrap(args[1])
    if not isinstance(name, str):
        raise SemanticError("getattr()'s attribute name must be a compile-time string")
    holder = target if isinstance(target, tensor) else unwrap(target)
    if len(args) == 3:
        return wrap(getattr(holder, name, args[2]))
    return wrap(getattr(holder, name))


def _hasattr(args: list, kwargs: dict) -> Any:
    if len(args) != 2 or kwargs:
        raise SemanticError("hasattr() takes exactly two arguments")
    target, name = args[0], unwrap(args[1])
    holder = target if isinstance(target, tensor) else unwrap(target)
    return constexpr(hasattr(holder, name))


def _zip(args: list, kwargs: dict) -> Any:
    if kwargs:
        raise SemanticError("zip() in a kernel takes no keyword arguments")
    return tuple(zip(*(sequence_items(a) for a in args)))


def _enumerate(args: list, kwargs: dict) -> Any:
    start = unwrap(kwargs.pop("start", args[1] if len(args) > 1 else 0))
    if kwargs or not args:
        raise SemanticError("enumerate() takes a tuple and an optional start")
    return tuple((constexpr(start + i), v) for i, v in enumerate(sequence_items(args[0])))


def _tuple(args: list, kwargs: dict) -> Any:
    if kwargs or len(args) > 1:
        raise SemanticError("tuple() takes at most one argument")
    return sequence_items(args[0]) if args else ()


def _abs(args: list, kwargs: dict) -> Any:
    if len(args) != 1 or kwargs:
        raise SemanticError("abs() takes exactly one argument")
    return abs(args[0]) if isinstance(args[0], (tensor, constexpr)) else wrap(abs(unwrap(args[0])))


def _print(args: list, kwargs: dict) -> Any:
    """``print(...)`` -> ``tl.device_print(prefix, *tensors)``: a leading string is the prefix."""
    device_print = getattr(language, "device_print", None)
    if device_print is None:
        raise SemanticError("print() needs tl.device_print, which this kernellab.language does not provide")
    kwargs = {k: v for k, v in kwargs.items() if k not in ("sep", "end", "flush")}
    if args and isinstance(unwrap(args[0]), str):
        return device_print(args[0], *args[1:], **kwargs)
    return device_print("", *args, **kwargs)


def _range(args: list, kwargs: dict) -> Any:
    raise SemanticError("range() can only be used as the iterable of a `for` loop in a kernel")


HANDLERS: dict[Any, Handler] = {
    builtins.range: _range,
    builtins.len: _len,
    builtins.min: _extremum("min", builtins.min, "minimum"),
    builtins.max: _extremum("max", builtins.max, "maximum"),
    builtins.int: _conversion(builtins.int),
    builtins.float: _conversion(builtins.float),
    builtins.bool: _conversion(builtins.bool),
    builtins.isinstance: _isinstance,
    builtins.getattr: _getattr,
    builtins.hasattr: _hasattr,
    builtins.zip: _zip,
    builtins.enumerate: _enumerate,
    builtins.tuple: _tuple,
    builtins.print: _print,
    builtins.abs: _abs,
}

ALLOWED = ", ".join(f.__name__ for f in HANDLERS)


def handler_for(fn: Any) -> Handler | None:
    """The compile-time implementation of a Python builtin, if kernels may call it."""
    try:
        return HANDLERS.get(fn)
    except TypeError:  # unhashable callee
        return None


def is_python_builtin(fn: Any) -> bool:
    return getattr(builtins, getattr(fn, "__name__", ""), None) is fn


__all__ = ["HANDLERS", "ALLOWED", "handler_for", "is_python_builtin", "sequence_items"]
