"""``tl.extra.libdevice`` (and ``tl.extra.cuda.libdevice``): Triton 3.6's libdevice, every
function declared once in ``kernellab/ir/mathfns/`` (the ``tl.math`` ones are the same
objects), plus libdevice's names for ``tl.math`` builtins (``abs``, ``fma``, ``div_rn``) and
kernellab's ``fabs``.  Every function runs on every target: libdevice on CUDA, the host's libm
or shared LLVM code on the CPU, the numpy reference in the interpreter.

A function's builtin is made the first time it is read (``import kernellab`` stays as fast as
with a handful of functions); each is made once, so ``libdevice.tanh is libdevice.tanh``."""

from typing import Any

from ...ir.mathfns import MATH, in_module
from .. import math as _math
from ..math import abs, div_rn, fma  # noqa: A004  (libdevice's name)

fabs = abs

__all__ = [fn.name for fn in in_module("libdevice")] + ["abs", "fabs", "fma", "div_rn"]
_FUNCTIONS = {fn.name for fn in in_module("libdevice")}


def __getattr__(name: str) -> Any:
    if name not in _FUNCTIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made = getattr(_math, name, None) or _math.math_builtin(MATH[name])
    globals()[name] = made
    return made


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
