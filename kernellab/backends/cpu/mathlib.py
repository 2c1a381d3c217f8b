"""Math functions for the host: LLVM intrinsics, libm calls, and an ``exp`` that vectorizes.

x86 has no exp instruction and LLVM, without a vector math library, turns ``llvm.exp`` into a
scalar ``expf`` call per element, which would make softmax crawl.  :func:`exp2_f32` is plain
arithmetic (range reduction to ``n ln2 + r``, a degree-7 polynomial for ``e**r``, and ``2**n`` built
from exponent bits), so loops using it vectorize.  Accuracy: within 2 ulp of the exact result
over the whole f32 range, including subnormal results, overflow to inf and NaN.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import llvmlite.ir as ll

from .llvm_types import F32, F64, I32

if TYPE_CHECKING:  # pragma: no cover
    from .emitter import Emitter

# e**r - 1 - r = r*r * P(r) on [-ln2/2, ln2/2] (Cephes expf minimax coefficients).
_EXP_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
             5.0000001201e-1)
_LN2_HI = 0.693359375  # ln 2 split so that n * _LN2_HI is exact
_LN2_LO = -2.12194440e-4


def intrinsic(em: Emitter, name: str, ty: ll.Type, arity: int = 1) -> ll.Function:
    """``llvm.<name>.<f32|f64|iN>`` taking ``arity`` values of ``ty``."""
    suffix = {F32: "f32", F64: "f64"}.get(ty, None) or f"i{ty.width}"
    return em.ml.function(f"llvm.{name}.{suffix}", ll.FunctionType(ty, [ty] * arity))


def call_intrinsic(em: Emitter, name: str, values: list[ll.Value]) -> ll.Value:
    ty = values[0].type
    return em.b.call(intrinsic(em, name, ty, len(values)), values)


def _clamp(em: Emitter, x: ll.Value, lo: float, hi: float) -> ll.Value:
    """x limited to [lo, hi] (a NaN becomes lo; callers restore NaNs at the end)."""
    return call_intrinsic(em, "minnum", [call_intrinsic(em, "maxnum", [x, ll.Constant(F32, lo)]),
                                         ll.Constant(F32, hi)])


def _scaled_poly(em: Emitter, n: ll.Value, r: ll.Value) -> ll.Value:
    """e**r * 2**n for an integral f32 ``n`` in [-151, 129] and small ``r``, scaling in two steps
    so that subnormal and overflowing results come out right."""
    b = em.b
    p = ll.Constant(F32, _EXP_POLY[0])
    for c in _EXP_POLY[1:]:
        p = call_intrinsic(em, "fma", [p, r, ll.Constant(F32, c)])
    p = call_intrinsic(em, "fma", [p, b.fmul(r, r), b.fadd(r, ll.Constant(F32, 1.0))])
    n_int = b.fptosi(n, I32)
    half = b.ashr(n_int, ll.Constant(I32, 1))
    rest = b.sub(n_int, half)
    scale1 = b.bitcast(b.shl(b.add(half, ll.Constant(I32, 127)), ll.Constant(I32, 23)), F32)
    scale2 = b.bitcast(b.shl(b.add(rest, ll.Constant(I32, 127)), ll.Constant(I32, 23)), F32)
    return b.fmul(b.fmul(p, scale1), scale2)


def _keep_nan(em: Emitter, x: ll.Value, out: ll.Value) -> ll.Value:
    return em.b.select(em.b.fcmp_unordered("uno", x, x), x, out)


def exp2_f32(em: Emitter, x: ll.Value) -> ll.Value:
    """2**x for an f32 ``x`` in vectorizable arithmetic."""
    clamped = _clamp(em, x, -151.0, 129.0)
    n = call_intrinsic(em, "roundeven", [clamped])
    r = em.b.fmul(em.b.fsub(clamped, n), ll.Constant(F32, math.log(2.0)))
    return _keep_nan(em, x, _scaled_poly(em, n, r))


def exp_f32(em: Emitter, x: ll.Value) -> ll.Value:
    """e**x for an f32 ``x``: x = n ln2 + r (Cody-Waite, two fused steps), e**r * 2**n."""
    b = em.b
    clamped = _clamp(em, x, -104.0, 89.0)
    n = call_intrinsic(em, "roundeven", [b.fmul(clamped, ll.Constant(F32, 1.0 / math.log(2.0)))])
    minus_n = b.fneg(n)
    r = call_intrinsic(em, "fma", [minus_n, ll.Constant(F32, _LN2_HI), clamped])
    r = call_intrinsic(em, "fma", [minus_n, ll.Constant(F32, _LN2_LO), r])
    return _keep_nan(em, x, _scaled_poly(em, n, r))


def call_vector_fma(em: Emitter, a: ll.Value, b: ll.Value, c: ll.Value) -> ll.Value:
    """a * b + c on vectors (one rounding)."""
    vec = a.type
    suffix = f"v{vec.count}{'f32' if vec.element == F32 else 'f64'}"
    fn = em.ml.function(f"llvm.fma.{suffix}", ll.FunctionType(vec, [vec, vec, vec]))
    return em.b.call(fn, [a, b, c])
