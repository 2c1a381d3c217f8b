"""Shared tools for passes: erasing and cloning ops, replacing values, reading constants.

Values keep no use lists (see :mod:`kernellab.ir.core`), so passes that replace many values
record the replacements in a :class:`Replacements` map and resolve operands through it as they
walk (definitions come before uses in program order), instead of rewalking the function for
every replacement.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from ..ir.core import Block, Function, Module, Op, Value
from ..ir.ops import PURE, WRITES_MEMORY


def function_pass(run: Callable[[Function], None]) -> Callable[[Module], Module]:
    """Turn ``run(function)`` into a pass ``(module) -> module`` applied to every function."""
    @functools.wraps(run)
    def apply(module: Module) -> Module:
        for function in module.functions.values():
            run(function)
        return module
    return apply


class Replacements:
    """``old value -> new value``, followed transitively.  The map holds the old value too: an
    erased op's results are freed by the cycle collector during the pass, and a value made after
    that may get a freed value's ``id``; it must not be taken for the value it replaced."""

    def __init__(self) -> None:
        self.map: dict[int, tuple[Value, Value]] = {}

    def replace(self, old: Value, new: Value) -> None:
        if old is not new:
            self.map[id(old)] = (old, new)

    def resolve(self, value: Value) -> Value:
        while (entry := self.map.get(id(value))) is not None and entry[0] is value:
            value = entry[1]
        return value

    def update_operands(self, op: Op) -> bool:
        """Point ``op``'s operands at their replacements; whether any changed."""
        changed = False
        for i, operand in enumerate(op.operands):
            new = self.resolve(operand)
            if new is not operand:
                op.operands[i] = new
                changed = True
        return changed

    def apply(self, scope: Block | Function | Module) -> None:
        """Resolve every operand inside ``scope``."""
        if self.map:
            for op in scope.walk():
                self.update_operands(op)


def erase(op: Op) -> None:
    """Remove ``op`` from its block (its results must be unused or replaced)."""
    if op.parent is not None:
        op.parent.remove(op)


def replace_op(op: Op, values: list[Value], replacements: Replacements) -> None:
    """Replace ``op``'s results by ``values`` and erase it."""
    for result, value in zip(op.results, values):
        replacements.replace(result, value)
    erase(op)


def clone_op(op: Op, mapping: dict[int, Value]) -> Op:
    """A deep copy of ``op`` (regions included); operands go through ``mapping`` (values not in
    it are kept, e.g. values from enclosing blocks).  New results are added to ``mapping``."""
    regions = [clone_block(region, mapping) for region in op.regions]
    operands = [mapping.get(id(v), v) for v in op.operands]
    copy = Op(op.name, operands, [r.type for r in op.results], dict(op.attrs), regions, op.loc, op.segments)
    for old, new in zip(op.results, copy.results):
        new.name_hint = old.name_hint
        mapping[id(old)] = new
    return copy


def clone_block(block: Block, mapping: dict[int, Value]) -> Block:
    copy = Block([a.type for a in block.args], [a.name_hint for a in block.args])
    mapping.update({id(old): new for old, new in zip(block.args, copy.args)})
    for op in block.ops:
        copy.append(clone_op(op, mapping))
    return copy


def constant_of(value: Value) -> Any:
    """The ``value`` attribute when ``value`` is produced by a ``constant`` op, else ``None``."""
    op = value.defining_op
    if op is None or op.name != "constant":
        return None
    return op.attrs["value"]


def is_constant(value: Value) -> bool:
    op = value.defining_op
    return op is not None and op.name == "constant"


def blocks(scope: Block | Function | Module) -> Iterator[Block]:
    """Every block in ``scope``, outer before inner."""
    if isinstance(scope, Module):
        for function in scope.functions.values():
            yield from blocks(function.body)
        return
    block = scope.body if isinstance(scope, Function) else scope
    yield block
    for op in list(block.ops):
        for region in op.regions:
            yield from blocks(region)


def has_no_effects(op: Op) -> bool:
    """Whether removing ``op`` (when its results are unused) cannot change what a program does:
    pure ops, non-volatile loads, and ``for``/``if``/``reduce``/``scan`` whose regions hold only
    such ops.  ``while`` may not terminate, so it always stays."""
    if op.name in ("yield", "condition"):
        return True
    if op.name in ("for", "if") or (op.regions and op.opdef.has(PURE)):
        return all(has_no_effects(inner) for region in op.regions for inner in region.ops)
    if op.opdef.has(PURE):
        return True
    if op.name in ("load", "descriptor_load"):
        return not op.attrs.get("volatile", False) and not op.opdef.has(WRITES_MEMORY)
    return op.name == "inline_asm" and op.attrs.get("pure", False)
