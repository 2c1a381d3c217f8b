"""Common-subexpression elimination of pure ops.

Two ops are equivalent when they have the same name, operands (in any order for commutative
two-operand ops), operand segments, attributes (compared by kind and printed value, so ``0.0``
and ``-0.0`` differ), result types and structurally identical regions.  Scoping follows the
IR: an op may be replaced by an equivalent op of its own block or an enclosing one, never by
one inside a region it cannot see.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block, Function, Op, Value
from ..ir.ops import COMMUTATIVE, PURE
from ..ir.types import Type
from .rewrite import Replacements, function_pass, replace_op


@function_pass
def cse(function: Function) -> None:
    """Replace every pure op that repeats a visible equivalent op by that op's results."""
    _CSE(function).run()


class _CSE:
    def __init__(self, function: Function):
        self.function = function
        self.replacements = Replacements()
        self.scopes: list[dict[tuple, Op]] = []

    def run(self) -> None:
        self.block(self.function.body)
        self.replacements.apply(self.function)

    def block(self, block: Block) -> None:
        self.scopes.append({})
        for op in list(block.ops):
            self.replacements.update_operands(op)
            for region in op.regions:
                self.block(region)
            if not op.opdef.has(PURE):
                continue
            key = op_key(op)
            existing = self.lookup(key)
            if existing is not None:
                replace_op(op, existing.results, self.replacements)
            else:
                self.scopes[-1][key] = op
        self.scopes.pop()

    def lookup(self, key: tuple) -> Op | None:
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        return None


def literal_key(value: Any) -> Any:
    """A hashable key telling apart values that compare equal but differ (``0.0``/``-0.0``,
    ``1``/``1.0``/``True``) and equating NaNs."""
    if isinstance(value, (tuple, list)):
        return ("seq", tuple(literal_key(v) for v in value))
    if isinstance(value, Type):
        return ("type", value.ir)
    return (type(value).__name__, repr(value))


def op_key(op: Op, local: dict[int, Any] | None = None, level: int = 0) -> tuple:
    """The equivalence key of ``op``; ``local`` names values defined inside the enclosing
    regions being compared structurally (by nesting level and position)."""
    refs = [_ref(v, local) for v in op.operands]
    if op.opdef.has(COMMUTATIVE) and len(refs) == 2:
        refs.sort(key=repr)
    attrs = tuple(sorted((k, literal_key(v)) for k, v in op.attrs.items()))
    types = tuple(r.type.ir for r in op.results)
    regions = tuple(_region_key(region, dict(local or {}), level + 1) for region in op.regions)
    return (op.name, tuple(refs), op.segments, attrs, types, regions)


def _ref(value: Value, local: dict[int, Any] | None) -> Any:
    if local is not None and id(value) in local:
        return local[id(value)]
    return ("outer", id(value))


def _region_key(block: Block, local: dict[int, Any], level: int) -> tuple:
    for i, arg in enumerate(block.args):
        local[id(arg)] = ("arg", level, i)
    keys = []
    for position, op in enumerate(block.ops):
        keys.append(op_key(op, local, level))
        for i, result in enumerate(op.results):
            local[id(result)] = ("result", level, position, i)
    return tuple(a.type.ir for a in block.args), tuple(keys)
