"""What every semantics module shares: the builder, the compile options, the error type and the
hook through which the frontend runs user functions (``combine_fn`` of ``tl.reduce``...)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...ir.builder import Builder
from ...ir.types import PointerType, ScalarType, TileType, Type
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
    # Triton's names of the fp8 dtypes the target takes (None: every one), and those tl.dot warns about
    fp8_types: tuple[str, ...] | None = None
    deprecated_fp8_dot_types: frozenset[str] = frozenset()
    min_dot_size_8bit: tuple[int, int, int] | None = None  # on 8-bit operands (None: min_dot_size)


def writable(ptr: tensor) -> tensor:
    """``ptr`` (a pointer tensor) for a store or an atomic, unless it points to constant data
    (``tl.const``): Triton's error."""
    if ptr.dtype.is_const():
        raise SemanticError("Cannot store to a constant pointer",
                            hint=f"{ptr.dtype} comes from a parameter annotated tl.const")
    return ptr


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
        if self.options.fp8_types is not None:
            builder.type_check = self.check_target_type

    def check_target_type(self, ty: Type) -> None:
        """Refuse a value of an fp8 dtype the target lacks, where the kernel first makes one (a
        parameter, a cast, a constant...), in Triton's words."""
        element = ty
        while isinstance(element, (TileType, PointerType)):
            element = element.element_ty
        supported = self.options.fp8_types
        if isinstance(element, ScalarType) and element.is_fp8() and element.name not in supported:
            raise SemanticError(f"type {element.name} not supported in this architecture. The supported fp8 dtypes "
                                f"are {supported}", hint="cast to one of them, or to fp16/bf16/fp32")


__all__ = ["SemanticBase", "SemanticError", "SemanticOptions", "DOT_INPUT_PRECISIONS", "writable"]
