"""Which pointer arguments a kernel writes, read from its Tile IR.

A write is an op with the ``writes_memory`` trait (``store``, ``descriptor_store``, the atomics),
an impure ``inline_asm`` given pointers, or a ``call`` of a function that writes through an
argument.  The pointer it writes through is followed back through pointer-typed values only
(``addptr``, ``splat``, ``broadcast``, ``where``, ``make_block_ptr``, ``advance``,
``make_tensor_descriptor``, loop-carried values...), so an offset loaded from another array
never marks that array written.  Where a pointer's origin cannot be followed (a pointer loaded
from memory, an integer cast to a pointer) every pointer argument counts as written: the answer
may be too large, never too small.

No torch here: this module reads Tile IR only.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block, Function, Module, Op, Value
from ..ir.types import Type

EVERY = -1  # a root that stands for "any pointer argument"


def is_pointerish(ty: Type) -> bool:
    """Pointers, tiles of pointers, block pointers and tensor descriptors."""
    if ty.is_tensor_descriptor() or ty.is_ptr():
        return True
    return ty.is_block() and ty.scalar.is_ptr()


class _Roots:
    """Function-argument indices each pointer-typed value of one function may point into."""

    def __init__(self, function: Function, callee_writes: Any):
        self.function = function
        self.callee_writes = callee_writes
        self.memo: dict[int, frozenset[int]] = {}
        self.args = {id(a): i for i, a in enumerate(function.args)}

    def of(self, value: Value) -> frozenset[int]:
        key = id(value)
        if key not in self.memo:
            self.memo[key] = frozenset()  # a loop-carried cycle contributes nothing new
            self.memo[key] = self._compute(value)
        return self.memo[key]

    def _compute(self, value: Value) -> frozenset[int]:
        if id(value) in self.args:
            return frozenset({self.args[id(value)]})
        owner = value.owner
        if isinstance(owner, Block):
            return self._from_region_arg(owner, value)
        if isinstance(owner, Op):
            return self._from_op(owner, value)
        return frozenset({EVERY})

    def _pointer_operands(self, op: Op) -> frozenset[int]:
        found: set[int] = set()
        for operand in op.operands:
            if is_pointerish(operand.type):
                found |= self.of(operand)
        return frozenset(found)

    def _terminator_pointers(self, op: Op) -> frozenset[int]:
        found: set[int] = set()
        for region in op.regions:
            if region.terminator is not None:
                found |= self._pointer_operands(region.terminator)
        return frozenset(found)

    def _from_region_arg(self, block: Block, value: Value) -> frozenset[int]:
        parent = block.parent
        if not isinstance(parent, Op):
            return frozenset({EVERY})
        index = value.index
        carried = self._carried_into(parent, block, index)
        if carried is None:
            return self._pointer_operands(parent) | self._terminator_pointers(parent)
        return self._union(carried)

    def _carried_into(self, op: Op, block: Block, index: int) -> list[Value] | None:
        """The values a loop's region argument ``index`` takes (``None``: not followed)."""
        if op.name == "for" and index >= 1:
            init = op.operand_group("init")
            return [init[index - 1], block.terminator.operands[index - 1]]
        if op.name == "while":
            before, after = op.regions
            if block is before:
                return [op.operand_group("init")[index], after.terminator.operands[index]]
            return [before.terminator.operands[1 + index]]
        return None

    def _yielded(self, op: Op, index: int) -> list[Value] | None:
        """The values a structured op's result ``index`` may be (``None``: not followed)."""
        if op.name == "if":
            return [region.terminator.operands[index] for region in op.regions]
        if op.name == "for":
            return [op.operand_group("init")[index], op.regions[0].terminator.operands[index]]
        if op.name == "while":
            return [op.regions[0].terminator.operands[1 + index]]
        return None

    def _union(self, values: list[Value]) -> frozenset[int]:
        found: set[int] = set()
        for value in values:
            found |= self.of(value)
        return frozenset(found)

    def _from_op(self, op: Op, value: Value) -> frozenset[int]:
        if op.opdef.has("reads_memory"):  # a pointer loaded from memory: it may be anything
            return frozenset({EVERY})
        yielded = self._yielded(op, value.index) if op.regions else None
        if yielded is not None:
            return self._union(yielded)
        if not any(is_pointerish(v.type) for v in op.operands) and not op.regions:
            return frozenset({EVERY})  # made from integers (int_to_ptr, bitcast)
        return self._pointer_operands(op) | (self._terminator_pointers(op) if op.regions else frozenset())


def _write_targets(op: Op, callee_writes: Any) -> list[Value]:
    """The pointer-typed operands ``op`` may write through."""
    if op.name == "call":
        written = callee_writes(op.attrs["callee"])
        return [v for i, v in enumerate(op.operands) if (EVERY in written or i in written) and is_pointerish(v.type)]
    if op.name == "inline_asm" and not op.attrs.get("pure", True):
        return [v for v in op.operands if is_pointerish(v.type)]
    if op.opdef.has("writes_memory"):
        return [v for v in op.operands[:1] if is_pointerish(v.type)]
    return []


def written_arguments(module: Module) -> frozenset[int]:
    """Indices (into the kernel function's arguments) of the pointer arguments it may write."""
    done: dict[str, frozenset[int]] = {}

    def writes_of(name: str) -> frozenset[int]:
        if name not in done:
            function = module.functions.get(name)
            done[name] = frozenset({EVERY}) if function is None else _function_writes(function, writes_of)
        return done[name]

    kernel = module.kernel
    written = writes_of(kernel.name)
    pointers = frozenset(i for i, a in enumerate(kernel.args) if is_pointerish(a.type))
    return pointers if EVERY in written else written & pointers


def _function_writes(function: Function, writes_of: Any) -> frozenset[int]:
    roots = _Roots(function, writes_of)
    found: set[int] = set()
    for op in function.walk():
        for target in _write_targets(op, writes_of):
            found |= roots.of(target)
    return frozenset(found)


__all__ = ["written_arguments", "is_pointerish", "EVERY"]
