"""Arithmetic, comparison, bitwise and selection semantics (Python operators on tensors,
``tl.where``, ``tl.minimum``, ``tl.maximum``)."""

from __future__ import annotations

import warnings
from typing import Any

from ...ir import types as T
from ...ir.types import PointerType, ScalarType
from ..core import PropagateNan, constexpr, tensor
from .base import SemanticError
from .typing import TypingMixin, integer_promote, python_value


def _is_integer(ty: Any) -> bool:
    return isinstance(ty, ScalarType) and ty.is_int()


class ArithMixin(TypingMixin):
    # ---- + - * / // % ----
    def add(self, a: Any, b: Any, sanitize: bool = False) -> tensor:
        """``a + b``; ``sanitize`` (the user's ``+``): see :meth:`check_overflow`."""
        a, b = self.binary_operands(a, b, allow_a_ptr=True, allow_b_ptr=True)
        if isinstance(a.dtype, PointerType) and isinstance(b.dtype, PointerType):
            raise SemanticError("cannot add two pointers; subtract integer offsets instead")
        if isinstance(b.dtype, PointerType):
            a, b = b, a
        if isinstance(a.dtype, PointerType):
            return self.add_pointer(a, b)
        if sanitize:
            self.check_overflow("add", a, b)
        return self.make("add", [a, b], a.type)

    def check_overflow(self, name: str, a: tensor, b: tensor) -> None:
        """Triton's overflow sanitizer, on with ``debug`` where the target compiles (the
        ``sanitize_overflow`` option): a device assert that the signed integer ``a <name> b``
        (narrower than 64 bits; operands already promoted) fits its type, computed in int64."""
        ty = a.dtype
        if not (self.options.debug and self.options.sanitize_overflow and isinstance(ty, ScalarType)
                and ty.is_int_signed() and ty.primitive_bitwidth < 64):
            return
        wide = getattr(self, name)(self.cast(a, T.i64), self.cast(b, T.i64))
        fits = self.logical_and(self.less_equal(wide, ty.get_int_max_value()),
                                self.greater_equal(wide, ty.get_int_min_value()))
        self.device_assert(fits, f"int{ty.primitive_bitwidth} overflow detected for operation {name}")

    def add_pointer(self, ptr: tensor, offset: tensor) -> tensor:
        """``ptr + offset`` elementwise (offsets in elements; unsigned ones are zero-extended)."""
        if not _is_integer(offset.dtype):
            raise SemanticError(f"pointer offsets must be integers, got {offset.dtype.name}")
        if offset.dtype.is_int_unsigned() and offset.dtype.int_bitwidth < 64:
            offset = self.cast(offset, T.i64)
        ptr, offset = self.broadcast_pair(ptr, offset)
        return self.make("addptr", [ptr, offset], ptr.type)

    def sub(self, a: Any, b: Any, sanitize: bool = False) -> tensor:
        a, b = self.binary_operands(a, b, allow_a_ptr=True)
        if isinstance(a.dtype, PointerType):
            return self.add_pointer(a, self.minus(b))
        if sanitize:
            self.check_overflow("sub", a, b)
        return self.make("sub", [a, b], a.type)

    def mul(self, a: Any, b: Any, sanitize: bool = False) -> tensor:
        a, b = self.binary_operands(a, b)
        if sanitize:
            self.check_overflow("mul", a, b)
        return self.make("mul", [a, b], a.type)

    def truediv(self, a: Any, b: Any) -> tensor:
        """``/``: always a float division.  int/int computes in f32; float/int in the float's
        type; float/float in the type with the wider mantissa."""
        a, b = self.binary_operands(a, b, div_or_mod=True)
        a_ty, b_ty = a.dtype, b.dtype
        if a_ty.is_floating() and b_ty.is_int():
            b = self.cast(b, a_ty)
        elif a_ty.is_int() and b_ty.is_floating():
            a = self.cast(a, b_ty)
        elif a_ty.is_int() and b_ty.is_int():
            a, b = self.cast(a, T.f32), self.cast(b, T.f32)
        elif a_ty.fp_mantissa_width > b_ty.fp_mantissa_width:
            b = self.cast(b, a_ty)
        else:
            a = self.cast(a, b_ty)
        return self.make("div", [a, b], a.type)

    def floordiv(self, a: Any, b: Any) -> tensor:
        """``//`` on integers: C division, truncating toward zero."""
        a, b = self.binary_operands(a, b, div_or_mod=True)
        if not (a.dtype.is_int() and b.dtype.is_int()):
            raise SemanticError(f"// needs integer operands, got {a.dtype.name} and {b.dtype.name}; "
                                "for floats use / (then tl.floor)")
        target = integer_promote(a.dtype, b.dtype)
        a, b = self.cast(a, target), self.cast(b, target)
        return self.make("div", [a, b], a.type)

    def mod(self, a: Any, b: Any) -> tensor:
        """``%``: C remainder (the sign of the dividend); fmod for floats."""
        a, b = self.binary_operands(a, b, div_or_mod=True)
        return self.make("rem", [a, b], a.type)

    def pow(self, a: Any, b: Any) -> tensor:
        raise SemanticError("** is not supported on kernel tensors; use x * x, tl.exp2(y * tl.log2(x)) or "
                            "libdevice pow")

    def matmul(self, a: Any, b: Any) -> tensor:
        return self.dot(a, b)

    # ---- bitwise and shifts ----
    def _integer_operands(self, a: Any, b: Any, what: str) -> tuple[tensor, tensor]:
        a, b = self.binary_operands(a, b)
        if not (_is_integer(a.dtype) and _is_integer(b.dtype)):
            raise SemanticError(f"invalid operands of type {a.dtype.name} and {b.dtype.name} for {what}: it needs "
                                "integer operands")
        target = integer_promote(a.dtype, b.dtype)
        return self.cast(a, target), self.cast(b, target)

    def and_(self, a: Any, b: Any) -> tensor:
        a, b = self._integer_operands(a, b, "&")
        return self.make("and", [a, b], a.type)

    def or_(self, a: Any, b: Any) -> tensor:
        a, b = self._integer_operands(a, b, "|")
        return self.make("or", [a, b], a.type)

    def xor_(self, a: Any, b: Any) -> tensor:
        a, b = self._integer_operands(a, b, "^")
        return self.make("xor", [a, b], a.type)

    def shl(self, a: Any, b: Any) -> tensor:
        _warn_wide_shift(a, b)
        a, b = self._integer_operands(a, b, "<<")
        return self.make("shl", [a, b], a.type)

    def shr(self, a: Any, b: Any) -> tensor:
        """``>>``: arithmetic when the tensor operand (the left one if both are tensors) is signed,
        logical otherwise, whatever type the operands are promoted to."""
        _warn_wide_shift(a, b)
        tensor_side = a if isinstance(a, tensor) else b
        a, b = self._integer_operands(a, b, ">>")  # first: it refuses pointers and floats
        arithmetic = tensor_side.dtype.is_int_signed() if isinstance(tensor_side, tensor) else True
        if a.dtype.is_int_signed() == arithmetic:
            return self.make("shr", [a, b], a.type)
        as_type = T.by_ir(("i" if arithmetic else "u") + a.dtype.ir[1:])
        shifted = self.make("shr", [self.bitcast(a, as_type), self.bitcast(b, as_type)],
                            T.with_shape(as_type, T.shape_of(a.type)))
        return self.bitcast(shifted, a.dtype)

    # ---- unary ----
    def minus(self, x: Any) -> tensor:
        x = self.to_tensor(x)
        if isinstance(x.dtype, PointerType):
            raise SemanticError(f"cannot negate a pointer ({x.dtype.name})")
        return self.make("neg", [x], x.type)

    def plus(self, x: Any) -> tensor:
        return self.to_tensor(x)

    def invert(self, x: Any) -> tensor:
        x = self.to_tensor(x)
        if not _is_integer(x.dtype):
            raise SemanticError(f"~ needs an integer operand, got {x.dtype.name}")
        return self.make("not", [x], x.type)

    def abs(self, x: Any) -> tensor:
        """|x| for floats and signed integers; unsigned integers (and bools) are returned as they are."""
        x = self.to_tensor(x)
        if isinstance(x.dtype, PointerType):
            raise SemanticError(f"abs of a pointer ({x.dtype.name})")
        if x.dtype.is_int_unsigned():
            return x
        if x.dtype.is_fp8():  # its bits with the sign cleared, on every target (as Triton's)
            bits = self.bitcast(x, T.u8)
            return self.bitcast(self.and_(bits, self.scalar_constant(0x7F, T.u8)), x.dtype)
        return self.make("abs", [x], x.type)

    # ---- comparisons ----
    def compare(self, a: Any, b: Any, predicate: str) -> tensor:
        """Comparisons convert Python constants to tensors first (as Triton's operators do), so
        ``x_i8 < 5`` compares in i32 and ``x_f16 < 0.5`` in f32."""
        a, b = self.to_tensor(a), self.to_tensor(b)
        a, b = self.binary_operands(a, b, allow_a_ptr=True, allow_b_ptr=True)
        if isinstance(a.dtype, PointerType) != isinstance(b.dtype, PointerType):
            raise SemanticError(f"cannot compare {a.dtype.name} with {b.dtype.name}")
        return self.make("cmp", [a, b], T.with_shape(T.i1, T.shape_of(a.type)), {"predicate": predicate})

    def equal(self, a: Any, b: Any) -> tensor:
        return self.compare(a, b, "eq")

    def not_equal(self, a: Any, b: Any) -> tensor:
        return self.compare(a, b, "ne")

    def less_than(self, a: Any, b: Any) -> tensor:
        return self.compare(a, b, "lt")

    def less_equal(self, a: Any, b: Any) -> tensor:
        return self.compare(a, b, "le")

    def greater_than(self, a: Any, b: Any) -> tensor:
        return self.compare(a, b, "gt")

    def greater_equal(self, a: Any, b: Any) -> tensor:
        return self.compare(a, b, "ge")

    # ---- logical (Python's and / or / not on tensors) ----
    def to_bool(self, x: Any) -> tensor:
        x = self.to_tensor(x)
        return x if x.dtype is T.i1 else self.cast(x, T.i1)

    def logical_and(self, a: Any, b: Any) -> tensor:
        a, b = self.broadcast_pair(self.to_bool(a), self.to_bool(b))
        return self.make("and", [a, b], a.type)

    def logical_or(self, a: Any, b: Any) -> tensor:
        a, b = self.broadcast_pair(self.to_bool(a), self.to_bool(b))
        return self.make("or", [a, b], a.type)

    def logical_not(self, x: Any) -> tensor:
        x = self.to_bool(x)
        return self.make("not", [x], x.type)

    # ---- selection and extrema ----
    def where(self, cond: Any, x: Any, y: Any) -> tensor:
        """``cond ? x : y`` with x and y promoted together and all three broadcast.  A condition
        tensor that is not boolean is compared with zero, with Triton's deprecation warning."""
        given = python_value(cond)
        if isinstance(given, tensor) and given.dtype is not T.i1:
            warnings.warn(f"tl.where with a non-boolean condition is deprecated and will error out in a future triton "
                          f"release. Got {given.dtype.name}", UserWarning, stacklevel=2)
        cond = self.to_bool(cond)
        x, y = self.binary_operands(x, y, allow_a_ptr=True, allow_b_ptr=True)
        if x.dtype is not y.dtype:
            raise SemanticError(f"tl.where branches have different types: {x.dtype.name} and {y.dtype.name}")
        cond, x, y = self.broadcast_all(cond, x, y)
        return self.make("select", [cond, x, y], x.type)

    def _extremum(self, name: str, a: Any, b: Any, propagate_nan: Any) -> tensor:
        a, b = self.promote_bf16(self.to_tensor(a)), self.promote_bf16(self.to_tensor(b))
        a, b = self.binary_operands(a, b)
        if a.dtype.is_floating():
            return self.make(name, [a, b], a.type, {"propagate_nan": nan_mode(propagate_nan)})
        return self.make(name, [a, b], a.type)

    def minimum(self, a: Any, b: Any, propagate_nan: Any = None) -> tensor:
        return self._extremum("minimum", a, b, propagate_nan)

    def maximum(self, a: Any, b: Any, propagate_nan: Any = None) -> tensor:
        return self._extremum("maximum", a, b, propagate_nan)

    def promote_bf16(self, x: tensor) -> tensor:
        """bf16 -> f32 (no bf16 min/max/compare in hardware; as Triton does before them)."""
        return self.cast(x, T.f32) if x.dtype is T.bf16 else x


def nan_mode(propagate_nan: Any) -> str:
    """'all' or 'none' from Triton's PropagateNan (or a string/bool)."""
    value = python_value(propagate_nan)
    if value is None:
        return "none"
    if isinstance(value, PropagateNan):
        return value.name.lower()
    if isinstance(value, bool):
        return "all" if value else "none"
    if isinstance(value, str) and value.lower() in ("all", "none"):
        return value.lower()
    raise SemanticError(f"propagate_nan must be tl.PropagateNan.ALL or tl.PropagateNan.NONE, got {value!r}")


def _warn_wide_shift(value: Any, amount: Any) -> None:
    """Triton warns when a constant shift amount reaches the operand's width."""
    if isinstance(value, tensor) and isinstance(amount, constexpr | int) and not isinstance(amount, bool):
        bits = getattr(value.dtype, "primitive_bitwidth", 64)
        if python_value(amount) >= bits:
            warnings.warn(f"shift amount {python_value(amount)} reaches the width of {value.dtype.name} ({bits} "
                          "bits); the result is 0 (<<) or the sign fill (>>)", stacklevel=3)
