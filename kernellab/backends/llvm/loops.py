"""LLVM loop metadata from a ``for``/``while`` op's hints (both LLVM backends).

The hints become properties of a distinct, self-referencing loop id on the loop's latch branch
(``br label %header, !llvm.loop !7`` with ``!7 = distinct !{!7, !8}``), which LLVM's passes read:

* ``disable_licm`` -> ``!{!"llvm.licm.disable"}``: LLVM's LICM leaves the loop's invariant code
  where it is (Triton's ``disable_licm``; kernellab's own LICM pass honours the attribute too);
* ``loop_unroll_factor`` N >= 2 -> ``!{!"llvm.loop.unroll.count", i32 N}``: the loop is unrolled N
  times (with a remainder loop when the trip count is not a multiple).  Below 2 nothing is asked,
  as Triton's unroller does nothing then.
"""

from __future__ import annotations

import llvmlite.ir as ir

from ...ir.core import Op


class _LoopID(ir.values.MDValue):
    """``distinct !{!self, properties...}``: what ``!llvm.loop`` must name."""

    def descr(self, buf: list) -> None:
        refs = ", ".join([self.get_reference()] + [p.get_reference() for p in self.operands])
        buf += (f"distinct !{{ {refs} }}", "\n")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def loop_properties(module: ir.Module, op: Op) -> list[ir.values.MDValue]:
    """The metadata properties a loop op's hints ask for (empty: none)."""
    properties = []
    if op.attrs.get("disable_licm"):
        properties.append(module.add_metadata([ir.MetaDataString(module, "llvm.licm.disable")]))
    factor = int(op.attrs.get("loop_unroll_factor", -1))
    if factor >= 2:
        properties.append(module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.count"),
                                               ir.Constant(ir.IntType(32), factor)]))
    return properties


def annotate_latch(branch: ir.Instruction, op: Op) -> None:
    """Attach ``op``'s loop hints to ``branch``, the back edge of the loop lowered from ``op``."""
    module = branch.module
    properties = loop_properties(module, op)
    if properties:
        branch.set_metadata("llvm.loop", _LoopID(module, properties, name=str(len(module.metadata))))


__all__ = ["annotate_latch", "loop_properties"]
