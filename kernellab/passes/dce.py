"""Dead-code elimination: ops whose results are unused and that have no effects (pure ops,
non-volatile loads, ``for``/``if``/``reduce``/``scan`` holding only such ops; see
:func:`~kernellab.passes.rewrite.has_no_effects`) are removed, inside regions too.  Blocks are
visited last op first and regions before their op, so one visit removes chains of dead ops."""

from __future__ import annotations

from ..ir.core import Block, Function, Op
from ..ir.ops import TERMINATOR
from .rewrite import erase, function_pass, has_no_effects


@function_pass
def dce(function: Function) -> None:
    """Remove dead, effect-free ops from every function."""
    _DCE(function).block(function.body)


class _DCE:
    def __init__(self, function: Function):
        self.uses: dict[int, int] = {}
        for op in function.walk():
            for operand in op.operands:
                self.uses[id(operand)] = self.uses.get(id(operand), 0) + 1

    def block(self, block: Block) -> None:
        for op in reversed(list(block.ops)):
            for region in reversed(op.regions):
                self.block(region)
            if self.dead(op):
                self.remove(op)

    def dead(self, op: Op) -> bool:
        if op.opdef.has(TERMINATOR) or any(self.uses.get(id(r), 0) for r in op.results):
            return False
        return has_no_effects(op)

    def remove(self, op: Op) -> None:
        for inner in op.walk():
            for operand in inner.operands:
                self.uses[id(operand)] -= 1
        erase(op)
