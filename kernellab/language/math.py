"""``tl.math``: elementwise math.

``exp``, ``exp2``, ``log``, ``log2``, ``sin``, ``cos``, ``sqrt``, ``rsqrt``, ``erf``, ``floor``
and ``ceil`` take fp32 or fp64 tensors (``sqrt_rn`` and ``div_rn`` fp32 only, as in Triton;
libdevice's also take fp64):
cast half types first.  They (and every ``libdevice`` function) are functions of the math table,
each declared once in ``kernellab/ir/mathfns/``, whose builtins :func:`math_builtin` makes.
``cdiv``, ``sigmoid`` and ``softmax`` are built from other builtins.

The table itself is not imported here (its ~200 declarations were ~9 ms of every
``import kernellab``): the builtins above need only their names, arities and descriptions,
written in :data:`TABLE` (a test checks them against the table), and the semantics that type a
call load the table when a kernel is compiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir import types as T
from . import reductions
from .core import PropagateNan, builtin, compile_time, member, semantic, tensor, unwrap

if TYPE_CHECKING:
    from ..ir.mathfns import MathFunction

# The math table's functions in tl.math (``in_module("math")`` of ``ir/mathfns``: Triton's
# tl.math list, one argument each) -> their description there.
TABLE = {
    "exp": "e ** x",
    "exp2": "2 ** x",
    "log": "the natural logarithm",
    "log2": "the base-2 logarithm",
    "sin": "the sine",
    "cos": "the cosine",
    "sqrt": "the square root (may be approximate)",
    "rsqrt": "the reciprocal square root",
    "floor": "the largest integral value <= x",
    "ceil": "the smallest integral value >= x",
    "erf": "the error function",
}


def math_builtin(fn: MathFunction):
    """The builtin computing math function ``fn`` (declared once in ``ir/mathfns/``)."""
    return _table_builtin(fn.name, fn.arity, fn.doc)


def _table_builtin(name: str, arity: int, doc: str):
    params = ", ".join(("x", "y", "z", "w")[:arity])

    def function(*args: Any) -> tensor:
        if len(args) != arity:
            raise TypeError(f"{name}({params}) takes {arity} argument(s), got {len(args)}")
        return semantic().math_function(name, *(unwrap(a) for a in args))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{name}({params}): {doc}, elementwise."
    return builtin(function)


for _name, _doc in TABLE.items():
    globals()[_name] = member(_table_builtin(_name, 1, _doc))


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
    """fp32 division rounded to nearest (IEEE); ``libdevice.div_rn`` also takes fp64."""
    return semantic().div_rn(unwrap(x), unwrap(y))


@member
@builtin
def sqrt_rn(x: Any) -> tensor:
    """fp32 square root rounded to nearest (IEEE); ``libdevice.sqrt_rn`` also takes fp64."""
    from .semantics.math import check_dtypes  # the semantics layer loads with the compiler, not with tl

    check_dtypes("sqrt_rn", (T.f32,), x)
    return semantic().math_function("sqrt_rn", unwrap(x))


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
    return 1 / (1 + exp(-semantic().to_tensor(x)))  # noqa: F821  (exp is made from MATH above)


@member
@builtin
def softmax(x: Any, dim: Any = None, keep_dims: Any = False, ieee_rounding: Any = False) -> tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``dim`` (default 0)."""
    dim = compile_time(dim, "softmax's dim")
    dim = 0 if dim is None else dim
    z = x - reductions.max(x, dim, keep_dims=keep_dims)
    num = exp(z)  # noqa: F821
    den = reductions.sum(num, dim, keep_dims=keep_dims)
    return fdiv(num, den, ieee_rounding)


__all__ = [*TABLE, "abs", "fdiv", "div_rn", "sqrt_rn", "fma", "umulhi", "maximum", "minimum", "clamp", "cdiv",
           "sigmoid", "softmax"]
