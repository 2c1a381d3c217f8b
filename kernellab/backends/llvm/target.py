"""What the shared scalar lowering asks of an LLVM target: :class:`ScalarTarget`.

A backend makes one per function it lowers (the CPU emitter's ``em.scalars``, the CUDA
function lowering's ``ctx.scalars``).  The shared code (``scalar.py``, ``convert.py``,
``math.py``) computes every elementwise op from these hooks alone:

- storage and compute types: ``llvm_type(ty)`` holds one value of Tile IR type ``ty``;
  ``compute_type(ty)`` is where its arithmetic happens (the host computes f16/bf16 in f32 and
  stores bf16 as i16; the GPU computes halves natively), with ``to_compute`` / ``from_compute``
  between them;
- ``call(name, ret, values)``: declare a function or intrinsic once per module and call it;
- the math library: ``library_call(fn, signature, values, ret)`` (libm ``tanhf`` / libdevice
  ``__nv_tanhf``; None where the library lacks the function), ``lowers_intrinsic(name)``
  (whether ``llvm.<name>`` becomes code on this
  target rather than a missing symbol), and ``math_override(name, values)`` (the target's own
  code for a function: the host's vectorizable ``exp``, NVVM's approximate ``ex2``);
- a few target facts: ``float_flags`` (fast-math flags for add/sub/mul), ``minnum_as_select``,
  ``approx_divide``, ``float_remainder``, ``truncate_float`` (round toward zero),
  ``as_bool`` (a stored boolean as i1) and fp8 conversions.
"""

from __future__ import annotations

import llvmlite.ir as ll

from ...errors import CompilationError
from ...ir.mathfns import MathFunction
from ...ir.types import Type

I1 = ll.IntType(1)
I64 = ll.IntType(64)
F32 = ll.FloatType()
F64 = ll.DoubleType()

_SUFFIX = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}


def type_suffix(ty: ll.Type) -> str:
    """The overloaded-intrinsic suffix of an LLVM scalar type (``f32``, ``i64``...)."""
    return _SUFFIX.get(str(ty)) or f"i{ty.width}"


def float_bits(ty: ll.Type) -> int:
    return {"half": 16, "bfloat": 16, "float": 32, "double": 64}[str(ty)]


class ScalarTarget:
    """The hooks of one LLVM target (see the module docstring); defaults suit any LLVM target."""

    float_flags: tuple[str, ...] = ()
    minnum_as_select = False  # ignore-NaN min/max as compare + select rather than llvm.minnum

    @property
    def b(self) -> ll.IRBuilder:
        raise NotImplementedError

    # ---- types ----
    def llvm_type(self, ty: Type) -> ll.Type:
        raise NotImplementedError

    def compute_type(self, ty: Type) -> ll.Type:
        return self.llvm_type(ty)

    def to_compute(self, value: ll.Value, ty: Type) -> ll.Value:
        return value

    def from_compute(self, value: ll.Value, ty: Type, rounding: str = "rtne") -> ll.Value:
        return value

    # ---- calls ----
    def call(self, name: str, ret: ll.Type, values: list[ll.Value]) -> ll.Value:
        raise NotImplementedError

    def intrinsic(self, name: str, values: list[ll.Value], ret: ll.Type | None = None) -> ll.Value:
        """``llvm.<name>.<type of the first value>`` applied to ``values``."""
        return self.call(f"llvm.{name}.{type_suffix(values[0].type)}", ret or values[0].type, values)

    # ---- the math library ----
    def library_call(self, fn: MathFunction, signature: tuple[str, ...], values: list[ll.Value],
                     ret: ll.Type) -> ll.Value | None:
        """Math function ``fn`` from the target's library, or None if it has no such function."""
        return None

    def lowers_intrinsic(self, name: str) -> bool:
        return True

    def math_override(self, name: str, values: list[ll.Value]) -> ll.Value | None:
        return None

    # ---- target facts ----
    def approx_divide(self, a: ll.Value, b: ll.Value) -> ll.Value:
        return self.b.fdiv(a, b)

    def float_remainder(self, a: ll.Value, b: ll.Value) -> ll.Value:
        return self.b.frem(a, b)

    def as_bool(self, value: ll.Value) -> ll.Value:
        return value

    def truncate_float(self, value: ll.Value, to: ll.Type, rounding: str) -> ll.Value:
        """A float narrowed to LLVM type ``to``: to nearest even, or toward zero (``rtz``: the
        nearest result stepped back by one unit where it overshot a finite value)."""
        b = self.b
        near = b.fptrunc(value, to)
        if rounding != "rtz":
            return near
        back = b.fpext(near, value.type)
        magnitude = self.intrinsic("fabs", [value])
        over = b.fcmp_ordered(">", self.intrinsic("fabs", [back]), magnitude)
        finite = b.fcmp_ordered("<", magnitude, ll.Constant(value.type, float("inf")))
        bits = b.bitcast(near, ll.IntType(float_bits(to)))
        stepped = b.bitcast(b.sub(bits, ll.Constant(bits.type, 1)), to)
        return b.select(b.and_(over, finite), stepped, near)

    def fp8_to_f16(self, value: ll.Value, source: Type) -> ll.Value:
        raise CompilationError(f"{source.ir} values are not supported on this target")

    def f32_to_fp8(self, value: ll.Value, target: Type) -> ll.Value:
        raise CompilationError(f"{target.ir} values are not supported on this target")
