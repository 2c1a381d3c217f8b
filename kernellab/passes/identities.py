"""Algebraic identities used by canonicalization: ``simplify(op)`` returns a value that may
replace ``op``'s single result (same type), or ``None``.

Only identities exact for every input are used: for floats ``x + -0.0``, ``x - +0.0``,
``x * 1`` and ``x / 1`` (``x + 0.0`` is not ``x`` when ``x`` is ``-0.0``); ``x * 0`` only for
integers (``NaN * 0`` is NaN).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..ir.core import Op, Value
from ..ir.types import ScalarType, element_of
from .rewrite import constant_of


def _integer(value: Value) -> bool:
    element = element_of(value.type)
    return isinstance(element, ScalarType) and element.is_int()


def _is(value: Value, number: int) -> bool:
    constant = constant_of(value)
    return constant is not None and constant == number


def _zero_keeping_sign(value: Value, sign: float) -> bool:
    """An integer zero, or a float zero of the given sign (``x + -0.0 == x``, ``x - +0.0 == x``)."""
    if not _is(value, 0):
        return False
    return _integer(value) or math.copysign(1.0, constant_of(value)) == sign


def _add(op: Op) -> Value | None:
    a, b = op.operands
    if _zero_keeping_sign(b, -1.0):
        return a
    return b if _zero_keeping_sign(a, -1.0) else None


def _sub(op: Op) -> Value | None:
    a, b = op.operands
    return a if _zero_keeping_sign(b, 1.0) else None


def _mul(op: Op) -> Value | None:
    a, b = op.operands
    for x, c in ((a, b), (b, a)):
        if _is(c, 1):
            return x
        if _is(c, 0) and _integer(c):
            return c
    return None


def _right_identity(number: int) -> Callable[[Op], Value | None]:
    def rule(op: Op) -> Value | None:
        return op.operands[0] if _is(op.operands[1], number) else None
    return rule


def _either_identity(number: int) -> Callable[[Op], Value | None]:
    def rule(op: Op) -> Value | None:
        a, b = op.operands
        if _is(b, number):
            return a
        return b if _is(a, number) else None
    return rule


def _select(op: Op) -> Value | None:
    condition, if_true, if_false = op.operands
    if if_true is if_false:
        return if_true
    value = constant_of(condition)
    if value is None:
        return None
    return if_true if value else if_false


def _same_type(op: Op) -> Value | None:
    source = op.operands[0]
    return source if source.type is op.result.type else None


def _trans(op: Op) -> Value | None:
    return op.operands[0] if tuple(op.attrs["order"]) == tuple(range(len(op.attrs["order"]))) else None


def _addptr(op: Op) -> Value | None:
    pointer, offset = op.operands
    return pointer if _is(offset, 0) else None


RULES: dict[str, Callable[[Op], Value | None]] = {
    "add": _add, "sub": _sub, "mul": _mul,
    "div": _right_identity(1), "fdiv": _right_identity(1), "div_rn": _right_identity(1),
    "or": _either_identity(0), "xor": _either_identity(0), "shl": _right_identity(0), "shr": _right_identity(0),
    "select": _select, "cast": _same_type, "bitcast": _same_type, "broadcast": _same_type, "reshape": _same_type,
    "trans": _trans, "addptr": _addptr,
}


def simplify(op: Op) -> Value | None:
    """A value equal to ``op``'s result for every input, or ``None``."""
    rule = RULES.get(op.name)
    return rule(op) if rule is not None else None
