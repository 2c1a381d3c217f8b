"""The semantics layer: typing rules and IR construction for every language operation.

``Semantic`` is assembled from one mixin per concept; the frontend creates one per
compilation and activates it (``kernellab.language.core.activate``).
"""

from .arith import ArithMixin
from .atomics import AtomicMixin
from .base import SemanticBase, SemanticError, SemanticOptions
from .debug import DebugMixin
from .descriptors import DescriptorMixin
from .dot import DotMixin
from .fp8e4b15 import Fp8E4B15Mixin
from .math import MathMixin
from .memory import MemoryMixin
from .reduce import ReduceMixin
from .scaled_dot import ScaledDotMixin
from .shape import ShapeMixin
from .typing import (
    MAX_TILE_NUMEL,
    TypingMixin,
    computation_type,
    integer_promote,
    number_type,
    promotion_kind,
    python_scalar_type,
    validate_shape,
)


class Semantic(Fp8E4B15Mixin, ReduceMixin, DescriptorMixin, MemoryMixin, AtomicMixin, ScaledDotMixin, DebugMixin):
    """Every language operation, typed and lowered to Tile IR through ``self.builder``."""


__all__ = [
    "Semantic", "SemanticBase", "SemanticError", "SemanticOptions", "TypingMixin", "ArithMixin", "MathMixin",
    "ShapeMixin", "ReduceMixin", "MemoryMixin", "DescriptorMixin", "AtomicMixin", "DotMixin", "ScaledDotMixin",
    "DebugMixin", "Fp8E4B15Mixin",
    "computation_type", "integer_promote", "number_type", "promotion_kind", "python_scalar_type", "validate_shape",
    "MAX_TILE_NUMEL",
]
