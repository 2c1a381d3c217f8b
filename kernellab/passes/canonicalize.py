"""Canonicalization: constant folding through the op references, algebraic simplifications and
structural clean-ups, repeated to a fixed point.

* Folding: a ``pure`` op without ``needs_ctx`` or regions whose operands all come from
  ``constant`` ops is evaluated with its numpy reference (``OpDef.bind``); when every result is
  a scalar or a uniform tile (all elements bit-identical) it becomes a ``constant``.  This also
  covers splat/broadcast/reshape/expand_dims of a constant.  Folds that divide by zero are
  left alone (a backend may trap there).
* Identities (:mod:`kernellab.passes.identities`): ``x+0``, ``x-0``, ``x*1``, ``x*0`` (ints),
  ``x/1``, ``x|0``, ``x^0``, shifts by 0, ``select`` with a constant condition or equal
  branches, casts/broadcasts/reshapes to the same type, ``addptr`` with a zero offset.  Float
  identities are only those exact in IEEE arithmetic (``x + -0.0``, ``x - +0.0``).
* ``if`` with a constant condition is replaced by the taken region's ops; a ``for`` that runs
  zero times is replaced by its initial values.
"""

from __future__ import annotations

import numpy as np

from ..ir.core import Block, Function, Op
from ..ir.ops import NEEDS_CTX, PURE, make_value
from ..ir.types import ScalarType, Type, element_of
from .identities import simplify
from .rewrite import Replacements, constant_of, function_pass, is_constant, replace_op

MAX_SWEEPS = 100


@function_pass
def canonicalize(function: Function) -> None:
    """Fold, simplify and clean up every function until nothing changes."""
    _Canonicalizer(function).run()


class _Canonicalizer:
    def __init__(self, function: Function):
        self.function = function
        self.replacements = Replacements()

    def run(self) -> None:
        for _ in range(MAX_SWEEPS):
            if not self.sweep(self.function.body):
                break
        self.replacements.apply(self.function)

    def sweep(self, block: Block) -> bool:
        """One program-order pass over ``block`` and its regions; whether anything changed."""
        changed = False
        for op in list(block.ops):
            if op.parent is not block:
                continue
            self.replacements.update_operands(op)
            if self.rewrite(op):
                changed = True
                continue
            for region in op.regions:
                changed |= self.sweep(region)
        return changed

    def rewrite(self, op: Op) -> bool:
        replacement = simplify(op)
        if replacement is not None:
            replace_op(op, [replacement], self.replacements)
            return True
        if op.name == "if":
            return self.fold_if(op)
        if op.name == "for":
            return self.fold_empty_for(op)
        return fold(op, self.replacements)

    def fold_if(self, op: Op) -> bool:
        condition = constant_of(op.operands[0])
        if condition is None:
            return False
        taken = op.regions[0 if condition else 1]
        block = op.parent
        index = block.ops.index(op)
        *body, terminator = taken.ops
        for inner in body:
            block.insert(index, inner)
            index += 1
        replace_op(op, [self.replacements.resolve(v) for v in terminator.operands], self.replacements)
        return True

    def fold_empty_for(self, op: Op) -> bool:
        bounds = [constant_of(v) for v in op.operands[:3]]
        if any(b is None for b in bounds) or bounds[2] == 0 or len(range(*bounds)) > 0:
            return False
        replace_op(op, op.operand_group("init"), self.replacements)
        return True


def foldable(op: Op) -> bool:
    """Whether ``op`` may be evaluated at compile time (operands aside)."""
    opdef = op.opdef
    return (op.name != "constant" and opdef.has(PURE) and not opdef.has(NEEDS_CTX) and opdef.reference is not None
            and not op.regions and bool(op.results)
            and all(isinstance(element_of(r.type), ScalarType) for r in op.results))


def fold(op: Op, replacements: Replacements) -> bool:
    """Replace ``op`` by constants when its operands are constants and its results uniform."""
    if not foldable(op) or not all(is_constant(v) for v in op.operands):
        return False
    values = [make_value(v.type, constant_of(v)) for v in op.operands]
    try:
        with np.errstate(divide="raise", over="ignore", under="ignore", invalid="ignore"):
            results = op.opdef.bind(op)(*values)
    except (ArithmeticError, ValueError, IndexError, TypeError):
        return False  # the reference cannot evaluate it (e.g. an index out of range): leave it to run time
    scalars = [_uniform_value(r, result.type) for r, result in zip(results, op.results)]
    if any(s is None for s in scalars):
        return False
    block = op.parent
    index = block.ops.index(op)
    constants = []
    for scalar, result in zip(scalars, op.results):
        constant = Op("constant", [], [result.type], {"value": scalar}, loc=op.loc)
        constant.result.name_hint = result.name_hint
        block.insert(index, constant)
        index += 1
        constants.append(constant.result)
    replace_op(op, constants, replacements)
    return True


def _uniform_value(value, ty: Type) -> bool | int | float | None:
    """The Python scalar every element of ``value`` equals bit for bit, else ``None``."""
    array = np.ascontiguousarray(value)
    if array.size == 0:
        return None
    raw = array.reshape(-1).view(np.uint8).reshape(array.size, array.dtype.itemsize)
    if not (raw == raw[0]).all():
        return None
    first = array.reshape(-1)[0]
    element = element_of(ty)
    if element.is_bool():
        return bool(first)
    if element.is_int():
        return int(first)
    return float(first)


__all__ = ["canonicalize", "fold", "foldable"]
