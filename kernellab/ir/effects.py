"""Which of a kernel's pointer arguments it may write through (``written_arguments``).

A forward, conservative dataflow over the Tile IR: every pointer value (pointers, tiles of them,
block pointers, tensor descriptors) carries the set of arguments it may be derived from (an
argument itself; an op's pointer results from all its operands; a region's block arguments from
the op's operands and every value its regions yield or pass on; a pointer made from no pointer,
such as an integer cast to one, from every argument); a write
(an op with the ``writes_memory`` trait, or a call, whose effects are not looked into) writes
through every argument its operands come from.  Launchers use it to refuse read-only arrays
for those arguments before anything runs.
"""

from __future__ import annotations

from .core import Block, Function, Op, Value
from .ops.registry import TERMINATOR, WRITES_MEMORY
from .types import PointerType, TensorDescType, element_of


def written_arguments(function: Function) -> set[int]:
    """Indices of ``function``'s pointer arguments that its writes may go through."""
    origins: dict[int, frozenset[int]] = {}
    for index, arg in enumerate(function.args):
        if _is_pointer(arg):
            origins[id(arg)] = frozenset({index})
    everything = frozenset().union(*origins.values())
    changed = True
    while changed:  # loops feed their results back into their block arguments: iterate to a fixed point
        changed = _propagate(function.body, origins, everything)
    written: set[int] = set()
    for op in function.walk():
        if op.name == "call" or WRITES_MEMORY in op.opdef.traits:
            written |= _from(op.operands, origins)
    return written


def _from(values: list[Value], origins: dict[int, frozenset[int]]) -> frozenset[int]:
    found: frozenset[int] = frozenset()
    for value in values:
        found |= origins.get(id(value), frozenset())
    return found


def _is_pointer(value: Value) -> bool:
    return isinstance(element_of(value.type), (PointerType, TensorDescType))


def _propagate(block: Block, origins: dict[int, frozenset[int]], everything: frozenset[int]) -> bool:
    changed = False
    for op in block.ops:
        sources = _from(op.operands, origins) | _region_outputs(op, origins)
        if not sources and not op.regions:
            sources = everything  # a pointer from no pointer (an int cast to one): it may be any
        targets = [v for v in [*op.results, *(a for region in op.regions for a in region.args)] if _is_pointer(v)]
        for value in targets:
            before = origins.get(id(value), frozenset())
            if not sources <= before:
                origins[id(value)] = before | sources
                changed = True
        for region in op.regions:
            changed |= _propagate(region, origins, everything)
    return changed


def _region_outputs(op: Op, origins: dict[int, frozenset[int]]) -> frozenset[int]:
    """What an op's regions pass out through their terminators (yields, while conditions)."""
    found: frozenset[int] = frozenset()
    for region in op.regions:
        for inner in region.walk():
            if TERMINATOR in inner.opdef.traits:
                found |= _from(inner.operands, origins)
    return found


__all__ = ["written_arguments"]
