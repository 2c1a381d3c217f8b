"""The semantics layer: typing rules and IR construction for every language operation.

``Semantic`` is assembled from one mixin per concept; the frontend creates one per
compilation and activates it (``kernellab.language.core.activate``).
"""

from .arith import ArithMixin
from .base import SemanticBase, SemanticError, SemanticOptions
from .typing import TypingMixin, computation_type, integer_promote, python_scalar_type


class Semantic(ArithMixin):
    """Every language operation, typed and lowered to Tile IR through ``self.builder``."""


__all__ = [
    "Semantic", "SemanticBase", "SemanticError", "SemanticOptions", "TypingMixin", "computation_type",
    "integer_promote", "python_scalar_type",
]
