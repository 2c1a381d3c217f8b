"""Loop-invariant code motion: pure ops without ``needs_ctx`` in the regions of a ``for`` or
``while`` whose operands (including those used inside their own regions) are all defined
outside the loop move in front of the loop.  Inner loops go first, so an op can climb several
levels.  Only ops of the loop's own blocks move (never out of a nested ``if``), and integer
division or remainder moves only by a non-zero constant: a loop may run zero times, and
hoisting must not introduce a trap that the loop would not have hit.  A loop marked
``disable_licm`` (``tl.range(..., disable_licm=True)``, ``while tl.condition(c, disable_licm=True)``)
keeps its code: nothing leaves it (what its inner loops hoist stops at it).
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value, defined_values
from ..ir.ops import NEEDS_CTX, PURE, TERMINATOR
from ..ir.types import ScalarType, element_of
from .rewrite import constant_of, function_pass

LOOPS = ("for", "while")


@function_pass
def licm(function: Function) -> None:
    """Hoist loop-invariant pure ops out of every loop."""
    _hoist_in(function.body)


def _hoist_in(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            _hoist_in(region)
        if op.name in LOOPS and not op.attrs.get("disable_licm"):
            _hoist_from(op)


def _hoist_from(loop: Op) -> None:
    inside = _defined_within(loop)
    outer = loop.parent
    for region in loop.regions:
        for op in list(region.ops):
            if not _movable(op) or any(id(v) in inside for v in free_values(op)):
                continue
            region.remove(op)
            outer.insert(outer.ops.index(loop), op)
            inside -= _defined_within(op) | {id(r) for r in op.results}


def _movable(op: Op) -> bool:
    opdef = op.opdef
    if not opdef.has(PURE) or opdef.has(NEEDS_CTX) or opdef.has(TERMINATOR):
        return False
    return not _may_trap(op)


def _may_trap(op: Op) -> bool:
    if op.name not in ("div", "rem"):
        return False
    element = element_of(op.result.type)
    if not (isinstance(element, ScalarType) and element.is_int()):
        return False
    divisor = constant_of(op.operands[1])
    return divisor is None or divisor == 0


def _defined_within(op: Op) -> set[int]:
    return {id(v) for v in defined_values(op)}


def free_values(op: Op) -> list[Value]:
    """Values ``op`` and the ops of its regions use but do not define themselves."""
    own = _defined_within(op)
    return [v for inner in op.walk() for v in inner.operands if id(v) not in own]
