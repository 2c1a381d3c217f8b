"""The libdevice names kernellab implements, as aliases of ``tl.math`` builtins."""

from ..math import abs as fabs
from ..math import ceil, cos, erf, exp, exp2, floor, fma, log, log2, rsqrt, sin, sqrt, sqrt_rn
from ..math import div_rn as div_rn

__all__ = ["fabs", "ceil", "cos", "erf", "exp", "exp2", "floor", "fma", "log", "log2", "rsqrt", "sin", "sqrt",
           "sqrt_rn", "div_rn"]
