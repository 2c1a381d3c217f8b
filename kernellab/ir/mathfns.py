"""Math functions (``tl.math`` and ``libdevice``), each declared once, here.

A :class:`MathFunction` is the whole definition of one elementwise math function:

- ``signatures``: argument types -> result type, in Tile IR spellings (Triton's libdevice
  table: ``popc`` takes i32 or i64 and returns i32);
- ``reference``: a numpy function, the spec; the interpreter runs it and constant folding uses
  it (the result is converted to the signature's result type);
- how an LLVM target computes it (``backends/llvm/math.py``): ``intrinsic`` (the overloaded
  LLVM intrinsic ``llvm.<intrinsic>.<type>``), ``c_name`` (the C math library's function:
  libm's ``tanhf``/``tanh`` on the host, ``__nv_tanhf``/``__nv_tanh`` from libdevice on CUDA)
  or ``expand=True`` (shared LLVM code in ``backends/llvm/math.py`` under the function's
  name).  A target's math hook may compute any of them its own way (the host's vectorizable
  ``exp``, NVVM's approximate ``ex2``);
- ``modules``: where users find it (``tl.math.<name>`` / ``tl.<name>`` and/or
  ``tl.extra.libdevice.<name>``).

``ir/ops/math.py`` declares one Tile IR op per function from this table, the language builds
one builtin per function from it, and both LLVM backends lower every function through the
shared code: adding a function is one :func:`math_function` call.  This module imports only
numpy (it is read when ``kernellab.language`` is imported).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

FLOAT = (("f32",), ("f64",))
FLOAT_32 = (("f32",),)


@dataclass(frozen=True)
class MathFunction:
    name: str
    signatures: dict[tuple[str, ...], str]
    reference: Callable
    doc: str
    intrinsic: str | None = None
    c_name: str | None = None
    expand: bool = False
    modules: tuple[str, ...] = ("libdevice",)

    @property
    def arity(self) -> int:
        return len(next(iter(self.signatures)))


MATH: dict[str, MathFunction] = {}


def math_function(name: str, reference: Callable, doc: str, *, signatures=FLOAT, result: str | None = None,
                  intrinsic: str | None = None, c_name: str | None = None, expand: bool = False,
                  modules: tuple[str, ...] = ("libdevice",)) -> MathFunction:
    """Declare one math function.  ``signatures`` is a dict (argument types -> result type) or
    a tuple of argument-type tuples whose result is ``result`` (default: the first argument's
    type).  Exactly one of ``intrinsic``, ``c_name`` or ``expand`` says how LLVM targets
    compute it (``intrinsic`` may come with a ``c_name`` for targets without that intrinsic)."""
    if name in MATH:
        raise ValueError(f"math function {name} is declared twice")
    if not (intrinsic or c_name or expand):
        raise ValueError(f"math function {name} needs an intrinsic, a c_name or expand=True")
    if not isinstance(signatures, dict):
        signatures = {args: result or args[0] for args in signatures}
    fn = MathFunction(name, dict(signatures), reference, doc, intrinsic, c_name, expand, modules)
    MATH[name] = fn
    return fn


# ---- references that numpy does not spell directly ------------------------------------------------

def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


_erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    return np.asarray(_erf_ufunc(np.asarray(x, np.float64)), np.float64)


def _pow(x, y):
    return np.power(x, np.asarray(y).astype(np.asarray(x).dtype))


def _popc(x):
    """Set bits of the two's complement pattern (numpy counts a signed value's magnitude)."""
    x = np.asarray(x)
    return np.bitwise_count(x.view(np.dtype(f"u{x.dtype.itemsize}")))


def _clz(x):
    """Leading zero bits of the two's complement pattern (32 for 0 in i32, 64 in i64)."""
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    count = np.full(unsigned.shape, bits, np.int64)
    for shift in range(bits):
        set_here = (unsigned >> np.uint64(shift)) & np.uint64(1) == 1
        count = np.where(set_here, bits - 1 - shift, count)
    return count


# ---- tl.math (and libdevice) ------------------------------------------------------------------

_TL = ("math", "libdevice")
math_function("exp", np.exp, "e ** x", intrinsic="exp", c_name="exp", modules=_TL)
math_function("exp2", np.exp2, "2 ** x", intrinsic="exp2", c_name="exp2", modules=_TL)
math_function("log", np.log, "the natural logarithm", intrinsic="log", c_name="log", modules=_TL)
math_function("log2", np.log2, "the base-2 logarithm", intrinsic="log2", c_name="log2", modules=_TL)
math_function("sin", np.sin, "the sine", intrinsic="sin", c_name="sin", modules=_TL)
math_function("cos", np.cos, "the cosine", intrinsic="cos", c_name="cos", modules=_TL)
math_function("sqrt", np.sqrt, "the square root (may be approximate)", intrinsic="sqrt", c_name="sqrt",
              modules=_TL)
math_function("sqrt_rn", np.sqrt, "the square root rounded to nearest (IEEE)", signatures=FLOAT_32,
              intrinsic="sqrt", modules=_TL)
math_function("rsqrt", _rsqrt, "the reciprocal square root", c_name="rsqrt", modules=_TL)
math_function("erf", _erf, "the error function", c_name="erf", modules=_TL)
math_function("floor", np.floor, "the largest integral value <= x", intrinsic="floor", modules=_TL)
math_function("ceil", np.ceil, "the smallest integral value >= x", intrinsic="ceil", modules=_TL)

# ---- libdevice ----------------------------------------------------------------------------------

math_function("tanh", np.tanh, "the hyperbolic tangent", c_name="tanh")
math_function("expm1", np.expm1, "e ** x - 1, accurate near 0", c_name="expm1")
math_function("log1p", np.log1p, "log(1 + x), accurate near 0", c_name="log1p")
math_function("pow", _pow, "x ** y (an i32 exponent is exact for |y| < 2**24)",
              signatures=(("f32", "f32"), ("f64", "f64"), ("f32", "i32"), ("f64", "i32")), c_name="pow")
math_function("rint", np.rint, "x rounded to the nearest integer, ties to even", intrinsic="rint")
math_function("isnan", np.isnan, "whether x is NaN", result="i1", expand=True)
math_function("popc", _popc, "the number of set bits", signatures=(("i32",), ("i64",)), result="i32",
              intrinsic="ctpop")
math_function("clz", _clz, "the number of leading zero bits (the width for 0)", signatures=(("i32",), ("i64",)),
              result="i32", expand=True)


def in_module(module: str) -> list[MathFunction]:
    """The functions users find in ``module`` (``"math"`` or ``"libdevice"``)."""
    return [fn for fn in MATH.values() if module in fn.modules]
