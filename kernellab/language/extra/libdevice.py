"""``tl.extra.libdevice`` (and ``tl.extra.cuda.libdevice``): Triton 3.6's libdevice, every
function declared once in ``kernellab/ir/mathfns/`` (the ``tl.math`` ones are the same
objects), plus libdevice's names for ``tl.math`` builtins (``abs``, ``fma``, ``div_rn``) and
kernellab's ``fabs``.  Every function runs on every target: libdevice on CUDA, the host's libm
or shared LLVM code on the CPU, the numpy reference in the interpreter."""

from ...ir.mathfns import in_module
from .. import math as _math
from ..math import abs, div_rn, fma  # noqa: A004  (libdevice's name)

fabs = abs

for _fn in in_module("libdevice"):
    globals()[_fn.name] = getattr(_math, _fn.name, None) or _math.math_builtin(_fn)

__all__ = [fn.name for fn in in_module("libdevice")] + ["abs", "fabs", "fma", "div_rn"]
