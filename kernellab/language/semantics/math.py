"""Math functions (``tl.exp``, ``tl.fma``, ``tl.umulhi``, ``tl.clamp``...).

As in Triton (following libdevice), the transcendental functions take fp32 or fp64 tensors
only: a kernel casts half types explicitly (``tl.exp(x.to(tl.float32))``).  Python numbers are
fine: they become fp32 constants.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as T
from ...ir.mathfns import MATH, MathFunction
from ..core import tensor
from .arith import ArithMixin, nan_mode
from .base import SemanticError


def check_dtypes(name: str, allowed: tuple, *values: Any) -> None:
    """Every tensor among ``values`` has one of the ``allowed`` element types."""
    for value in values:
        if isinstance(value, tensor) and value.dtype not in allowed:
            names = ", ".join(t.name for t in allowed)
            hint = " (cast first, e.g. x.to(tl.float32))" if T.f32 in allowed else ""
            raise SemanticError(f"tl.{name} expects {names} tensors, got {value.dtype.name}{hint}")


def _match(fn: MathFunction, args: tuple, tensors: list[tensor]) -> tuple[str, ...] | None:
    """The first signature whose types the tensor arguments have (Python numbers fit any)."""
    given = [t.dtype.ir if isinstance(a, tensor) else None for a, t in zip(args, tensors)]
    for signature in fn.signatures:
        if all(g is None or g == want for g, want in zip(given, signature)):
            return signature
    return None


def _no_signature(fn: MathFunction, args: tuple, tensors: list[tensor]) -> SemanticError:
    if fn.arity == 1:
        allowed = tuple(T.by_ir(sig[0]) for sig in fn.signatures)
        check_dtypes(fn.name if "math" in fn.modules else f"extra.libdevice.{fn.name}", allowed, *args)
    shown = ", ".join("(" + ", ".join(T.by_ir(ir).name for ir in sig) + ")" for sig in fn.signatures)
    got = ", ".join(t.dtype.name for t in tensors)
    return SemanticError(f"{fn.name} takes {shown}, got ({got})")


class MathMixin(ArithMixin):
    def math_function(self, name: str, *args: Any) -> tensor:
        """One function of :data:`kernellab.ir.mathfns.MATH` (``exp``, ``tanh``, ``popc``...)
        elementwise.  Tensors must match one of its signatures, exactly or once promoted together
        (as in Triton, a half type alone is cast first by the kernel); Python numbers take the
        signature's type."""
        fn = MATH[name]
        tensors = [self.to_tensor(a) for a in args]
        chosen = _match(fn, args, tensors)
        if chosen is None and fn.arity > 1:  # as Triton's extern calls: promote the operands together, then
            tensors = self._promoted_together(tensors)  # look again (pow(fp32, fp16) is pow(fp32, fp32))
            chosen = _match(fn, tuple(tensors), tensors)
        if chosen is None:
            raise _no_signature(fn, args, tensors)
        converted = [t if t.dtype.ir == ty else self.cast(t, T.by_ir(ty)) for t, ty in zip(tensors, chosen)]
        converted = list(self.broadcast_all(*converted))
        result = T.by_ir(fn.signatures[chosen])
        return self.make(name, converted, T.with_shape(result, T.shape_of(converted[0].type)))

    def _promoted_together(self, tensors: list[tensor]) -> list[tensor]:
        """Every operand converted to the type arithmetic on all of them computes in."""
        common = tensors[0]
        for item in tensors[1:]:
            _, common = self.binary_operands(item, common)
        return [self.binary_operands(item, common)[0] for item in tensors]

    def fdiv(self, a: Any, b: Any, ieee_rounding: bool = False) -> tensor:
        """Float division; without ``ieee_rounding`` a backend may divide approximately."""
        a, b = self.to_tensor(a), self.to_tensor(b)
        if not (a.dtype.is_floating() and b.dtype.is_floating()):
            raise SemanticError(f"tl.fdiv needs floating-point operands, got {a.dtype.name} and {b.dtype.name}")
        a, b = self.binary_operands(a, b)
        return self.make("fdiv", [a, b], a.type, {"ieee_rounding": bool(ieee_rounding)})

    def div_rn(self, a: Any, b: Any, name: str = "div_rn", allowed: tuple = (T.f32,)) -> tensor:
        """IEEE division rounded to nearest (fp32; libdevice's div_rn also fp64)."""
        check_dtypes(name, allowed, a, b)
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
