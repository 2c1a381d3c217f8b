"""Every math function of :data:`kernellab.ir.mathfns.MATH`, lowered by one shared function.

For a function with float results, half operands are computed in f32 and rounded back.  The
value comes from, in order: the target's ``math_override`` (its own code for that function),
the LLVM intrinsic (where the target lowers it to instructions), the target's math library
(``library_call``: libm's ``c_name`` on the host, libdevice's ``nv`` symbol on CUDA), else
the shared expansion (``EXPANSIONS``: ``math_bits.py``, ``math_rounding.py``,
``math_special.py``, for functions declared ``expand=True``).  An integer result of another
width (``popc`` of an i64 is an i32, ``isnan``'s i1 is an i32) is truncated or extended.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.core import Op
from ...ir.mathfns import MATH, MathFunction
from .scalar import is_float, operand_type, result_type, scalar
from .target import F32, F64, ScalarTarget, float_bits

Signature = tuple[str, ...]
Expansion = Callable[[ScalarTarget, list, Signature], ll.Value]
EXPANSIONS: dict[str, Expansion] = {}
_COMPUTED_IN_F32 = {"f16": "f32", "bf16": "f32"}


def expansion(*names: str) -> Callable[[Expansion], Expansion]:
    def register(fn: Expansion) -> Expansion:
        for name in names:
            EXPANSIONS[name] = fn
        return fn
    return register


def signature_of(values: list) -> Signature:
    """The Tile IR spelling of LLVM scalar values (integers read as signed)."""
    names = {"float": "f32", "double": "f64"}
    return tuple(names.get(str(v.type)) or f"i{v.type.width}" for v in values)


def call_math(t: ScalarTarget, name: str, values: list, sig: Signature | None = None) -> ll.Value:
    """Math function ``name`` of ``values`` as the target computes it (for expansions built
    from other functions: erfinv from erf and erfc, sinpi from sin)."""
    fn = MATH[name]
    sig = sig or signature_of(values)
    ret = _llvm_result(t, fn, sig, values)
    return _compute(t, fn, values, sig, ret)


def _llvm_result(t: ScalarTarget, fn: MathFunction, sig: Signature, values: list) -> ll.Type:
    result = fn.signatures[sig]
    if result == sig[0]:
        return values[0].type
    return {"f32": F32, "f64": F64}.get(result) or ll.IntType(int(result[1:]))


def _compute(t: ScalarTarget, fn: MathFunction, values: list, sig: Signature, ret: ll.Type) -> ll.Value:
    found = t.math_override(fn.name, values)
    if found is not None:
        return found
    if fn.intrinsic and t.lowers_intrinsic(fn.intrinsic):
        return t.intrinsic(fn.intrinsic, values)
    found = t.library_call(fn, sig, values, ret)
    if found is not None:
        return found
    if fn.expand:
        return EXPANSIONS[fn.name](t, values, sig)
    if fn.intrinsic:
        return t.intrinsic(fn.intrinsic, values)
    raise CompilationError(f"{fn.name}({', '.join(sig)}) cannot be computed on this target")


def _is_half(ty: ll.Type) -> bool:
    return not isinstance(ty, ll.IntType) and float_bits(ty) == 16


def lower_math(t: ScalarTarget, op: Op, values: list) -> ll.Value:
    """One element of math function ``op.name``."""
    fn = MATH[op.name]
    types = [operand_type(op, i) for i in range(len(values))]
    values = [t.to_compute(v, element_type) for v, element_type in zip(values, types)]
    half = next((v.type for v in values if _is_half(v.type)), None)
    if half is not None:
        values = [t.b.fpext(v, F32) if _is_half(v.type) else v for v in values]
    sig = tuple(_COMPUTED_IN_F32.get(ty.ir, ty.ir) for ty in types)
    out = _compute(t, fn, values, sig, _llvm_result(t, fn, sig, values))
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

from . import math_bits, math_rounding, math_special  # noqa: E402,F401  (the expansions)
