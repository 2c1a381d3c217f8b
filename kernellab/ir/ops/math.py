"""One Tile IR op per math function of :data:`kernellab.ir.mathfns.MATH` (``exp``, ``tanh``,
``popc``...): operands ``x`` (``y``, ``z``), the function's signatures as the verifier, its
numpy reference as the op's reference.  Half-precision operands are accepted wherever f32 is
(computed in f32 and rounded back); the language casts them before it builds these ops.
"""

from __future__ import annotations

import numpy as np

from ..mathfns import MATH, MathFunction
from ..types import element_of
from .checks import require, same_shape
from .registry import ELEMENTWISE, PURE, declare, numpy_dtype

_OPERANDS = ("x", "y", "z", "w")
_COMPUTED_IN_F32 = {"f16": "f32", "bf16": "f32"}


def signature_result(fn: MathFunction, operand_irs: tuple[str, ...]) -> str | None:
    """The result type's spelling for operands of ``operand_irs`` (None if no signature fits)."""
    key = tuple(_COMPUTED_IN_F32.get(ir, ir) for ir in operand_irs)
    result = fn.signatures.get(key)
    if result is None:
        return None
    return operand_irs[0] if result == key[0] else result


def _verifier(fn: MathFunction):
    def verify(op) -> None:
        same_shape(op)
        operand_irs = tuple(element_of(v.type).ir for v in op.operands)
        result = signature_result(fn, operand_irs)
        allowed = ", ".join("(" + ", ".join(args) + ")" for args in fn.signatures)
        require(result is not None, f"{fn.name} takes {allowed}, got ({', '.join(operand_irs)})", op)
        require(element_of(op.result.type).ir == result,
                f"{fn.name} of ({', '.join(operand_irs)}) returns {result}, not {element_of(op.result.type).ir}", op)
    return verify


def _reference(fn: MathFunction):
    """The numpy reference evaluated at f32 or wider precision, returned in the result type."""
    def run(*args, result_types):
        target = numpy_dtype(element_of(result_types[0]))
        wide = [np.asarray(a, np.float32) if np.asarray(a).dtype.kind == "f" and np.asarray(a).itemsize < 4
                else np.asarray(a) for a in args]
        with np.errstate(all="ignore"):
            out = np.asarray(fn.reference(*wide)).astype(target)
        return out if np.ndim(args[0]) else out[()]
    run.__name__ = fn.name
    return run


for _fn in MATH.values():
    declare(_fn.name, operands=list(_OPERANDS[:_fn.arity]), traits=(PURE, ELEMENTWISE), verify=_verifier(_fn),
            reference=_reference(_fn), wants_types=True, doc=_fn.doc)
