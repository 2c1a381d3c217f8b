"""``tl.math``: elementwise math.

``exp``, ``exp2``, ``log``, ``log2``, ``sin``, ``cos``, ``sqrt``, ``rsqrt``, ``erf``, ``floor``
and ``ceil`` take fp32 or fp64 tensors (``sqrt_rn`` and ``div_rn`` fp32 only), as in Triton:
cast half types first.  ``cdiv``, ``sigmoid`` and ``softmax`` are built from other builtins.
"""

from __future__ import annotations

from typing import Any

from . import reductions
from .core import PropagateNan, builtin, compile_time, member, semantic, tensor, unwrap


def _unary(name: str, doc: str):
    def function(x: Any) -> tensor:
        return semantic().unary_math(name, unwrap(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The elementwise {doc} of ``x``."
    return member(builtin(function))


exp = _unary("exp", "exponential")
exp2 = _unary("exp2", "base-2 exponential")
log = _unary("log", "natural logarithm")
log2 = _unary("log2", "base-2 logarithm")
sin = _unary("sin", "sine")
cos = _unary("cos", "cosine")
sqrt = _unary("sqrt", "square root (may be approximate)")
sqrt_rn = _unary("sqrt_rn", "square root rounded to nearest (IEEE)")
rsqrt = _unary("rsqrt", "reciprocal square root")
erf = _unary("erf", "error function")
floor = _unary("floor", "floor")
ceil = _unary("ceil", "ceiling")


@member
@builtin
def abs(x: Any) -> tensor:
    """``|x|`` (unsigned integers unchanged; signed integers wrap at the minimum)."""
    return semantic().abs(unwrap(x))


@builtin
def fdiv(x: Any, y: Any, ieee_rounding: Any = False) -> tensor:
    """Float division; without ``ieee_rounding`` a backend may use a faster, approximate divide."""
    return semantic().fdiv(unwrap(x), unwrap(y), bool(compile_time(ieee_rounding, "ieee_rounding")))


@builtin
def div_rn(x: Any, y: Any) -> tensor:
    """fp32 division rounded to nearest (IEEE)."""
    return semantic().div_rn(unwrap(x), unwrap(y))


@builtin
def fma(x: Any, y: Any, z: Any) -> tensor:
    """``x * y + z`` with a single rounding."""
    return semantic().fma(unwrap(x), unwrap(y), unwrap(z))


@builtin
def umulhi(x: Any, y: Any) -> tensor:
    """The most significant 32 (or 64) bits of the 64-bit (or 128-bit) product of two integers."""
    return semantic().umulhi(unwrap(x), unwrap(y))


@builtin
def maximum(x: Any, y: Any, propagate_nan: Any = PropagateNan.NONE) -> tensor:
    """The elementwise maximum (bf16 computes in fp32); with ``PropagateNan.ALL`` a NaN wins."""
    return semantic().maximum(unwrap(x), unwrap(y), compile_time(propagate_nan, "propagate_nan"))


@builtin
def minimum(x: Any, y: Any, propagate_nan: Any = PropagateNan.NONE) -> tensor:
    """The elementwise minimum (bf16 computes in fp32); with ``PropagateNan.ALL`` a NaN wins."""
    return semantic().minimum(unwrap(x), unwrap(y), compile_time(propagate_nan, "propagate_nan"))


@builtin
def clamp(x: Any, min: Any, max: Any, propagate_nan: Any = PropagateNan.NONE) -> tensor:
    """``x`` clamped to ``[min, max]`` (floats); with ``PropagateNan.ALL`` a NaN ``x`` stays NaN."""
    return semantic().clamp(unwrap(x), unwrap(min), unwrap(max), compile_time(propagate_nan, "propagate_nan"))


@member
@builtin
def cdiv(x: Any, div: Any) -> Any:
    """``ceil(x / div)`` for integers: ``(x + div - 1) // div``."""
    return (x + div - 1) // div


@member
@builtin
def sigmoid(x: Any) -> tensor:
    """``1 / (1 + exp(-x))``."""
    return 1 / (1 + exp(-semantic().to_tensor(x)))


@member
@builtin
def softmax(x: Any, dim: Any = None, keep_dims: Any = False, ieee_rounding: Any = False) -> tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``dim`` (default 0)."""
    dim = compile_time(dim, "softmax's dim")
    dim = 0 if dim is None else dim
    z = x - reductions.max(x, dim, keep_dims=keep_dims)
    num = exp(z)
    den = reductions.sum(num, dim, keep_dims=keep_dims)
    return fdiv(num, den, ieee_rounding)


__all__ = ["exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "sqrt_rn", "rsqrt", "erf", "floor", "ceil", "abs",
           "fdiv", "div_rn", "fma", "umulhi", "maximum", "minimum", "clamp", "cdiv", "sigmoid", "softmax"]
