"""Arithmetic, comparison, bitwise and selection semantics (Python operators and tl.where,
tl.minimum, tl.maximum...)."""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ...ir.types import PointerType, ScalarType
from ..core import constexpr, tensor
from .base import SemanticError
from .typing import TypingMixin, integer_promote


def _ew(sem: TypingMixin, name: str, operands: list[tensor], ty=None, attrs=None) -> tensor:
    """Build an elementwise op whose result has the first operand's type (or ``ty``)."""
    ty = ty or operands[0].type
    return tensor(sem.builder.create(name, [o.handle for o in operands], [ty], attrs).result, ty)


class ArithMixin(TypingMixin):
    # ---- + - * / // % ----
    def add(self, a: Any, b: Any) -> tensor:
        a, b = self.binary_operands(a, b, allow_a_ptr=True, allow_b_ptr=True)
        if isinstance(a.dtype, PointerType) and isinstance(b.dtype, PointerType):
            raise SemanticError("cannot add two pointers")
        if isinstance(b.dtype, PointerType):
            a, b = b, a
        if isinstance(a.dtype, PointerType):
            return self.add_pointer(a, b)
        return _ew(self, "add", [a, b])

    def add_pointer(self, ptr: tensor, offset: tensor) -> tensor:
        """``ptr + offset`` elementwise (offsets in elements; unsigned ones are zero-extended)."""
        if offset.dtype.is_int_unsigned() and offset.dtype.int_bitwidth < 64:
            offset = self.cast(offset, T.i64)
        ptr, offset = self.broadcast_pair(ptr, offset)
        return _ew(self, "addptr", [ptr, offset])

    def sub(self, a: Any, b: Any) -> tensor:
        a, b = self.binary_operands(a, b, allow_a_ptr=True)
        if isinstance(a.dtype, PointerType):
            return self.add_pointer(a, self.minus(b))
        return _ew(self, "sub", [a, b])

    def mul(self, a: Any, b: Any) -> tensor:
        a, b = self.binary_operands(a, b)
        return _ew(self, "mul", [a, b])

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
        return _ew(self, "div", [a, b])

    def floordiv(self, a: Any, b: Any) -> tensor:
        """``//`` on integers: C division, truncating toward zero."""
        a, b = self.binary_operands(a, b, div_or_mod=True)
        if not (a.dtype.is_int() and b.dtype.is_int()):
            raise SemanticError(f"// needs integer operands, got {a.dtype.name} and {b.dtype.name}; "
                                "use / for floats (then tl.floor)")
        target = integer_promote(a.dtype, b.dtype)
        return _ew(self, "div", [self.cast(a, target), self.cast(b, target)])

    def mod(self, a: Any, b: Any) -> tensor:
        """``%``: C remainder (sign of the dividend); fmod for floats."""
        a, b = self.binary_operands(a, b, div_or_mod=True)
        return _ew(self, "rem", [a, b])

    def pow(self, a: Any, b: Any) -> tensor:
        raise SemanticError("** is not supported on kernel tensors; use x * x, tl.exp2(y * tl.log2(x)) or "
                            "libdevice pow")

    def matmul(self, a: Any, b: Any) -> tensor:
        return self.dot(a, b)

    # ---- bitwise and shifts ----
    def _integer_operands(self, a: Any, b: Any, what: str) -> tuple[tensor, tensor]:
        a, b = self.binary_operands(a, b, arithmetic=False)
        if not (isinstance(a.dtype, ScalarType) and a.dtype.is_int() and isinstance(b.dtype, ScalarType)
                and b.dtype.is_int()):
            raise SemanticError(f"{what} needs integer operands, got {a.dtype.name} and {b.dtype.name}")
        target = integer_promote(a.dtype, b.dtype)
        return self.cast(a, target), self.cast(b, target)

    def and_(self, a: Any, b: Any) -> tensor:
        return _ew(self, "and", list(self._integer_operands(a, b, "&")))

    def or_(self, a: Any, b: Any) -> tensor:
        return _ew(self, "or", list(self._integer_operands(a, b, "|")))

    def xor_(self, a: Any, b: Any) -> tensor:
        return _ew(self, "xor", list(self._integer_operands(a, b, "^")))

    def shl(self, a: Any, b: Any) -> tensor:
        return _ew(self, "shl", list(self._integer_operands(a, b, "<<")))

    def shr(self, a: Any, b: Any) -> tensor:
        """``>>``: arithmetic for signed, logical for unsigned types."""
        return _ew(self, "shr", list(self._integer_operands(a, b, ">>")))

    # ---- unary ----
    def minus(self, x: Any) -> tensor:
        x = self.to_tensor(x)
        if isinstance(x.dtype, PointerType):
            raise SemanticError("cannot negate a pointer")
        return _ew(self, "neg", [x])

    def plus(self, x: Any) -> tensor:
        return self.to_tensor(x)

    def invert(self, x: Any) -> tensor:
        x = self.to_tensor(x)
        if not (isinstance(x.dtype, ScalarType) and x.dtype.is_int()):
            raise SemanticError(f"~ needs an integer operand, got {x.dtype.name}")
        return _ew(self, "not", [x])

    def abs(self, x: Any) -> tensor:
        x = self.to_tensor(x)
        if isinstance(x.dtype, PointerType):
            raise SemanticError("abs of a pointer")
        if x.dtype.is_int_unsigned() or x.dtype.is_bool():
            return x
        return _ew(self, "abs", [x])

    # ---- comparisons ----
    def compare(self, a: Any, b: Any, predicate: str) -> tensor:
        a, b = self.binary_operands(a, b, allow_a_ptr=True, allow_b_ptr=True)
        ty = T.with_shape(T.i1, T.shape_of(a.type))
        return _ew(self, "cmp", [a, b], ty, {"predicate": predicate})

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
        return _ew(self, "and", [a, b])

    def logical_or(self, a: Any, b: Any) -> tensor:
        a, b = self.broadcast_pair(self.to_bool(a), self.to_bool(b))
        return _ew(self, "or", [a, b])

    def logical_not(self, x: Any) -> tensor:
        return _ew(self, "not", [self.to_bool(x)])

    # ---- selection and extrema ----
    def where(self, cond: Any, x: Any, y: Any) -> tensor:
        """``cond ? x : y`` with x and y promoted together and all three broadcast."""
        cond = self.to_bool(cond)
        x, y = self.binary_operands(x, y, allow_a_ptr=True, allow_b_ptr=True)
        if x.dtype is not y.dtype:
            raise SemanticError(f"tl.where branches have different types: {x.dtype.name} and {y.dtype.name}")
        shape = self.broadcast_shapes(T.shape_of(cond.type), T.shape_of(x.type))
        if shape:
            cond, x, y = (self.broadcast_to(v, shape) for v in (cond, x, y))
        return _ew(self, "select", [cond, x, y], x.type)

    def _extremum(self, name: str, a: Any, b: Any, propagate_nan: Any) -> tensor:
        a, b = self.binary_operands(a, b)
        if isinstance(a.dtype, ScalarType) and a.dtype.is_floating():
            return _ew(self, name, [a, b], attrs={"propagate_nan": _nan_mode(propagate_nan)})
        return _ew(self, name, [a, b])

    def minimum(self, a: Any, b: Any, propagate_nan: Any = None) -> tensor:
        return self._extremum("minimum", a, b, propagate_nan)

    def maximum(self, a: Any, b: Any, propagate_nan: Any = None) -> tensor:
        return self._extremum("maximum", a, b, propagate_nan)


def _nan_mode(propagate_nan: Any) -> str:
    """'all' or 'none' from Triton's PropagateNan (or a string/bool)."""
    value = propagate_nan.value if isinstance(propagate_nan, constexpr) else propagate_nan
    if value is None:
        return "none"
    name = getattr(value, "name", value)
    if isinstance(name, str) and name.lower() in ("all", "none"):
        return name.lower()
    if isinstance(value, bool):
        return "all" if value else "none"
    raise SemanticError(f"propagate_nan must be tl.PropagateNan.ALL or NONE, got {value!r}")
