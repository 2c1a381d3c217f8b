"""Recognising combine regions that are one known op, so that ``reduce`` and ``scan`` can use a
numpy ufunc (their references look for a ``ufunc`` attribute on the region's callable)."""

from __future__ import annotations

from ...ir.core import Block
from ...ir.types import element_of

_UFUNCS = {"add": "np.add", "mul": "np.multiply", "and": "np.bitwise_and", "or": "np.bitwise_or",
           "xor": "np.bitwise_xor"}
_EXTREMA = {"maximum": ("np.fmax", "np.maximum"), "minimum": ("np.fmin", "np.minimum")}


def combine_ufunc(region: Block) -> str | None:
    """The numpy ufunc (as source text, ``np.add``...) equal to ``region``, or ``None``.

    The region must be ``(a, b) -> yield(op(a, b))`` (or ``op(b, a)``) for one of add, mul,
    maximum, minimum, and, or, xor; maximum/minimum of floats map to ``fmax``/``fmin`` unless
    the op propagates NaN (as their references do)."""
    if len(region.args) != 2 or len(region.ops) != 2:
        return None
    op, terminator = region.ops
    if terminator.name != "yield" or len(op.results) != 1 or list(terminator.operands) != op.results:
        return None
    if len(op.operands) != 2 or {id(v) for v in op.operands} != {id(a) for a in region.args}:
        return None
    if op.name in _UFUNCS:
        return _UFUNCS[op.name]
    if op.name in ("maximum", "minimum"):
        floating = element_of(region.args[0].type).is_floating()
        nan_quiet = floating and op.attrs.get("propagate_nan", "none") != "all"
        quiet, propagating = _EXTREMA[op.name]
        return quiet if nan_quiet else propagating
    return None
