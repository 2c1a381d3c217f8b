"""Typing rules: Python constants, type promotion, broadcasting and casts.

Everything that decides a result type lives here; the other semantics modules call these and
build IR.  Rules follow Triton's documented semantics.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ...ir import types as T
from ...ir.types import Kind, PointerType, ScalarType, TileType, Type
from ..core import constexpr, tensor
from .base import SemanticBase, SemanticError


def python_scalar_type(value: Any) -> ScalarType:
    """The type a Python constant takes in a kernel: bool -> i1; int -> i32, u32, i64 or u64,
    the first that holds it; float -> f32 when it is 0, inf, nan or within f32's normal range,
    else f64."""
    value = value.value if isinstance(value, constexpr) else value
    if isinstance(value, bool):
        return T.i1
    if isinstance(value, int):
        for ty, low, high in ((T.i32, -2**31, 2**31), (T.u32, 2**31, 2**32), (T.i64, -2**63, 2**63),
                              (T.u64, 2**63, 2**64)):
            if low <= value < high:
                return ty
        raise SemanticError(f"integer {value} does not fit 64 bits")
    if isinstance(value, float):
        magnitude = abs(value)
        if magnitude == 0.0 or math.isinf(magnitude) or math.isnan(value) or (
                2.0**-126 <= magnitude <= (2 - 2**-23) * 2.0**127):
            return T.f32
        return T.f64
    raise SemanticError(f"cannot use {value!r} of type {type(value).__name__} as a kernel value")


def integer_promote(a: ScalarType, b: ScalarType) -> ScalarType:
    """C's usual arithmetic conversions for two integer types."""
    a_unsigned, b_unsigned = a.is_int_unsigned(), b.is_int_unsigned()
    if a_unsigned == b_unsigned:
        return a if a.int_bitwidth > b.int_bitwidth else b
    if a_unsigned:
        return a if a.int_bitwidth >= b.int_bitwidth else b
    return b if b.int_bitwidth >= a.int_bitwidth else a


def computation_type(a: ScalarType, a_is_python: bool, b: ScalarType, b_is_python: bool,
                     div_or_mod: bool = False) -> ScalarType:
    """The type two operands are converted to before a binary arithmetic op.

    0. A Python constant whose kind (bool < uint < int < float) is not above the other
       operand's takes that operand's type (so ``x_f16 * 2.0`` stays f16), except that / and %
       on f16/bf16 compute in f32.
    1. If either is f64, f64.
    2. Else if either is f32, f32.
    3. Else if either is f16: f16, but f32 for / and %.
    4. Else if both are bf16: bf16, but f32 for / and %; bf16 with anything else: f32.
    5. Else if both are fp8: that type if they agree, else f16.
    6. Else both are integers: / and % with mixed signedness are an error; otherwise C's usual
       arithmetic conversions (:func:`integer_promote`).
    """
    if a_is_python != b_is_python:  # rule 0
        scalar, other = (a, b) if a_is_python else (b, a)
        if scalar.kind() <= other.kind():
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
        raise SemanticError(f"unexpected operand types {a.name} and {b.name}")
    if div_or_mod and a.is_int_unsigned() != b.is_int_unsigned():  # rule 6
        raise SemanticError(f"cannot use /, // or % with {a.name} and {b.name}: they differ in signedness; "
                            "cast one of them first")
    return integer_promote(a, b)


class TypingMixin(SemanticBase):
    """Constants, conversions to tensors, broadcasting and casts."""

    # ---- constants ----
    def scalar_constant(self, value: Any, dtype: ScalarType | None = None) -> tensor:
        value = value.value if isinstance(value, constexpr) else value
        dtype = dtype or python_scalar_type(value)
        return tensor(self.builder.constant(self.fit_constant(value, dtype), dtype), dtype)

    def full_constant(self, shape: tuple[int, ...], value: Any, dtype: ScalarType) -> tensor:
        value = value.value if isinstance(value, constexpr) else value
        ty = T.with_shape(dtype, tuple(shape))
        return tensor(self.builder.constant(self.fit_constant(value, dtype), ty), ty)

    @staticmethod
    def fit_constant(value: Any, dtype: ScalarType) -> Any:
        """``value`` as the Python number a ``constant`` of ``dtype`` holds (ints wrapped into
        range, floats rounded to the type, bools as bools)."""
        if dtype.is_bool():
            return bool(value)
        if dtype.is_int():
            value = int(value)
            bits = dtype.int_bitwidth
            value &= (1 << bits) - 1
            if dtype.is_int_signed() and value >= 1 << (bits - 1):
                value -= 1 << bits
            return value
        return float(dtype.np_dtype.type(value)) if dtype.np_dtype is not None else float(value)

    def to_tensor(self, value: Any) -> tensor:
        """A tensor for a tensor, a constexpr or a Python number."""
        if isinstance(value, tensor):
            return value
        value = value.value if isinstance(value, constexpr) else value
        if isinstance(value, (bool, int, float)):
            return self.scalar_constant(value)
        raise SemanticError(f"expected a tensor or a number, got {type(value).__name__} {value!r}")

    # ---- broadcasting ----
    @staticmethod
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

    def broadcast_to(self, x: tensor, shape: tuple[int, ...]) -> tensor:
        """``x`` as a tile of ``shape`` (splat for scalars, reshape + broadcast for tiles)."""
        shape = tuple(int(d) for d in shape)
        current = T.shape_of(x.type)
        if current == shape:
            return x
        element = T.element_of(x.type)
        if not current:
            ty = T.tile(element, shape)
            return tensor(self.builder.create("splat", [x.handle], [ty]).result, ty)
        if len(current) > len(shape):
            raise SemanticError(f"cannot broadcast shape {list(current)} to {list(shape)}")
        if len(current) < len(shape):
            padded = (1,) * (len(shape) - len(current)) + current
            x = self.reshape_exact(x, padded)
            current = padded
        self.broadcast_shapes(current, shape)
        if any(c != s and c != 1 for c, s in zip(current, shape)):
            raise SemanticError(f"cannot broadcast shape {list(current)} to {list(shape)}")
        ty = T.tile(element, shape)
        return tensor(self.builder.create("broadcast", [x.handle], [ty]).result, ty)

    def reshape_exact(self, x: tensor, shape: tuple[int, ...]) -> tensor:
        ty = T.tile(T.element_of(x.type), shape)
        if x.type is ty:
            return x
        return tensor(self.builder.create("reshape", [x.handle], [ty]).result, ty)

    def broadcast_pair(self, a: tensor, b: tensor) -> tuple[tensor, tensor]:
        shape = self.broadcast_shapes(T.shape_of(a.type), T.shape_of(b.type))
        if not shape:
            return a, b
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)

    # ---- binary operand preparation ----
    def binary_operands(self, a: Any, b: Any, *, allow_a_ptr: bool = False, allow_b_ptr: bool = False,
                        arithmetic: bool = True, div_or_mod: bool = False) -> tuple[tensor, tensor]:
        """Promote (rule table in :func:`computation_type`) and broadcast two operands."""
        a_value = a.value if isinstance(a, constexpr) else a
        b_value = b.value if isinstance(b, constexpr) else b
        a_is_python = isinstance(a_value, numbers.Number)
        b_is_python = isinstance(b_value, numbers.Number)
        a_t = None if a_is_python else self.to_tensor(a)
        b_t = None if b_is_python else self.to_tensor(b)
        a_scalar = python_scalar_type(a_value) if a_is_python else a_t.dtype
        b_scalar = python_scalar_type(b_value) if b_is_python else b_t.dtype
        self._check_pointer_operands(a_scalar, b_scalar, allow_a_ptr)
        self._check_pointer_operands(b_scalar, a_scalar, allow_b_ptr)
        if arithmetic and not isinstance(a_scalar, PointerType) and not isinstance(b_scalar, PointerType):
            target = computation_type(a_scalar, a_is_python, b_scalar, b_is_python, div_or_mod)
            for is_python, value in ((a_is_python, a_value), (b_is_python, b_value)):
                if is_python and target.is_int():
                    if value < 0 and target.is_int_unsigned():
                        raise SemanticError("cannot combine an unsigned tensor with a negative constant; cast one "
                                            "of them explicitly")
                    if not target.get_int_min_value() <= value <= target.get_int_max_value():
                        raise SemanticError(f"constant {value} is out of range for {target.name}")
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
            raise SemanticError(f"invalid operands of type {a.name} and {b.name}")
        if isinstance(b, PointerType) and a is not b:
            raise SemanticError(f"invalid operands of type {a.name} and {b.name}")
        if isinstance(b, ScalarType) and b.is_floating():
            raise SemanticError(f"cannot offset a pointer ({a.name}) by a float ({b.name})")

    # ---- casts ----
    def cast(self, x: Any, dtype: Type, fp_downcast_rounding: str | None = None) -> tensor:
        """Convert ``x`` to element type ``dtype`` (value conversion; see the ``cast`` op)."""
        x = self.to_tensor(x)
        dtype = dtype.value if isinstance(dtype, constexpr) else dtype
        if isinstance(dtype, TileType):
            dtype = dtype.element_ty
        if not isinstance(dtype, (ScalarType, PointerType)):
            raise SemanticError(f"cannot cast to {dtype!r}: expected a dtype such as tl.float32")
        source = x.dtype
        if source is dtype:
            return x
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise SemanticError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {fp_downcast_rounding!r}")
        if fp_downcast_rounding is not None and not (
                isinstance(source, ScalarType) and source.is_floating() and isinstance(dtype, ScalarType)
                and dtype.is_floating() and dtype.primitive_bitwidth < source.primitive_bitwidth):
            raise SemanticError("fp_downcast_rounding applies only to casts to a narrower float type")
        if isinstance(source, PointerType) or isinstance(dtype, PointerType):
            return self._pointer_cast(x, dtype)
        ty = T.with_shape(dtype, T.shape_of(x.type))
        attrs = {"rounding": fp_downcast_rounding} if fp_downcast_rounding else {}
        return tensor(self.builder.create("cast", [x.handle], [ty], attrs).result, ty)

    def _pointer_cast(self, x: tensor, dtype: Type) -> tensor:
        source = x.dtype
        ty = T.with_shape(dtype, T.shape_of(x.type))
        if isinstance(source, PointerType) and isinstance(dtype, PointerType):
            return tensor(self.builder.create("bitcast", [x.handle], [ty]).result, ty)
        if isinstance(dtype, PointerType) and not (source.is_int() and source.primitive_bitwidth == 64):
            x = self.cast(x, T.i64)
        elif isinstance(source, PointerType) and dtype is T.i1:
            as_int = self.cast(x, T.i64)
            return self.not_equal(as_int, 0)
        elif isinstance(source, PointerType) and not (dtype.is_int() and dtype.primitive_bitwidth == 64):
            return self.cast(self.cast(x, T.i64), dtype)
        return tensor(self.builder.create("cast", [x.handle], [ty]).result, ty)

    def bitcast(self, x: Any, dtype: Type) -> tensor:
        x = self.to_tensor(x)
        dtype = dtype.value if isinstance(dtype, constexpr) else dtype
        source = x.dtype
        if source is dtype:
            return x
        if source.primitive_bitwidth != dtype.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {source.name} ({source.primitive_bitwidth} bits) to "
                                f"{dtype.name} ({dtype.primitive_bitwidth} bits)")
        ty = T.with_shape(dtype, T.shape_of(x.type))
        return tensor(self.builder.create("bitcast", [x.handle], [ty]).result, ty)


__all__ = ["TypingMixin", "computation_type", "integer_promote", "python_scalar_type", "Kind"]
