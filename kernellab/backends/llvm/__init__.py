"""Lowering shared by the LLVM targets (CPU and CUDA): the scalar computation of every
elementwise op (``scalar.py``: arithmetic, comparisons, selection, min/max; ``convert.py``:
casts and bitcasts; ``math.py``: every function of ``ir/mathfns/``, with the shared
expansions in ``math_bits.py``, ``math_rounding.py`` and ``math_special.py``), written once against
the hooks of :class:`~.target.ScalarTarget`.  A backend supplies a target object and maps
``SCALAR_OPS`` over its tiles or layouts; it lowers no elementwise op itself."""

from . import convert, math  # noqa: F401  (registration)
from .scalar import SCALAR_OPS, ScalarLowering
from .target import ScalarTarget

__all__ = ["SCALAR_OPS", "ScalarLowering", "ScalarTarget"]
