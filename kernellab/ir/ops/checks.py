"""Small verifier building blocks shared by op declarations."""

from __future__ import annotations

from collections.abc import Callable

from ..core import Op
from ..types import PointerType, ScalarType, TileType, Type, element_of, i1, shape_of
from .registry import VerifyError


def same_shape(op: Op) -> None:
    """Every operand and result has one shape (scalars: ``()``)."""
    shapes = {shape_of(v.type) for v in op.operands + op.results}
    if len(shapes) > 1:
        raise VerifyError(f"operands and results must have one shape, got {sorted(shapes)}", op)


def same_type(op: Op) -> None:
    """Every operand and the result have one type."""
    types = {v.type for v in op.operands + op.results}
    if len(types) > 1:
        raise VerifyError(f"operands and result must have one type, got {[t.ir for t in types]}", op)


def element_is(predicate: Callable[[Type], bool], what: str, operand: int = 0) -> Callable[[Op], None]:
    def check(op: Op) -> None:
        element = element_of(op.operands[operand].type)
        if not predicate(element):
            raise VerifyError(f"operand {operand} must have {what} elements, got {element.ir}", op)
    return check


def result_is_bool(op: Op) -> None:
    if element_of(op.result.type) is not i1:
        raise VerifyError(f"result must have i1 elements, got {op.result.type.ir}", op)


def all_of(*checks: Callable[[Op], None]) -> Callable[[Op], None]:
    def check(op: Op) -> None:
        for c in checks:
            c(op)
    return check


def is_float(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_floating()


def is_integer(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_int()


def is_pointer(t: Type) -> bool:
    return isinstance(t, PointerType)


def is_tile(t: Type) -> bool:
    return isinstance(t, TileType)


def require(condition: bool, message: str, op: Op) -> None:
    if not condition:
        raise VerifyError(message, op)
