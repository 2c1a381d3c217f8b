"""Math functions (``tl.exp``, ``tl.fma``, ``tl.umulhi``, ``tl.clamp``...).

As in Triton (following libdevice), the transcendental functions take fp32 or fp64 tensors
only: a kernel casts half types explicitly (``tl.exp(x.to(tl.float32))``).  Python numbers are
fine: they become fp32 constants.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ..core import tensor
from .arith import ArithMixin, nan_mode
from .base import SemanticError

FLOAT_MATH = (T.f32, T.f64)
# name -> the types it accepts
UNARY_MATH = {
    "exp": FLOAT_MATH, "exp2": FLOAT_MATH, "log": FLOAT_MATH, "log2": FLOAT_MATH, "cos": FLOAT_MATH,
    "sin": FLOAT_MATH, "sqrt": FLOAT_MATH, "rsqrt": FLOAT_MATH, "erf": FLOAT_MATH, "floor": FLOAT_MATH,
    "ceil": FLOAT_MATH, "sqrt_rn": (T.f32,),
}


def check_dtypes(name: str, allowed: tuple, *values: Any) -> None:
    """Every tensor among ``values`` has one of the ``allowed`` element types."""
    for value in values:
        if isinstance(value, tensor) and value.dtype not in allowed:
            names = ", ".join(t.name for t in allowed)
            hint = " (cast first, e.g. x.to(tl.float32))" if T.f32 in allowed else ""
            raise SemanticError(f"tl.{name} expects {names} tensors, got {value.dtype.name}{hint}")


class MathMixin(ArithMixin):
    def unary_math(self, name: str, x: Any) -> tensor:
        """One of :data:`UNARY_MATH` (``exp``, ``sqrt``...) elementwise."""
        check_dtypes(name, UNARY_MATH[name], x)
        x = self.to_tensor(x)
        if x.dtype not in UNARY_MATH[name]:
            x = self.cast(x, T.f32)
        return self.make(name, [x], x.type)

    def fdiv(self, a: Any, b: Any, ieee_rounding: bool = False) -> tensor:
        """Float division; without ``ieee_rounding`` a backend may divide approximately."""
        a, b = self.to_tensor(a), self.to_tensor(b)
        if not (a.dtype.is_floating() and b.dtype.is_floating()):
            raise SemanticError(f"tl.fdiv needs floating-point operands, got {a.dtype.name} and {b.dtype.name}")
        a, b = self.binary_operands(a, b)
        return self.make("fdiv", [a, b], a.type, {"ieee_rounding": bool(ieee_rounding)})

    def div_rn(self, a: Any, b: Any) -> tensor:
        """IEEE division rounded to nearest (fp32)."""
        check_dtypes("div_rn", (T.f32,), a, b)
        a, b = self.binary_operands(self.to_tensor(a), self.to_tensor(b))
        return self.make("div_rn", [a, b], a.type)

    def fma(self, a: Any, b: Any, c: Any) -> tensor:
        """``a * b + c`` with one rounding; operands promoted together (floats only)."""
        a, b, c = self.to_tensor(a), self.to_tensor(b), self.to_tensor(c)
        a, b = self.binary_operands(a, b)
        c, a = self.binary_operands(c, a)
        c, b = self.binary_operands(c, b)
        if not a.dtype.is_floating():
            raise SemanticError(f"tl.fma needs floating-point operands, got {a.dtype.name}")
        return self.make("fma", [a, b, c], a.type)

    def umulhi(self, a: Any, b: Any) -> tensor:
        """The high half of the full-width product of two 32- or 64-bit integers."""
        check_dtypes("umulhi", (T.i32, T.i64, T.u32, T.u64), a, b)
        a, b = self.binary_operands(a, b)
        return self.make("umulhi", [a, b], a.type)

    def clamp(self, x: Any, lo: Any, hi: Any, propagate_nan: Any = None) -> tensor:
        """``min(max(x, lo), hi)`` for floats; a NaN ``x`` propagates with PropagateNan.ALL."""
        x, lo, hi = (self.promote_bf16(self.to_tensor(v)) for v in (x, lo, hi))
        lo, hi = self.binary_operands(lo, hi)
        x, lo = self.binary_operands(x, lo)
        x, hi = self.binary_operands(x, hi)
        if not x.dtype.is_floating():
            raise SemanticError(f"tl.clamp supports floating-point tensors only, got {x.dtype.name}; "
                                "use tl.minimum(tl.maximum(x, lo), hi) for integers")
        x, lo, hi = self.broadcast_all(x, lo, hi)
        return self.make("clamp", [x, lo, hi], x.type, {"propagate_nan": nan_mode(propagate_nan)})
