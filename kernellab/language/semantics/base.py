"""What every semantics module shares: the builder, the compile options, the error type and the
hook through which the frontend runs user functions (``combine_fn`` of ``tl.reduce``...)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir.builder import Builder
from ..core import DESCRIPTOR_REDUCE_TYPES, DOT_INPUT_PRECISIONS, SemanticError, tensor


@dataclass
class SemanticOptions:
    """Options the semantics consult (set from the compile options and the target's
    capabilities, ``kernellab.backends.capabilities``: the language never names a target)."""

    debug: bool = False  # device_assert is emitted only when true
    sanitize_overflow: bool = False
    target: str = "interpret"  # for messages
    extra: dict[str, Any] = field(default_factory=dict)
    min_dot_size: tuple[int, int, int] = (1, 1, 1)  # the smallest (M, N, K) tl.dot accepts
    dot_input_precisions: tuple[str, ...] = DOT_INPUT_PRECISIONS
    default_dot_input_precision: str = "ieee"  # tl.dot on fp32 (tf32 tensor cores on CUDA)
    gpu: bool = False  # the target is an accelerator (tl.target_info: its arch is a compute capability)
    triton_backend: str = "cpu"  # Triton's GPUTarget.backend for the target (tl.target_info)
    warp_size: int = 1
    # desc.atomic_<kind>'s element types per kind (the target's, Capabilities.descriptor_reduce_types)
    descriptor_reduce_types: dict[str, frozenset] = field(default_factory=lambda: dict(DESCRIPTOR_REDUCE_TYPES))


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
