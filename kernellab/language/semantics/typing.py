"""Typing rules: Python constants, type promotion, tile shapes, broadcasting and casts.

Everything that decides a result type lives here; the other semantics modules call these and
build IR.  Rules follow Triton's (``triton.language.semantic``), restated:

* a Python constant takes the smallest of i32, u32, i64, u64 that holds it (bool: i1); a float
  takes f32 when it is 0, inf, nan or in f32's normal range, f64 otherwise;
* binary operands are promoted with :func:`computation_type` and broadcast numpy-style;
* tile shapes are powers of two with at most :data:`MAX_TILE_NUMEL` elements;
* ``i1`` is a one-bit *unsigned* integer (as in Triton).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ...ir import types as T
from ...ir.types import PointerType, ScalarType, TileType, Type
from ..core import constexpr, int_constant_type, is_power_of_two, named_number, tensor
from .base import SemanticBase, SemanticError

MAX_TILE_NUMEL = 1 << 20


# ---------------------------------------------------------------------------------------------
# Pure typing rules
# ---------------------------------------------------------------------------------------------

def python_value(value: Any) -> Any:
    """A Python number from a constexpr or numpy scalar; anything else unchanged."""
    value = value.value if isinstance(value, constexpr) else value
    if isinstance(value, np.generic):
        return value.item()
    return value


def is_python_number(value: Any) -> bool:
    """Whether ``value`` takes part in promotion as a Python number (rule 0); a number bound to
    a name (:class:`named_number`) takes part as the 0-d tensor Triton makes of it."""
    return not isinstance(value, named_number) and isinstance(python_value(value), (bool, int, float))


def python_scalar_type(value: Any) -> ScalarType:
    """The type a Python constant takes in a kernel: bool -> i1; int -> i32, u32, i64 or u64,
    the first that holds it; float -> f32 when it is 0, inf, nan or within f32's normal range,
    else f64."""
    value = python_value(value)
    if isinstance(value, bool):
        return T.i1
    if isinstance(value, int):
        found = int_constant_type(value)
        if found is None:
            raise SemanticError(f"integer constant {value} does not fit in 64 bits")
        return found
    if isinstance(value, float):
        magnitude = abs(value)
        if magnitude == 0.0 or math.isinf(magnitude) or math.isnan(value) or (
                2.0**-126 <= magnitude <= (2 - 2**-23) * 2.0**127):
            return T.f32
        return T.f64
    raise SemanticError(f"cannot use {value!r} of type {type(value).__name__} as a kernel value; "
                        "use a number, a tensor or a tl.constexpr")


def number_type(value: Any) -> ScalarType:
    """The type of a number in a kernel: a named number's own integer type when a fold gave it
    one (``u = 2**32 - 1; u + 1`` is a u32 0), else :func:`python_scalar_type`'s."""
    if isinstance(value, named_number) and value.int_type is not None:
        return value.int_type
    return python_scalar_type(value)


def check_constant_fits(value: Any, target: ScalarType) -> None:
    """Raise unless the Python number ``value`` fits the integer type ``target`` (rule 0 gives it
    that type)."""
    if not target.is_int():
        return
    if value < 0 and target.is_int_unsigned():
        raise SemanticError(f"cannot combine an unsigned tensor ({target.name}) with the negative constant "
                            f"{value}; cast one of them explicitly")
    if not target.get_int_min_value() <= value <= target.get_int_max_value():
        raise SemanticError(f"constant {value} is out of range for {target.name} "
                            f"[{target.get_int_min_value()}, {target.get_int_max_value()}]")


def promotion_kind(ty: ScalarType) -> int:
    """Triton's kinds, ordered: bool (0) < integer (1, signed or not) < floating point (2)."""
    if ty.is_bool():
        return 0
    return 2 if ty.is_floating() else 1


def integer_promote(a: ScalarType, b: ScalarType) -> ScalarType:
    """C's usual arithmetic conversions for two integer types: same signedness -> the wider;
    mixed -> the unsigned one if it is at least as wide, else the signed one."""
    a_unsigned, b_unsigned = a.is_int_unsigned(), b.is_int_unsigned()
    if a_unsigned == b_unsigned:
        return a if a.int_bitwidth > b.int_bitwidth else b
    if a_unsigned:
        return a if a.int_bitwidth >= b.int_bitwidth else b
    return b if b.int_bitwidth >= a.int_bitwidth else a


def computation_type(a: ScalarType, a_is_python: bool, b: ScalarType, b_is_python: bool,
                     div_or_mod: bool = False) -> ScalarType:
    """The type two operands are converted to before a binary arithmetic op.

    0. A Python constant whose kind (:func:`promotion_kind`) is not above the other operand's
       takes that operand's type (so ``x_f16 * 2.0`` stays f16 and ``x_u8 + 1`` stays u8),
       except that / and % on f16/bf16 compute in f32.
    1. If either is f64, f64.
    2. Else if either is f32, f32.
    3. Else if either is f16: f16, but f32 for / and %.
    4. Else if both are bf16: bf16, but f32 for / and %; bf16 with anything else: f32.
    5. Else if both are fp8: that type if they agree, else f16.
    6. Else both must be integers: / and % with mixed signedness are an error; otherwise C's
       usual arithmetic conversions (:func:`integer_promote`).

    fp8e4b15 has no arithmetic of its own (``fp8e4b15.py``): where the rules give it, fp16.
    """
    found = _computation_type(a, a_is_python, b, b_is_python, div_or_mod)
    return T.f16 if found is T.f8e4b15 else found


def _computation_type(a: ScalarType, a_is_python: bool, b: ScalarType, b_is_python: bool,
                      div_or_mod: bool) -> ScalarType:
    if a_is_python != b_is_python:  # rule 0
        constant, other = (a, b) if a_is_python else (b, a)
        if promotion_kind(constant) <= promotion_kind(other):
            if div_or_mod and other in (T.f16, T.bf16):
                return T.f32
            return other
    if T.f64 in (a, b):  # rule 1
        return T.f64
    if T.f32 in (a, b):  # rule 2
        return T.f32
    if T.f16 in (a, b):  # rule 3
        return T.f32 if div_or_mod else T.f16
    if a is T.bf16 and b is T.bf16:  # rule 4
        return T.f32 if div_or_mod else T.bf16
    if T.bf16 in (a, b):
        return T.f32
    if a.is_fp8() and b.is_fp8():  # rule 5
        return a if a is b else T.f16
    if not (a.is_int() and b.is_int()):
        raise SemanticError(f"cannot combine {a.name} and {b.name}; cast one of them (x.to(tl.float32)) first")
    if div_or_mod and a.is_int_unsigned() != b.is_int_unsigned():  # rule 6
        raise SemanticError(f"Cannot use /, // or % with {a.name} and {b.name} because they have different "
                            "signedness; cast them to the same signedness first")
    return integer_promote(a, b)


def validate_shape(shape: Any, what: str = "a tile shape") -> tuple[int, ...]:
    """``shape`` as a tuple of ints, each a power of two, at most :data:`MAX_TILE_NUMEL` elements."""
    dims = []
    for i, d in enumerate(shape):
        d = python_value(d)
        if isinstance(d, tensor):
            raise SemanticError(f"{what} must be tl.constexpr (compile-time) values; dim {i} is a runtime tensor")
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise SemanticError(f"{what}: dim {i} must be a compile-time integer, got {d!r}")
        if not is_power_of_two(int(d)):
            raise SemanticError(f"Shape element {i} must be a power of 2",
                                hint=f"{what} has {d} at dim {i} (pad the data and mask the extra elements)")
        dims.append(int(d))
    numel = math.prod(dims)
    if numel > MAX_TILE_NUMEL:
        raise SemanticError(f"{what} {dims} has {numel} elements; a tile holds at most {MAX_TILE_NUMEL}")
    return tuple(dims)


def tile_type(element: Type, shape: Any) -> Type:
    """The type of a tile of ``shape`` (validated) or, for ``()``, the element type itself."""
    shape = validate_shape(shape)
    return T.tile(element, shape) if shape else element


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """numpy's rule: align from the right; dims must agree or be 1."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and 1 not in (x, y):
            raise SemanticError(f"cannot broadcast shapes {list(a)} and {list(b)}: dim {i} is {x} vs {y}")
        out.append(max(x, y))
    return tuple(out)


# Elementwise float ops that no target computes on fp8 bits: with fp8 operands they compute in f32
FP8_COMPUTED_OPS = frozenset({"add", "sub", "mul", "div", "rem", "neg", "cmp", "minimum", "maximum", "fma",
                              "clamp", "div_rn", "fdiv"})


def _is_fp8(ty: Any) -> bool:
    return isinstance(ty, ScalarType) and ty.is_fp8()


class TypingMixin(SemanticBase):
    """Constants, conversions to tensors, broadcasting and casts."""

    # ---- IR construction ----
    def make(self, name: str, operands: list[tensor], ty: Type, attrs: dict | None = None) -> tensor:
        """Build a one-result op over tensors (a flat operand list) and wrap its result.  Float
        arithmetic on fp8 operands computes in f32 (see :data:`FP8_COMPUTED_OPS`)."""
        if name in FP8_COMPUTED_OPS and any(_is_fp8(o.dtype) for o in operands):
            return self._fp8_through_f32(name, operands, ty, attrs)
        return tensor(self.builder.create(name, [o.handle for o in operands], [ty], attrs).result, ty)

    def _fp8_through_f32(self, name: str, operands: list[tensor], ty: Type, attrs: dict | None) -> tensor:
        """``name`` on fp8 operands: each widened to f32 (exact), the op in f32, an fp8 result
        rounded back to its type (the cast's rounding: nearest even, saturating for fp8e4nv/fp8e5)
        -- what the reference computes, and no target has fp8 arithmetic units for."""
        wide = [self.cast(o, T.f32) if _is_fp8(o.dtype) else o for o in operands]
        element = T.element_of(ty)
        if not _is_fp8(element):  # a comparison's i1
            return self.make(name, wide, ty, attrs)
        return self.cast(self.make(name, wide, T.with_shape(T.f32, T.shape_of(ty)), attrs), element)

    # ---- constants ----
    def scalar_constant(self, value: Any, dtype: ScalarType | None = None) -> tensor:
        value = python_value(value)
        dtype = dtype or python_scalar_type(value)
        return tensor(self.builder.constant(self.fit_constant(value, dtype), dtype), dtype)

    def full_constant(self, shape: tuple[int, ...], value: Any, dtype: ScalarType) -> tensor:
        value = python_value(value)
        ty = tile_type(dtype, tuple(shape))
        return tensor(self.builder.constant(self.fit_constant(value, dtype), ty), ty)

    @staticmethod
    def fit_constant(value: Any, dtype: ScalarType) -> Any:
        """``value`` as the Python number a ``constant`` of ``dtype`` holds (ints wrapped into
        range, floats rounded to the type, bools as bools)."""
        if not isinstance(dtype, ScalarType):
            raise SemanticError(f"cannot make a constant of type {dtype}")
        if dtype.is_bool():
            return bool(value)
        if dtype.is_int():
            if isinstance(value, float) and not math.isfinite(value):
                raise SemanticError(f"cannot convert {value} to {dtype.name}")
            value = int(value)
            bits = dtype.int_bitwidth
            value &= (1 << bits) - 1
            if dtype.is_int_signed() and value >= 1 << (bits - 1):
                value -= 1 << bits
            return value
        with np.errstate(over="ignore"):  # a constant beyond the type's range rounds to inf, as in C
            return float(dtype.np_dtype.type(value))

    def to_tensor(self, value: Any) -> tensor:
        """A tensor for a tensor, a constexpr or a Python number."""
        if isinstance(value, tensor):
            return value
        if isinstance(value, named_number):  # of its own type when a fold gave it one
            return self.scalar_constant(value.value, number_type(value))
        value = python_value(value)
        if isinstance(value, tensor):
            return value
        if isinstance(value, (bool, int, float)):
            return self.scalar_constant(value)
        raise SemanticError(f"expected a tensor or a number, got {type(value).__name__} {value!r}")

    # ---- broadcasting ----
    broadcast_shapes = staticmethod(broadcast_shapes)

    def splat(self, x: tensor, shape: tuple[int, ...]) -> tensor:
        """A tile of ``shape`` with every element equal to the scalar ``x``."""
        if not shape:
            return x
        ty = tile_type(x.type, shape)
        return self.make("splat", [x], ty)

    def broadcast_to(self, x: tensor, shape: tuple[int, ...]) -> tensor:
        """``x`` as a tile of ``shape`` (numpy rules: splat scalars, add leading dims of 1,
        stretch dims of 1)."""
        shape = tuple(int(d) for d in shape)
        current = T.shape_of(x.type)
        if current == shape:
            return x
        if not current:
            return self.splat(x, shape)
        if len(current) > len(shape):
            raise SemanticError(f"cannot broadcast shape {list(current)} to {list(shape)}: it has more dims")
        while len(current) < len(shape):
            x = self.expand_dims_once(x, 0)
            current = T.shape_of(x.type)
        for i, (c, s) in enumerate(zip(current, shape)):
            if c != s and c != 1:
                raise SemanticError(f"cannot broadcast shape {list(current)} to {list(shape)}: dim {i} is {c}, "
                                    f"which is neither {s} nor 1")
        if current == shape:
            return x
        return self.make("broadcast", [x], tile_type(T.element_of(x.type), shape))

    def expand_dims_once(self, x: tensor, axis: int) -> tensor:
        """Insert one dim of size 1 at ``axis`` (0 <= axis <= rank); scalars become ``[1]``."""
        shape = T.shape_of(x.type)
        new_shape = shape[:axis] + (1,) + shape[axis:]
        if not shape:
            return self.splat(x, new_shape)
        return self.make("expand_dims", [x], tile_type(T.element_of(x.type), new_shape), {"axis": axis})

    def reshape_exact(self, x: tensor, shape: tuple[int, ...], can_reorder: bool = False) -> tensor:
        ty = tile_type(T.element_of(x.type), shape)
        if x.type is ty:
            return x
        return self.make("reshape", [x], ty, {"can_reorder": bool(can_reorder)})

    def broadcast_pair(self, a: tensor, b: tensor) -> tuple[tensor, tensor]:
        shape = broadcast_shapes(T.shape_of(a.type), T.shape_of(b.type))
        if not shape:
            return a, b
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)

    def broadcast_all(self, *values: tensor) -> tuple[tensor, ...]:
        """Broadcast every value to their common shape."""
        shape: tuple[int, ...] = ()
        for v in values:
            shape = broadcast_shapes(shape, T.shape_of(v.type))
        if not shape:
            return values
        return tuple(self.broadcast_to(v, shape) for v in values)

    # ---- binary operand preparation ----
    def binary_operands(self, a: Any, b: Any, *, allow_a_ptr: bool = False, allow_b_ptr: bool = False,
                        arithmetic: bool = True, div_or_mod: bool = False) -> tuple[tensor, tensor]:
        """Promote (rule table in :func:`computation_type`) and broadcast two operands.
        Python numbers take part as constants (rule 0); tensors as their dtype."""
        a_is_python, b_is_python = is_python_number(a), is_python_number(b)
        a_value, b_value = python_value(a), python_value(b)
        a_t = None if a_is_python else self.to_tensor(a)
        b_t = None if b_is_python else self.to_tensor(b)
        a_scalar = python_scalar_type(a_value) if a_is_python else a_t.dtype
        b_scalar = python_scalar_type(b_value) if b_is_python else b_t.dtype
        self._check_pointer_operands(a_scalar, b_scalar, allow_a_ptr)
        self._check_pointer_operands(b_scalar, a_scalar, allow_b_ptr)
        if arithmetic and not isinstance(a_scalar, PointerType) and not isinstance(b_scalar, PointerType):
            target = computation_type(a_scalar, a_is_python, b_scalar, b_is_python, div_or_mod)
            for is_python, value in ((a_is_python, a_value), (b_is_python, b_value)):
                if is_python:
                    check_constant_fits(value, target)
            a_t = self.scalar_constant(a_value, target) if a_is_python else self.cast(a_t, target)
            b_t = self.scalar_constant(b_value, target) if b_is_python else self.cast(b_t, target)
        else:
            a_t = a_t if a_t is not None else self.scalar_constant(a_value)
            b_t = b_t if b_t is not None else self.scalar_constant(b_value)
        return self.broadcast_pair(a_t, b_t)

    @staticmethod
    def _check_pointer_operands(a: Type, b: Type, allow_ptr: bool) -> None:
        if not isinstance(a, PointerType):
            return
        if not allow_ptr:
            raise SemanticError(f"invalid operands of type {a.name} and {b.name}: this operation does not take "
                                "pointers")
        if isinstance(b, PointerType) and a is not b:
            raise SemanticError(f"invalid operands of type {a.name} and {b.name}: pointers of different types")
        if isinstance(b, ScalarType) and b.is_floating():
            raise SemanticError(f"cannot offset a pointer ({a.name}) by a float ({b.name}); offsets are integers")

    # ---- casts ----
    def cast(self, x: Any, dtype: Type, fp_downcast_rounding: str | None = None) -> tensor:
        """Convert ``x`` to element type ``dtype`` (value conversion; see the ``cast`` op).
        ``fp_downcast_rounding`` ('rtne' or 'rtz') applies only to casts to a narrower float."""
        x = self.to_tensor(x)
        dtype = python_value(dtype)
        if isinstance(dtype, TileType):
            dtype = dtype.element_ty
        if not isinstance(dtype, (ScalarType, PointerType)):
            raise SemanticError(f"cannot cast to {dtype!r}: expected a dtype such as tl.float32")
        source = x.dtype
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise SemanticError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {fp_downcast_rounding!r}")
        if source is dtype:
            return x
        truncating = (isinstance(source, ScalarType) and source.is_floating() and isinstance(dtype, ScalarType)
                      and dtype.is_floating() and dtype.primitive_bitwidth < source.primitive_bitwidth)
        if fp_downcast_rounding is not None and not truncating:
            raise SemanticError(f"fp_downcast_rounding applies only to casts to a narrower float type; "
                                f"this cast is {source.name} -> {dtype.name}")
        if isinstance(source, PointerType) or isinstance(dtype, PointerType):
            return self._pointer_cast(x, dtype)
        ty = T.with_shape(dtype, T.shape_of(x.type))
        attrs = {"rounding": "rtz"} if fp_downcast_rounding == "rtz" else None
        return self.make("cast", [x], ty, attrs)

    def _pointer_cast(self, x: tensor, dtype: Type) -> tensor:
        source = x.dtype
        ty = T.with_shape(dtype, T.shape_of(x.type))
        if isinstance(source, PointerType) and isinstance(dtype, PointerType):
            return self.make("bitcast", [x], ty)
        if isinstance(dtype, PointerType):
            if not source.is_int():
                raise SemanticError(f"cannot cast {source.name} to a pointer; only integers convert to pointers")
            x = self.cast(x, T.i64)
        elif not dtype.is_int():
            raise SemanticError(f"cannot cast a pointer to {dtype.name}; cast it to tl.int64 first")
        elif dtype is not T.i64:
            return self.cast(self.cast(x, T.i64), dtype)
        return self.make("cast", [x], ty)

    def bitcast(self, x: Any, dtype: Type) -> tensor:
        """Reinterpret the bits of ``x`` as ``dtype`` (same width); pointers go through :meth:`cast`."""
        x = self.to_tensor(x)
        dtype = python_value(dtype)
        if isinstance(dtype, TileType):
            dtype = dtype.element_ty
        source = x.dtype
        if source is dtype:
            return x
        if isinstance(source, PointerType) or isinstance(dtype, PointerType):
            return self.cast(x, dtype)
        if not isinstance(dtype, ScalarType):
            raise SemanticError(f"cannot bitcast to {dtype!r}: expected a dtype such as tl.int32")
        if source.primitive_bitwidth != dtype.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {source.name} ({source.primitive_bitwidth} bits) to "
                                f"{dtype.name} ({dtype.primitive_bitwidth} bits): the widths differ")
        return self.make("bitcast", [x], T.with_shape(dtype, T.shape_of(x.type)))


__all__ = [
    "TypingMixin", "check_constant_fits", "computation_type", "integer_promote", "number_type", "python_scalar_type",
    "promotion_kind", "validate_shape",
    "tile_type", "broadcast_shapes", "python_value", "is_python_number", "MAX_TILE_NUMEL",
]
