"""What kernel code manipulates: ``constexpr`` values, ``tensor`` values, dtypes, and the builtin
machinery.

While the frontend compiles a kernel it activates a :class:`~kernellab.language.semantics.Semantic`
(:func:`activate`); builtins, tensor operators and ``constexpr`` arithmetic find it with
:func:`semantic`.  Outside a compilation, calling a builtin raises a clear error.

Layers: this module holds the value classes and the dispatch; the typing rules (promotion,
broadcasting, casts) and IR construction live in ``kernellab.language.semantics``; the
builtins (``tl.load``, ``tl.sum``...) live in the concept modules next to this one; the frontend
(``kernellab.frontend``) walks the Python AST and calls into all of them.
"""

from __future__ import annotations

import contextvars
import enum
import functools
import inspect
import math
import numbers
import operator
import re
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ..ir import types as _types
from ..ir.core import Value
from ..ir.types import PointerType, TensorDescType, TileType, Type

if TYPE_CHECKING:  # pragma: no cover
    from .semantics import Semantic

T = TypeVar("T")

_ACTIVE: contextvars.ContextVar[Semantic | None] = contextvars.ContextVar("kernellab_semantic", default=None)

BUILTIN_ATTR = "__kernellab_builtin__"
CONSTEXPR_FUNCTION_ATTR = "__kernellab_constexpr_function__"


class SemanticError(Exception):
    """A kernel does something the language does not allow (a type error, a bad shape...).

    The frontend catches it and reraises a ``CompilationError`` that points at the kernel's
    source line; the message says what is wrong and what is allowed.  Where Triton's message is
    kept word for word (``str(error)``, which Triton users match), ``hint`` adds kernellab's
    explanation to the CompilationError's message only.
    """

    def __init__(self, message: str = "", hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class StaticAssertionError(SemanticError):
    """A ``tl.static_assert`` is false; the frontend reports it as ``CompileTimeAssertionFailure``."""


class UnsupportedConstruct(SemanticError):
    """Syntax kernels cannot use; the frontend reports it as ``UnsupportedLanguageConstruct``."""


# ---------------------------------------------------------------------------------------------
# The active semantics
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# Marking builtins
# ---------------------------------------------------------------------------------------------

def builtin(fn: Callable[..., T]) -> Callable[..., T]:
    """Mark a language function as a builtin: kernels may call it; it runs at compile time and
    builds IR through the active semantics.

    Compile-time code written for Triton passes ``_semantic=`` (and ``_generator=``; ``_builder=``
    before Triton 3.4) to builtins (``tl.arange(0, 4, _semantic=_semantic)`` in an aggregate's
    constructor): the builtin accepts them and uses the active semantics; one that declares
    ``_semantic`` itself (a builtin written for Triton) is given the active semantics when the
    caller passes none."""
    takes = _declares(fn, "_semantic"), _declares(fn, "_generator"), _declares(fn, "_builder")

    @functools.wraps(fn)
    def call(*args: Any, _semantic: Any = None, _generator: Any = None, _builder: Any = None, **kwargs: Any) -> T:
        if takes[0]:
            kwargs["_semantic"] = semantic() if _semantic is None else _semantic
        if takes[1]:
            kwargs["_generator"] = _generator
        if takes[2]:  # Triton before 3.4 passed _builder= (its library functions still do)
            kwargs["_builder"] = _builder
        return fn(*args, **kwargs)

    setattr(call, BUILTIN_ATTR, True)
    return call


def _declares(fn: Callable, name: str) -> bool:
    """Whether the function ``fn`` has a parameter ``name`` (read from its code: no inspect)."""
    code = getattr(fn, "__code__", None)
    return code is not None and name in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def is_builtin(fn: Any) -> bool:
    return getattr(fn, BUILTIN_ATTR, False)


def constexpr_function(fn: Callable[..., T]) -> Callable[..., T]:
    """A plain Python function that kernels may call with constexpr arguments; it runs at
    compile time and its result is a constexpr (``kl.cdiv(N, BLOCK)``).  Outside kernels it
    is an ordinary function."""
    setattr(fn, CONSTEXPR_FUNCTION_ATTR, True)
    if not getattr(fn, "__module__", "kernellab").startswith("kernellab"):  # Triton's fn and src (torch
        try:  # inductor copies a user kernel's helpers by their src)
            fn.fn, fn.src = fn, function_source(fn)
        except (OSError, TypeError):  # made by exec, or not a Python function: no source to give
            pass
    return fn


def function_source(fn: Callable) -> str:
    """``fn``'s source from its ``def`` line (decorators left out, as Triton's ``src``), dedented."""
    text = textwrap.dedent(inspect.getsource(fn))
    found = re.search(r"^def\s+\w+\s*\(", text, re.MULTILINE)
    return text[found.start():] if found else text


def is_constexpr_function(fn: Any) -> bool:
    return getattr(fn, CONSTEXPR_FUNCTION_ATTR, False)


def member(fn: Callable[..., T]) -> Callable[..., T]:
    """Also make ``fn`` a method of :class:`tensor` (``x.sum(0)`` calls ``sum(x, 0)``)."""
    setattr(tensor, fn.__name__, fn)
    return fn


# ---------------------------------------------------------------------------------------------
# Compile-time arguments
# ---------------------------------------------------------------------------------------------

def is_namedtuple_class(cls: type) -> bool:
    """A ``collections.namedtuple`` / ``typing.NamedTuple`` class (kernels keep it as it is)."""
    return issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def same_structure(template: tuple, items: Iterable[Any]) -> tuple:
    """``items`` as a tuple of ``template``'s kind: its NamedTuple class, or a plain tuple (a
    ``torch.Size``, a shape or another tuple subclass becomes a plain tuple)."""
    cls = type(template)
    return cls(*items) if cls is not tuple and is_namedtuple_class(cls) else tuple(items)


def unwrap(x: Any) -> Any:
    """The Python value of a constexpr (lists and tuples element by element, a NamedTuple
    staying one); anything else as it is."""
    if isinstance(x, constexpr):
        return x.value
    if isinstance(x, list):
        return [unwrap(v) for v in x]
    if isinstance(x, tuple):
        return same_structure(x, [unwrap(v) for v in x])
    return x


def compile_time(x: Any, what: str) -> Any:
    """``x`` unwrapped, where the language needs a value known at compile time; a runtime
    tensor there is an error naming ``what``."""
    x = unwrap(x)
    if isinstance(x, tensor):
        raise SemanticError(f"{what} must be tl.constexpr (compile-time) values; got a runtime tensor of type "
                            f"{x.type}. Mark the kernel parameter `: tl.constexpr` or use a literal.")
    return x


def compile_time_int(x: Any, what: str) -> int:
    """A compile-time integer (see :func:`compile_time`)."""
    x = compile_time(x, what)
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise SemanticError(f"{what} must be a compile-time integer, got {x!r}")
    return int(x)


def compile_time_ints(x: Any, what: str) -> tuple[int, ...]:
    """A compile-time tuple of integers; a single integer counts as a tuple of one."""
    x = compile_time(x, what)
    items = x if isinstance(x, (list, tuple)) else [x]
    return tuple(compile_time_int(v, what) for v in items)


class TensorShape(tuple):
    """A tensor's shape: a tuple of ``constexpr`` that also compares equal to the same sizes in a
    list and concatenates with lists, since Triton's ``tensor.shape`` is a list
    (``tl.static_assert(x.shape == [BLOCK])`` holds in both)."""

    __hash__ = tuple.__hash__

    def __eq__(self, other: Any) -> bool:
        return tuple.__eq__(self, tuple(other) if isinstance(other, list) else other)

    def __ne__(self, other: Any) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __add__(self, other: Any) -> TensorShape:
        return TensorShape(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> TensorShape:
        return TensorShape(tuple(other) + tuple(self))


def shape_arguments(shape: tuple) -> Any:
    """``f(x, 2, 3)`` and ``f(x, (2, 3))`` both mean the shape (2, 3): unwrap a single iterable."""
    if len(shape) == 1:
        only = unwrap(shape[0])
        if isinstance(only, (list, tuple)):
            return only
    return shape


# ---------------------------------------------------------------------------------------------
# constexpr
# ---------------------------------------------------------------------------------------------

class constexpr:
    """A value known at compile time.  As an annotation (``BLOCK: tl.constexpr``) it marks a
    kernel parameter as compile-time; as a value it wraps Python numbers, strings, types,
    functions and tuples.  Arithmetic between constexprs folds with Python's own semantics
    (as in Triton: ``//`` floors, ``%`` follows the divisor's sign); with a tensor on the other
    side it builds IR through the tensor's operators."""

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
        return operator.index(self.value)

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
        return constexpr(self.value[unwrap(index)])

    def logical_and(self, other: Any) -> constexpr:
        return constexpr(self.value and unwrap(other))

    def logical_or(self, other: Any) -> constexpr:
        return constexpr(self.value or unwrap(other))


class named_number(constexpr):
    """A number bound to a name by an assignment (``one = 1``, ``eps = 1e-5``, ``n = BLOCK * 2``).

    Triton makes such a value a 0-d tensor of the number's type (i1; i32, u32, i64 or u64; f32
    or f64), so it takes part in type promotion as a tensor does, not as a Python number
    (``x_f16 * eps`` is f32, ``x_i8 + one`` is i32) and it has ``.dtype``, ``.to()``...  kernellab
    keeps it known at compile time as well, so it also folds where only a constexpr is allowed
    (where Triton would refuse it).  Folding it with other numbers gives a named number again."""

    __slots__ = ("int_type",)

    def __init__(self, value: Any, int_type: _types.ScalarType | None = None):
        super().__init__(value)
        # the integer type of a fold's result, which keeps its operands' type (a u32 that wrapped to 5
        # is still u32); None: the type Triton gives the number (int_constant_type)
        self.int_type = int_type if int_type is not None else getattr(value, "int_type", None)


# The integer types a Python int takes in a kernel (Triton's: the first that holds it)
INT_CONSTANT_TYPES = ((_types.i32, -2**31, 2**31), (_types.u32, 2**31, 2**32), (_types.i64, -2**63, 2**63),
                      (_types.u64, 2**63, 2**64))


def int_constant_type(value: int) -> _types.ScalarType | None:
    """The type a Python int takes in a kernel; None when it does not fit 64 bits."""
    return next((ty for ty, low, high in INT_CONSTANT_TYPES if low <= value < high), None)


def _folded(result: Any, *operands: Any, int_type: _types.ScalarType | None = None) -> constexpr:
    """``result`` as a constexpr, a named number when a named number took part and it is a number."""
    named = any(isinstance(v, named_number) for v in operands)
    if named and isinstance(result, (bool, int, float)):
        return named_number(result, int_type)
    return constexpr(result)


def _truncating_floordiv(a: Any, b: Any) -> Any:
    """``//`` as a kernel computes it on integers (sdiv: toward zero), Python's elsewhere."""
    if isinstance(a, int) and isinstance(b, int) and b != 0:
        quotient = abs(a) // abs(b)
        return quotient if (a < 0) == (b < 0) else -quotient
    return a // b


def _truncating_mod(a: Any, b: Any) -> Any:
    """``%`` as a kernel computes it (srem / frem: the dividend's sign), Python's for b == 0."""
    if isinstance(a, int) and isinstance(b, int) and b != 0:
        return a - b * _truncating_floordiv(a, b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b != 0:
        return math.fmod(a, b)
    return a % b


# How a named number folds where a 0-d tensor computes otherwise than Python (others: Python's)
_TENSOR_FOLDS: dict[str, Callable[[Any, Any], Any]] = {"floordiv": _truncating_floordiv, "mod": _truncating_mod}

# The operators whose folded result wraps to the named numbers' type, as a 0-d tensor's
_WRAPPING = {"add", "sub", "mul", "floordiv", "mod", "and", "or", "xor", "lshift", "rshift"}


def _named_int_type(operand: Any) -> _types.ScalarType | None:
    if not isinstance(operand, named_number) or type(operand.value) is not int:
        return None
    return operand.int_type or int_constant_type(operand.value)


def _wrapped(result: Any, operands: tuple[Any, ...]) -> tuple[Any, _types.ScalarType | None]:
    """An integer ``result`` of named numbers (and plain ints, which take the named number's type
    and must fit it) wrapped to their promoted type, as the 0-d tensors they stand for compute it
    (``big = 2**31 - 1; big + 1`` is -2**31)."""
    named_types = [ty for ty in map(_named_int_type, operands) if ty is not None]
    if type(result) is not int or not named_types:
        return result, None
    from .semantics.typing import check_constant_fits, integer_promote  # the compiler's rules (compile time)

    ty = functools.reduce(integer_promote, named_types)
    for operand in operands:  # a plain int takes the named number's type, so it must fit it (as Triton's)
        if not isinstance(operand, named_number) and type(unwrap(operand)) is int:
            check_constant_fits(unwrap(operand), ty)
    bits = ty.int_bitwidth
    result &= (1 << bits) - 1
    return (result - (1 << bits) if ty.is_int_signed() and result >> (bits - 1) else result), ty


def _constexpr_binary(py_op: Callable[[Any, Any], Any], method: str, reflected: bool = False):
    """A constexpr operator: folds with Python when the other side is not a tensor, otherwise
    defers to the tensor's operator (so ``BLOCK * pid`` builds IR).  With a named number on
    either side, ``//`` and ``%`` fold as the 0-d tensor it stands for would compute them."""
    name = method.strip("_").removeprefix("r") if reflected else method.strip("_")
    tensor_op = _TENSOR_FOLDS.get(name, py_op)

    def op(self: constexpr, other: Any) -> Any:
        if isinstance(other, tensor):
            return NotImplemented
        a, b = (unwrap(other), self.value) if reflected else (self.value, unwrap(other))
        named = isinstance(self, named_number) or isinstance(other, named_number)
        if not named:
            return _folded(py_op(a, b), self, other)
        result, int_type = _wrapped(tensor_op(a, b), (self, other)) if name in _WRAPPING else (tensor_op(a, b), None)
        return _folded(result, self, other, int_type=int_type)

    op.__name__ = method
    return op


_CONSTEXPR_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift,
    "matmul": operator.matmul,
}
for _name, _fn in _CONSTEXPR_BINARY.items():
    setattr(constexpr, f"__{_name}__", _constexpr_binary(_fn, f"__{_name}__"))
    setattr(constexpr, f"__r{_name}__", _constexpr_binary(_fn, f"__r{_name}__", reflected=True))
for _name, _fn in {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                   "gt": operator.gt, "ge": operator.ge}.items():
    setattr(constexpr, f"__{_name}__", _constexpr_binary(_fn, f"__{_name}__"))


def _constexpr_unary(py_op: Callable[[Any], Any]) -> Callable[[constexpr], constexpr]:
    def op(self: constexpr) -> constexpr:
        result, int_type = _wrapped(py_op(self.value), (self,))
        return _folded(result, self, int_type=int_type)
    return op


constexpr.__neg__ = _constexpr_unary(operator.neg)
constexpr.__pos__ = _constexpr_unary(operator.pos)
constexpr.__invert__ = _constexpr_unary(operator.invert)
constexpr.__abs__ = _constexpr_unary(abs)


def is_constexpr_annotation(annotation: Any) -> bool:
    """``tl.constexpr`` as a class or as a string annotation (``"tl.constexpr"``)."""
    if annotation is constexpr:
        return True
    return isinstance(annotation, str) and annotation.replace(" ", "").split(".")[-1] == "constexpr"


def annotation_type(annotation: Any) -> Type | None:
    """The type a kernel parameter's annotation gives it, read as Triton reads annotations: a
    dtype (``tl.float16``, ``tl.pointer_type(tl.int8)``), a spelling of one (``"fp16"``,
    ``"tl.uint16"``, ``"float16"``, ``"*fp32"``, ``"int8*"``) or ``int``/``float``/``bool``
    (i32, fp32, i1).  None for every other annotation (``tl.constexpr``, ``tl.const``, a tensor
    class...), which leaves the parameter's type to its argument."""
    text = _annotation_spelling(annotation)
    if text is None:
        return None
    const = text.startswith("*k")  # Triton's "*kfp32": a pointer to constant data
    pointer = text.startswith("*")
    base = text[2:] if const else text.lstrip("*")
    spelling = _types.CANONICAL_SPELLINGS.get(base.replace("_t", ""), base)
    if spelling not in _types.CANONICAL_SPELLINGS.values() or spelling == "void":
        return None
    found = _types.from_signature(spelling)
    return _types.pointer(found, const=const) if pointer else found


def is_const_annotation(annotation: Any) -> bool:
    """``tl.const`` (the class or its spelling): the pointer argument points to constant data,
    which the kernel cannot store to (Triton's rule: part of the pointer's type)."""
    if isinstance(annotation, type):
        return annotation.__name__ == "const" and annotation.__module__.startswith("kernellab.language")
    return isinstance(annotation, str) and annotation.replace(" ", "").split(".")[-1] == "const"


def _annotation_spelling(annotation: Any) -> str | None:
    if isinstance(annotation, PointerType):
        element = _annotation_spelling(annotation.element_ty)
        return None if element is None else ("*k" if annotation.const else "*") + element
    if isinstance(annotation, _types.ScalarType):
        return _types.to_signature(annotation)
    if isinstance(annotation, type):
        return annotation.__name__
    if not isinstance(annotation, str):
        return None
    text = annotation.replace(" ", "")
    if text.endswith("*"):
        text = "*" + text[:-1]
    pointer = "*" if text.startswith("*") else ""
    text = text.lstrip("*")
    for prefix in ("triton.language.", "tl."):
        text = text.removeprefix(prefix)
    return pointer + text


# ---------------------------------------------------------------------------------------------
# dtypes: Triton's constructors and classes over the IR's interned types
# ---------------------------------------------------------------------------------------------

class _TypeFamily(type):
    """Metaclass of the dtype "classes" below: calling one returns the interned IR type, and
    ``isinstance`` checks against the IR class it stands for."""

    _ir_class: type = Type

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._ir_class)


class dtype(metaclass=_TypeFamily):
    """Triton's ``tl.dtype``: ``isinstance(t, tl.dtype)`` holds for every type;
    ``tl.dtype("fp32")`` is ``tl.float32``."""

    _ir_class = Type
    # Triton's lists of type names, by family (``tl.dtype.FP_TYPES``...).
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]
    SIGNEDNESS = _types.ScalarType.SIGNEDNESS

    def __new__(cls, name: Any) -> Type:
        name = str(unwrap(name))
        return _types.void if name == "void" else _types.by_name(name)


class pointer_type(metaclass=_TypeFamily):
    """``tl.pointer_type(tl.float16)`` is the type of a pointer to fp16 (address space 1);
    ``const=True``: to constant data (``tl.const``)."""

    _ir_class = PointerType

    def __new__(cls, element_ty: Any, address_space: int = 1, const: Any = False) -> PointerType:
        return _types.pointer(unwrap(element_ty), int(unwrap(address_space)), bool(unwrap(const)))


class block_type(metaclass=_TypeFamily):
    """``tl.block_type(tl.float32, [16, 16])`` is the type of a 16x16 fp32 tile."""

    _ir_class = TileType

    def __new__(cls, element_ty: Any, shape: Any) -> TileType:
        return _types.tile(unwrap(element_ty), [int(unwrap(d)) for d in unwrap(shape)])


def get_int_dtype(bitwidth: int, signed: bool) -> Type:
    """The integer type of ``bitwidth`` bits (1 gives ``int1``)."""
    bitwidth = int(unwrap(bitwidth))
    if bitwidth == 1:
        return _types.i1
    prefix = "i" if unwrap(signed) else "u"
    try:
        return _types.by_ir(f"{prefix}{bitwidth}")
    except ValueError:
        raise SemanticError(f"no integer type has {bitwidth} bits; use 1, 8, 16, 32 or 64") from None


# tl.dot's input_precision spellings (a target's Capabilities say which of them it supports)
DOT_INPUT_PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")

# desc.atomic_<kind>'s element types on every target, as element atomics compute them (Triton's set
# where it has no tensor-memory-accelerator reduction); a backend's Capabilities add what its
# architectures take beyond it (Capabilities.descriptor_reduce_types)
DESCRIPTOR_REDUCE_TYPES: dict[str, frozenset[Type]] = {
    "add": frozenset({_types.u32, _types.i32, _types.u64, _types.f32, _types.f16, _types.bf16}),
    **{kind: frozenset({_types.u32, _types.i32, _types.u64, _types.i64})
       for kind in ("min", "max", "and", "or", "xor")},
}


class PropagateNan(enum.Enum):
    """Whether ``tl.minimum``/``tl.maximum``/``tl.clamp`` return NaN when an operand is NaN
    (``ALL``) or the other operand (``NONE``, the default)."""

    NONE = 0
    ALL = 0xFFFF


# ---------------------------------------------------------------------------------------------
# tensor
# ---------------------------------------------------------------------------------------------

class tensor:
    """A value inside a kernel: a scalar (``type`` is a scalar or pointer type) or a tile
    (``type`` is a :class:`~kernellab.ir.types.TileType`).  ``handle`` is its Tile IR value.

    ``tensor(handle, desc_type)`` makes a :class:`tensor_descriptor`, so code that rebuilds
    values from IR (loop results, call results) gets the right class back."""

    __slots__ = ("handle", "type")

    def __new__(cls, handle: Value, type: Type, *rest: Any):
        if cls is tensor and isinstance(type, TensorDescType):
            cls = tensor_descriptor
        return super().__new__(cls)

    def __init__(self, handle: Value, type: Type):
        self.handle = handle
        self.type = type

    # ---- type facts ----
    @property
    def dtype(self) -> Type:
        return self.type.scalar

    @property
    def shape(self) -> TensorShape:
        return TensorShape(constexpr(d) for d in _types.shape_of(self.type))

    @property
    def numel(self) -> constexpr:
        return constexpr(getattr(self.type, "numel", 1))

    @property
    def T(self) -> tensor:
        return semantic().permute(self, tuple(reversed(range(len(self.shape)))))

    def __repr__(self) -> str:
        return f"tensor({self.type.ir})"

    def __str__(self) -> str:
        dims = ", ".join(str(d) for d in _types.shape_of(self.type))
        return f"{self.dtype}[{dims}]"

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
        """Convert to ``dtype`` (see ``tl.cast``)."""
        dtype = unwrap(dtype)
        if unwrap(bitcast):
            return semantic().bitcast(self, dtype)
        return semantic().cast(self, dtype, unwrap(fp_downcast_rounding))

    def logical_and(self, other: Any) -> tensor:
        return semantic().logical_and(self, other)

    def logical_or(self, other: Any) -> tensor:
        return semantic().logical_or(self, other)


def _tensor_binary(method: str, reflected: bool = False):
    def op(self: tensor, other: Any) -> tensor:
        fn = getattr(semantic(), method)
        other = unwrap(other)
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


class DescriptorParts(NamedTuple):
    """What a tensor descriptor was made of: the base pointer, the int32 shape and the int64
    strides (scalar tensors, one per dim)."""

    base: tensor
    shape: tuple
    strides: tuple


class tensor_descriptor(tensor):
    """A tensor in global memory read and written in whole blocks (``tl.make_tensor_descriptor``).
    Its type is ``desc<block shape x element>``."""

    __slots__ = ("parts",)

    def __init__(self, handle: Value, type: Type, parts: DescriptorParts | None = None):
        super().__init__(handle, type)
        self.parts = parts  # None when unknown (semantic.descriptor_parts looks further)

    @property
    def block_type(self) -> TileType:
        return self.type.block_type

    @property
    def block_shape(self) -> TensorShape:
        return TensorShape(constexpr(d) for d in self.type.block_type.shape)

    @property
    def shape(self) -> tuple[tensor, ...]:
        """The described tensor's shape: one int32 scalar per dim (runtime values)."""
        return semantic().descriptor_parts(self).shape

    @property
    def strides(self) -> tuple[tensor, ...]:
        """The described tensor's strides in elements: one int64 scalar per dim."""
        return semantic().descriptor_parts(self).strides

    @property
    def dtype(self) -> Type:
        return self.type.block_type.element_ty

    def load(self, offsets: Any) -> tensor:
        """The block at ``offsets`` (elements); out-of-bounds elements read as the padding."""
        return semantic().descriptor_load(self, offsets)

    def store(self, offsets: Any, value: Any) -> tensor:
        """Write ``value`` (the block shape) at ``offsets``; out-of-bounds elements are dropped."""
        return semantic().descriptor_store(self, offsets, value)

    def gather(self, x_offsets: Any, y_offset: Any) -> tensor:
        """Rows ``x_offsets`` (a 1-D tile, at least 8) of a 2-D descriptor whose block has one row,
        columns ``y_offset`` on (the block's width); elements outside the tensor read as zero."""
        return semantic().descriptor_gather(self, unwrap(x_offsets), unwrap(y_offset))

    def scatter(self, value: Any, x_offsets: Any, y_offset: Any) -> None:
        """Write ``value``'s rows to rows ``x_offsets``, columns from ``y_offset`` (as :meth:`gather`
        reads them); elements outside the tensor are dropped."""
        semantic().descriptor_scatter(self, unwrap(value), unwrap(x_offsets), unwrap(y_offset))

    def atomic_add(self, offsets: Any, value: Any) -> None:
        """Add ``value`` (the block shape) into the block at ``offsets``, atomically per element;
        elements outside the tensor are dropped.  ``atomic_min``, ``atomic_max``, ``atomic_and``,
        ``atomic_or`` and ``atomic_xor`` combine likewise."""
        semantic().descriptor_reduce("add", self, unwrap(offsets), unwrap(value))

    def atomic_min(self, offsets: Any, value: Any) -> None:
        semantic().descriptor_reduce("min", self, unwrap(offsets), unwrap(value))

    def atomic_max(self, offsets: Any, value: Any) -> None:
        semantic().descriptor_reduce("max", self, unwrap(offsets), unwrap(value))

    def atomic_and(self, offsets: Any, value: Any) -> None:
        semantic().descriptor_reduce("and", self, unwrap(offsets), unwrap(value))

    def atomic_or(self, offsets: Any, value: Any) -> None:
        semantic().descriptor_reduce("or", self, unwrap(offsets), unwrap(value))

    def atomic_xor(self, offsets: Any, value: Any) -> None:
        semantic().descriptor_reduce("xor", self, unwrap(offsets), unwrap(value))

    def __str__(self) -> str:
        return f"tensor_descriptor<{self.type.block_type}>"


def is_power_of_two(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    return 1 if n <= 1 else 2 ** math.ceil(math.log2(n))


__all__ = [
    "SemanticError", "StaticAssertionError", "UnsupportedConstruct",
    "constexpr", "named_number", "is_constexpr_annotation", "tensor", "tensor_descriptor", "DescriptorParts", "dtype",
    "pointer_type", "block_type",
    "get_int_dtype", "PropagateNan", "builtin", "is_builtin", "constexpr_function", "is_constexpr_function",
    "activate", "semantic", "member", "unwrap", "is_namedtuple_class", "same_structure", "compile_time",
    "compile_time_int", "compile_time_ints", "shape_arguments", "BINARY_OPERATORS", "COMPARISON_OPERATORS",
    "UNARY_OPERATORS", "is_power_of_two", "next_power_of_2",
]

from .aggregate import aggregate as _aggregate  # noqa: E402, F401 - Triton's tl.core._aggregate (needs the above)

# Triton's tl.core.CONSTEXPR_0, the default of its sorts' ``descending`` flag (fla's bitonic argsort
# takes ``descending: tl.constexpr = tl.core.CONSTEXPR_0``)
CONSTEXPR_0 = constexpr(0)


def _unwrap_if_constexpr(o: Any) -> Any:
    """Triton's ``tl.core._unwrap_if_constexpr``, which libraries call in their constexpr
    functions: a constexpr's value, anything else as it is (one level, unlike :func:`unwrap`)."""
    return o.value if isinstance(o, constexpr) else o


_SUBMODULES = frozenset({"math", "standard", "random", "extra", "target_info"})


def __getattr__(name: str) -> Any:
    """Triton's ``tl.core`` holds the language itself (``tl.core.static_range``, ``from
    triton.language.core import builtin, static_range``): a public name of kernellab.language
    that this module lacks is the language's."""
    from kernellab import language
    if name in ("extern", "extern_elementwise"):  # Triton's library-function declarations (language/extern.py)
        from . import extern
        return getattr(extern, name)
    if name.startswith("_") or name in _SUBMODULES or name not in language.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(language, name)
