"""What every semantics module shares: the builder, the compile options, the error type and the
hook through which the frontend runs user functions (``combine_fn`` of ``tl.reduce``...)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir.builder import Builder
from ..core import SemanticError, tensor

DOT_INPUT_PRECISIONS = ("tf32", "tf32x3", "ieee")


@dataclass
class SemanticOptions:
    """Options the semantics consult (set from the compile options)."""

    debug: bool = False  # device_assert is emitted only when true
    sanitize_overflow: bool = False
    target: str = "interpret"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_cuda(self) -> bool:
        return self.target.startswith("cuda")

    @property
    def default_dot_input_precision(self) -> str:
        """``tl.dot`` on fp32 uses tf32 tensor cores by default on CUDA, IEEE fp32 elsewhere."""
        return "tf32" if self.is_cuda else "ieee"

    @property
    def min_dot_size(self) -> tuple[int, int, int]:
        """The smallest (M, N, K) ``tl.dot`` accepts: the MMA tile on CUDA, anything elsewhere."""
        return (16, 16, 16) if self.is_cuda else (1, 1, 1)


def _needs_frontend(function: Any, args: list[tensor]) -> tensor | tuple:
    raise SemanticError(f"calling the user function {getattr(function, '__name__', function)!r} here needs the "
                        "frontend (kernellab.frontend installs Semantic.call_function); it is not available")


class SemanticBase:
    """Holds the builder and options; mixins add the operations.

    ``call_function(fn, args) -> tensor | tuple`` runs a user ``@jit`` function on tensors at
    the builder's insertion point (the frontend installs it); it is how ``tl.reduce`` and
    ``tl.associative_scan`` build a user ``combine_fn`` into their region.
    """

    def __init__(self, builder: Builder, options: SemanticOptions | None = None):
        self.builder = builder
        self.options = options or SemanticOptions()
        self.call_function = _needs_frontend


__all__ = ["SemanticBase", "SemanticError", "SemanticOptions", "DOT_INPUT_PRECISIONS"]
