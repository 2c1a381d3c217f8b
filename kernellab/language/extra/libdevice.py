"""``tl.extra.libdevice`` (and ``tl.extra.cuda.libdevice``): Triton 3.6's libdevice, every
function declared once in ``kernellab/ir/mathfns/`` (the ``tl.math`` ones are the same
objects), plus libdevice's names for ``tl.math`` builtins (``abs``, ``fma``), ``div_rn`` (fp32
and fp64, where ``tl.div_rn`` takes fp32 only) and kernellab's ``fabs``.  Every function runs on
every target: libdevice on CUDA, the host's libm or shared LLVM code on the CPU, the numpy
reference in the interpreter.

A function's builtin is made the first time it is read (``import kernellab`` stays as fast as
with a handful of functions); each is made once, so ``libdevice.tanh is libdevice.tanh``."""

from typing import Any

from ...ir import types as T
from ...ir.mathfns import MATH, in_module
from .. import math as _math
from ..core import builtin, semantic, tensor, unwrap
from ..math import abs, fma  # noqa: A004  (libdevice's name)

fabs = abs


@builtin
def div_rn(x: Any, y: Any) -> tensor:
    """Division rounded to nearest (IEEE), fp32 or fp64 (``tl.div_rn`` takes fp32 only)."""
    return semantic().div_rn(unwrap(x), unwrap(y), "extra.libdevice.div_rn", (T.f32, T.f64))


__all__ = [fn.name for fn in in_module("libdevice")] + ["abs", "fabs", "fma", "div_rn"]
_FUNCTIONS = {fn.name for fn in in_module("libdevice")}


def __getattr__(name: str) -> Any:
    if name not in _FUNCTIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    fn = MATH[name]
    made = getattr(_math, name) if "math" in fn.modules else _math.math_builtin(fn)
    globals()[name] = made
    return made


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
