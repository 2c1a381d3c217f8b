"""Every math function of :data:`kernellab.ir.mathfns.MATH`, lowered by one shared function.

For a function with float results, half operands are computed in f32 and rounded back.  The
value comes from, in order: the target's ``math_override`` (its own code for that function),
the shared expansion below (``EXPANSIONS``, for functions declared ``expand=True``), the LLVM
intrinsic (where the target lowers it), else the target's C math library (``c_name``: libm on
the host, libdevice on CUDA).  Integer operands of a float function (``pow``'s i32 exponent)
are converted to the float type first unless the target's override takes them as they are.
An integer result of another width (``popc`` of an i64 is an i32) is truncated or extended.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ll

from ...ir.core import Op
from ...ir.mathfns import MATH, MathFunction
from .scalar import is_float, operand_type, result_type, scalar
from .target import F32, I1, ScalarTarget, float_bits

Expansion = Callable[[ScalarTarget, list], ll.Value]
EXPANSIONS: dict[str, Expansion] = {}


def expansion(name: str) -> Callable[[Expansion], Expansion]:
    def register(fn: Expansion) -> Expansion:
        EXPANSIONS[name] = fn
        return fn
    return register


@expansion("isnan")
def _isnan(t: ScalarTarget, values: list) -> ll.Value:
    return t.b.fcmp_unordered("uno", values[0], values[0])


@expansion("clz")
def _clz(t: ScalarTarget, values: list) -> ll.Value:
    return t.intrinsic("ctlz", [values[0], ll.Constant(I1, 0)])


def _compute(t: ScalarTarget, fn: MathFunction, values: list) -> ll.Value:
    found = t.math_override(fn.name, values)
    if found is not None:
        return found
    if fn.expand:
        return EXPANSIONS[fn.name](t, values)
    if fn.intrinsic and (t.lowers_intrinsic(fn.intrinsic) or not fn.c_name):
        return t.intrinsic(fn.intrinsic, values)
    float_type = next(v.type for v in values if not isinstance(v.type, ll.IntType))
    as_float = [t.b.sitofp(v, float_type) if isinstance(v.type, ll.IntType) else v for v in values]
    return t.library_call(fn.c_name, as_float)


def _is_half(ty: ll.Type) -> bool:
    return not isinstance(ty, ll.IntType) and float_bits(ty) == 16


def lower_math(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """One element of math function ``op.name``."""
    fn = MATH[op.name]
    values = [t.to_compute(v, element_type) for v, element_type in
              zip(values, (operand_type(op, i) for i in range(len(values))))]
    half = next((v.type for v in values if _is_half(v.type)), None)
    if half is not None:
        values = [t.b.fpext(v, F32) if _is_half(v.type) else v for v in values]
    out = _compute(t, fn, values)
    dst = result_type(op)
    if is_float(dst):
        if half is not None:
            out = t.b.fptrunc(out, half)
        return t.from_compute(out, dst)
    target = t.llvm_type(dst)
    if out.type == target or not isinstance(out.type, ll.IntType):
        return out
    return t.b.trunc(out, target) if out.type.width > target.width else t.b.zext(out, target)


for _name in MATH:
    scalar(_name)(lower_math)
