"""Combining: ``add(dot(a, b, 0), d)`` (``d`` on either side) becomes ``dot(a, b, d)``, as
Triton's combine pass does: the accumulator tile is added to by the dot itself (on a GPU, the
tensor cores start from ``d``) instead of by a separate elementwise add over the whole tile.

Only where the rewrite cannot change what else sees: the dot's result is used by that add
alone, both ops are in one block, the accumulator is a constant zero, and for floats the dot
does not ask for imprecise accumulation (``max_num_imprecise_acc``).  The combined dot keeps
the dot's source location (the ``+`` happens inside it), as in Triton.  Floats round once
where they rounded twice (``a @ b + d`` in the dot's precision).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..ir.core import Block, Function, Op, Value
from ..ir.types import ScalarType, element_of
from .rewrite import Replacements, blocks, constant_of, erase, function_pass


@function_pass
def combine(function: Function) -> None:
    """Fold each ``add`` of a single-use, zero-accumulator ``dot`` into the dot."""
    uses = Counter(id(operand) for op in function.walk() for operand in op.operands)
    replacements = Replacements()
    for block in list(blocks(function)):
        for op in list(block.ops):
            replacements.update_operands(op)
            if op.name == "add":
                _into_dot(op, block, uses, replacements)
    replacements.apply(function)


def _into_dot(add: Op, block: Block, uses: Counter, replacements: Replacements) -> None:
    for side in (0, 1):
        product, other = add.operands[side], add.operands[1 - side]
        dot = product.defining_op
        if dot is None or dot.name != "dot" or dot.parent is not block or uses[id(product)] != 1:
            continue
        if not _combinable(dot, other):
            continue
        block.remove(dot)
        block.insert(block.ops.index(add), dot)  # after `other`'s definition, where the add was
        dot.operands[2] = other
        replacements.replace(add.result, dot.result)
        erase(add)
        return


def _combinable(dot: Op, addend: Value) -> bool:
    acc = constant_of(dot.operands[2])
    if acc is None or np.ndim(acc) != 0 or acc != 0 or addend.type is not dot.result.type:
        return False
    element = element_of(dot.result.type)
    floating = isinstance(element, ScalarType) and element.is_floating()
    return not (floating and dot.attrs.get("max_num_imprecise_acc", 0))


__all__ = ["combine"]
