"""What kernel code manipulates: ``constexpr`` values, ``tensor`` values, and the builtin
machinery.

While the frontend compiles a kernel it activates a :class:`~kernellab.language.semantics.Semantic`
(:func:`activate`); builtins, tensor operators and ``constexpr`` arithmetic find it with
:func:`semantic`.  Outside a compilation, calling a builtin raises a clear error.

Layers: this module holds the value classes and the dispatch; the typing rules (promotion,
broadcasting, casts) and IR construction live in ``kernellab.language.semantics``; the
frontend (``kernellab.frontend``) walks the Python AST and calls into both.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

from ..ir import types as _types
from ..ir.core import Value
from ..ir.types import Type

if TYPE_CHECKING:  # pragma: no cover
    from .semantics import Semantic

T = TypeVar("T")

_ACTIVE: contextvars.ContextVar[Semantic | None] = contextvars.ContextVar("kernellab_semantic", default=None)

BUILTIN_ATTR = "__kernellab_builtin__"
CONSTEXPR_FUNCTION_ATTR = "__kernellab_constexpr_function__"


@contextmanager
def activate(sem: Semantic) -> Iterator[Semantic]:
    """Make ``sem`` the semantics that builtins and operators use (the frontend does this)."""
    token = _ACTIVE.set(sem)
    try:
        yield sem
    finally:
        _ACTIVE.reset(token)


def semantic() -> Semantic:
    """The active semantics; raises outside a kernel compilation."""
    sem = _ACTIVE.get()
    if sem is None:
        raise RuntimeError("kernellab.language functions can only be called inside a @kernellab.jit "
                           "function (did you forget the @jit decorator?)")
    return sem


def builtin(fn: Callable[..., T]) -> Callable[..., T]:
    """Mark a language function as a builtin: kernels may call it; it runs at compile time and
    builds IR through the active semantics."""
    setattr(fn, BUILTIN_ATTR, True)
    return fn


def is_builtin(fn: Any) -> bool:
    return getattr(fn, BUILTIN_ATTR, False)


def constexpr_function(fn: Callable[..., T]) -> Callable[..., T]:
    """A plain Python function that kernels may call with constexpr arguments; it runs at
    compile time and its result is a constexpr (``kl.cdiv(N, BLOCK)``).  Outside kernels it
    is an ordinary function."""
    setattr(fn, CONSTEXPR_FUNCTION_ATTR, True)
    return fn


def is_constexpr_function(fn: Any) -> bool:
    return getattr(fn, CONSTEXPR_FUNCTION_ATTR, False)


def _unwrap(x: Any) -> Any:
    return x.value if isinstance(x, constexpr) else x


class constexpr:
    """A value known at compile time.  As an annotation (``BLOCK: tl.constexpr``) it marks a
    kernel parameter as compile-time; as a value it wraps Python numbers, strings, types,
    functions and tuples.  Arithmetic between constexprs folds in Python."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __str__(self) -> str:
        return str(self.value)

    def __hash__(self) -> int:
        return hash(self.value)

    def __index__(self) -> int:
        return self.value.__index__()

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.value, name)

    def __iter__(self):
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __getitem__(self, index):
        return constexpr(self.value[_unwrap(index)])


def _constexpr_binary(py_op: Callable[[Any, Any], Any], method: str, reflected: bool = False):
    """A constexpr operator: folds with Python when the other side is not a tensor, otherwise
    defers to the tensor's operator (so ``BLOCK * pid`` builds IR)."""

    def op(self: constexpr, other: Any) -> Any:
        if isinstance(other, tensor):
            return NotImplemented
        a, b = (_unwrap(other), self.value) if reflected else (self.value, _unwrap(other))
        return constexpr(py_op(a, b))

    op.__name__ = method
    return op


def _c_div(a, b):
    if isinstance(a, int) and isinstance(b, int):  # C semantics, as on tensors
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a // b


def _c_mod(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a - _c_div(a, b) * b
    import math

    return math.fmod(a, b)


import operator as _operator  # noqa: E402

_CONSTEXPR_BINARY = {
    "add": _operator.add, "sub": _operator.sub, "mul": _operator.mul, "truediv": _operator.truediv,
    "floordiv": _c_div, "mod": _c_mod, "pow": _operator.pow, "and": _operator.and_, "or": _operator.or_,
    "xor": _operator.xor, "lshift": _operator.lshift, "rshift": _operator.rshift,
}
for _name, _fn in _CONSTEXPR_BINARY.items():
    setattr(constexpr, f"__{_name}__", _constexpr_binary(_fn, f"__{_name}__"))
    setattr(constexpr, f"__r{_name}__", _constexpr_binary(_fn, f"__r{_name}__", reflected=True))
for _name, _fn in {"eq": _operator.eq, "ne": _operator.ne, "lt": _operator.lt, "le": _operator.le,
                   "gt": _operator.gt, "ge": _operator.ge}.items():
    setattr(constexpr, f"__{_name}__", _constexpr_binary(_fn, f"__{_name}__"))
constexpr.__neg__ = lambda self: constexpr(-self.value)
constexpr.__pos__ = lambda self: constexpr(+self.value)
constexpr.__invert__ = lambda self: constexpr(~self.value)
constexpr.__abs__ = lambda self: constexpr(abs(self.value))


class tensor:
    """A value inside a kernel: a scalar (``type`` is a scalar or pointer type) or a tile
    (``type`` is a :class:`~kernellab.ir.types.TileType`).  ``handle`` is its Tile IR value."""

    __slots__ = ("handle", "type")

    def __init__(self, handle: Value, type: Type):
        self.handle = handle
        self.type = type

    # ---- type facts ----
    @property
    def dtype(self) -> Type:
        return self.type.scalar

    @property
    def shape(self) -> tuple[constexpr, ...]:
        return tuple(constexpr(d) for d in _types.shape_of(self.type))

    @property
    def numel(self) -> constexpr:
        return constexpr(getattr(self.type, "numel", 1))

    @property
    def T(self) -> tensor:
        return semantic().permute(self, tuple(reversed(range(len(self.shape)))))

    def __repr__(self) -> str:
        return f"tensor({self.type.ir})"

    def __bool__(self) -> bool:
        raise TypeError("a kernel tensor has no Python truth value at compile time; use it as the condition of "
                        "an `if`/`while` (scalars only), or tl.where(cond, a, b) for tiles")

    def __index__(self) -> int:
        raise TypeError("a kernel tensor cannot be used as a Python index or range bound at compile time; "
                        "make it a tl.constexpr parameter")

    def __iter__(self):
        raise TypeError("a kernel tensor is not iterable; use tl.split, tl.reshape or indexing with None/':'")

    def __getitem__(self, index: Any) -> tensor:
        return semantic().subscript(self, index)

    def to(self, dtype: Type, fp_downcast_rounding: str | None = None, bitcast: bool = False) -> tensor:
        dtype = _unwrap(dtype)
        if bitcast:
            return semantic().bitcast(self, dtype)
        return semantic().cast(self, dtype, _unwrap(fp_downcast_rounding))


def _tensor_binary(method: str, reflected: bool = False):
    def op(self: tensor, other: Any) -> tensor:
        sem = semantic()
        fn = getattr(sem, method)
        return fn(other, self) if reflected else fn(self, other)

    op.__name__ = method
    return op


# Python operator -> Semantic method (one table: the frontend and the tensor class share it).
BINARY_OPERATORS = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "truediv", "floordiv": "floordiv", "mod": "mod",
    "and": "and_", "or": "or_", "xor": "xor_", "lshift": "shl", "rshift": "shr", "pow": "pow",
    "matmul": "matmul",
}
COMPARISON_OPERATORS = {"eq": "equal", "ne": "not_equal", "lt": "less_than", "le": "less_equal",
                        "gt": "greater_than", "ge": "greater_equal"}
UNARY_OPERATORS = {"neg": "minus", "pos": "plus", "invert": "invert"}

for _name, _method in BINARY_OPERATORS.items():
    setattr(tensor, f"__{_name}__", _tensor_binary(_method))
    setattr(tensor, f"__r{_name}__", _tensor_binary(_method, reflected=True))
for _name, _method in COMPARISON_OPERATORS.items():
    setattr(tensor, f"__{_name}__", _tensor_binary(_method))
for _name, _method in UNARY_OPERATORS.items():
    setattr(tensor, f"__{_name}__", (lambda m: lambda self: getattr(semantic(), m)(self))(_method))
tensor.__hash__ = object.__hash__
tensor.__abs__ = lambda self: semantic().abs(self)


def member(fn: Callable[..., T]) -> Callable[..., T]:
    """Also make ``fn`` a method of :class:`tensor` (``x.sum(0)`` calls ``sum(x, 0)``)."""
    setattr(tensor, fn.__name__, fn)
    return fn


__all__ = [
    "constexpr", "tensor", "builtin", "is_builtin", "constexpr_function", "is_constexpr_function", "activate",
    "semantic", "member", "BINARY_OPERATORS", "COMPARISON_OPERATORS", "UNARY_OPERATORS",
]
