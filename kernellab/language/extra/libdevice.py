"""``tl.extra.libdevice``: every function declared in ``kernellab/ir/mathfns.py`` (the ``tl.math``
ones are the same objects), plus libdevice's names for ``tl.math`` builtins (``fabs``,
``fma``, ``div_rn``)."""

from ...ir.mathfns import in_module
from .. import math as _math
from ..math import abs as fabs
from ..math import div_rn, fma

for _fn in in_module("libdevice"):
    globals()[_fn.name] = getattr(_math, _fn.name, None) or _math.math_builtin(_fn)

__all__ = [fn.name for fn in in_module("libdevice")] + ["fabs", "fma", "div_rn"]
