"""Which of the kernel's top-level ops do not depend on the program id.

Such an op runs once per launch instead of once per program: it is pure, is not
``program_id``, and every value it uses (its operands, and values its regions capture) is a
kernel argument or the result of another such op.  Loop-invariant code motion inside loops is
the passes' business (LICM); this only lifts the per-launch prologue out of the program loop.
"""

from __future__ import annotations

from ...ir.core import Function, Op
from ...ir.ops import CONTROL, PURE

PROGRAM_VARIANT = frozenset({"program_id"})


def launch_invariant_ops(kernel: Function) -> set[Op]:
    """The top-level ops of ``kernel`` that can run once per launch."""
    invariant = {id(arg) for arg in kernel.args}
    hoisted: set[Op] = set()
    for op in kernel.body.ops:
        if not _movable(op):
            continue
        if all(id(v) in invariant for v in [*op.operands, *free_values(op)]):
            hoisted.add(op)
            invariant.update(id(r) for r in op.results)
    return hoisted


def _movable(op: Op) -> bool:
    opdef = op.opdef
    return opdef.has(PURE) and not opdef.has(CONTROL) and op.name not in PROGRAM_VARIANT


def free_values(op: Op) -> list:
    """Values the regions of ``op`` use but do not define (captured from outside the op)."""
    if not op.regions:
        return []
    defined = set()
    for region in op.regions:
        defined.update(id(a) for a in region.args)
        for inner in region.walk():
            defined.update(id(r) for r in inner.results)
            for nested in inner.regions:
                defined.update(id(a) for a in nested.args)
    return [v for region in op.regions for inner in region.walk() for v in inner.operands if id(v) not in defined]
