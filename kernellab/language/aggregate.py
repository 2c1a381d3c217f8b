"""User-defined aggregates: Triton's ``tl.core._aggregate`` class decorator.

An aggregate groups kernel values under field names, with methods::

    @tl.core._aggregate
    class Pair:
        first: tl.tensor
        second: tl.tensor

        def __init__(self, first, second):      # runs at compile time, in the kernel
            self.first = first
            self.second = second

        @kl.jit
        def total(self):                        # a jit method: `self` is the aggregate
            return self.first + self.second

        def swapped(self, _semantic=None):      # a compile-time method (builtins take _semantic)
            return Pair(self.second, self.first, _semantic=_semantic)

The annotated names are the fields, in order; the constructor must set every one of them, and
only them.  A field annotated ``tl.tensor`` takes tensors (a compile-time number becomes a scalar
tensor, as Triton's variables hold numbers as tensors); one annotated ``tl.constexpr`` takes
compile-time values; any other class annotation is checked with ``isinstance``.  A kernel keeps
an aggregate as it keeps a tuple: it is flattened to its fields' IR values where it crosses a
boundary (jit calls and returns, loops, ``if``), a ``tl.constexpr`` field staying a compile-time
value.  Kernels may not assign a field (``p.first = x`` is a compile error, as in Triton): only
the constructor and compile-time methods do.

``_semantic`` (and ``_generator``) parameters, which Triton passes to compile-time code, receive
the active semantics; kernellab's builtins accept ``_semantic=`` and ignore it.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from typing import Any

from .core import constexpr, semantic, tensor

AGGREGATE_ATTR = "__kernellab_aggregate__"
FIELDS_ATTR = "__kernellab_fields__"


def is_aggregate(value: Any) -> bool:
    """An instance of an aggregate class."""
    return getattr(type(value), AGGREGATE_ATTR, False) is True and not isinstance(value, type)


def is_aggregate_class(value: Any) -> bool:
    return isinstance(value, type) and getattr(value, AGGREGATE_ATTR, False) is True


def field_names(cls: type) -> tuple[str, ...]:
    return getattr(cls, FIELDS_ATTR)


def field_values(value: Any) -> tuple:
    """An aggregate's field values, in declaration order."""
    return tuple(object.__getattribute__(value, name) for name in field_names(type(value)))


def from_fields(cls: type, values: Any) -> Any:
    """An instance of the aggregate class ``cls`` holding ``values`` (its constructor does not
    run: this is how a kernel rebuilds an aggregate on the other side of a boundary)."""
    instance = object.__new__(cls)
    for name, value in zip(field_names(cls), values, strict=True):
        object.__setattr__(instance, name, value)
    return instance


def call_with_semantic(fn: Callable, args: Any, kwargs: dict) -> Any:
    """Call compile-time code written for Triton: ``_semantic`` (the active semantics) and
    ``_generator`` (None: kernellab has no code generator object) are passed when ``fn`` takes
    them and the caller did not."""
    wanted = _special_parameters(fn)
    if "_semantic" in wanted and "_semantic" not in kwargs:
        kwargs = {**kwargs, "_semantic": semantic()}
    if "_generator" in wanted and "_generator" not in kwargs:
        kwargs = {**kwargs, "_generator": None}
    return fn(*args, **kwargs)


def _special_parameters(fn: Callable) -> set[str]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return set()
    return {name for name in ("_semantic", "_generator") if name in params}


def _check_field(cls: type, name: str, value: Any) -> Any:
    """The value a field ``name`` of ``cls`` keeps for ``value`` (see the module's docstring)."""
    annotation = cls.__annotations__[name]
    if isinstance(annotation, str):
        annotation = _resolve(cls, annotation)
    if annotation is tensor:
        raw = value.value if isinstance(value, constexpr) else value
        if not isinstance(value, tensor) and isinstance(raw, numbers.Number):
            return semantic().to_tensor(raw)
    elif annotation is constexpr:
        raw = value.value if isinstance(value, constexpr) else value
        if isinstance(raw, tensor):
            raise TypeError(f"the field `{name}` of {cls.__name__} is a tl.constexpr, but it is given a tensor "
                            f"({raw.type.ir}), whose value is only known when the kernel runs")
        return constexpr(raw)
    if isinstance(annotation, type) and not isinstance(value, annotation):
        raise TypeError(f"Expected {getattr(annotation, '__name__', annotation)} for attribute '{name}' of "
                        f"{cls.__name__}, got {type(value).__name__}")
    return value


def _resolve(cls: type, annotation: str) -> Any:
    """A string annotation (``from __future__ import annotations``) evaluated in the class's
    module; unresolvable ones are not checked."""
    import sys

    namespace = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
    try:
        return eval(annotation, dict(namespace))  # noqa: S307 - the user's own annotation text
    except Exception:  # noqa: BLE001 - an annotation that names a local: left unchecked
        return None


def aggregate(cls: type) -> type:
    """Make ``cls`` an aggregate (Triton's ``tl.core._aggregate``); see the module docstring."""
    fields = tuple(cls.__dict__.get("__annotations__", {}))
    user_init = cls.__dict__.get("__init__")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if user_init is not None:
            call_with_semantic(user_init, (self, *args), kwargs)
        elif args or kwargs:
            raise TypeError(f"{cls.__name__}() has no __init__ and takes no arguments")
        missing = [name for name in fields if name not in vars(self)]
        if missing:
            raise AttributeError(f"constructor for {cls.__name__} did not initialize attribute '{missing[0]}'")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if name not in fields:
            raise AttributeError(f"{cls.__name__} has no attribute '{name}' (its fields are {', '.join(fields)})")
        object.__setattr__(self, name, _check_field(cls, name, value))

    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={vars(self).get(name)!r}" for name in fields)
        return f"{cls.__name__}({shown})"

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__doc__ = getattr(user_init, "__doc__", None)
    cls.__init__ = __init__
    cls.__setattr__ = __setattr__
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = __repr__
    setattr(cls, FIELDS_ATTR, fields)
    setattr(cls, AGGREGATE_ATTR, True)
    return cls


__all__ = ["aggregate", "is_aggregate", "is_aggregate_class", "field_names", "field_values", "from_fields",
           "call_with_semantic", "AGGREGATE_ATTR"]
