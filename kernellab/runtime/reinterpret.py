"""``kernellab.reinterpret(array, dtype)`` (Triton's ``triton.reinterpret``): the same memory
passed to kernels as elements of another type of the same width (``uint8`` bytes as fp8...)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import interop


class TensorWrapper:
    """An array seen as elements of ``dtype``: kernels get a pointer to ``dtype``."""

    def __init__(self, base: Any, dtype: Any):
        if interop.handler_for(type(base)) is None:
            raise TypeError(f"reinterpret needs an array (numpy, torch, CuPy, DLPack...), not {type(base).__name__}")
        element = interop.element_type(dtype)
        width = interop.to_buffer(base).dtype
        if width is not None and width.primitive_bitwidth != element.primitive_bitwidth:
            raise ValueError(f"reinterpret keeps the element width: {width.name} is {width.primitive_bitwidth} bits, "
                             f"{element.name} {element.primitive_bitwidth}")
        self.base = base
        self.dtype = dtype
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", "cpu")
        self.shape = base.shape

    def __kernellab_buffer__(self) -> interop.Buffer:
        return replace(interop.to_buffer(self.base), dtype=interop.element_type(self.dtype), spec_keys=None)

    def data_ptr(self) -> int:
        return interop.to_buffer(self.base).address

    def stride(self, *args: Any) -> Any:
        return self.base.stride(*args)

    def element_size(self) -> int:
        return interop.element_type(self.dtype).itemsize

    def cpu(self) -> TensorWrapper:
        return TensorWrapper(self.base.cpu(), self.dtype)

    def copy_(self, other: TensorWrapper) -> None:
        self.base.copy_(other.base)

    def clone(self) -> TensorWrapper:
        return TensorWrapper(self.base.clone() if hasattr(self.base, "clone") else self.base.copy(), self.dtype)

    def to(self, device: Any) -> TensorWrapper:
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes: Any) -> TensorWrapper:
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"


def reinterpret(tensor: Any, dtype: Any) -> Any:
    """``tensor`` seen as ``dtype`` (a kernellab/tl, torch or numpy type of the same width);
    reinterpreting a wrapper back to its base's type gives the base."""
    if isinstance(tensor, TensorWrapper):
        base_type = interop.to_buffer(tensor.base).dtype
        return tensor.base if interop.element_type(dtype) is base_type else TensorWrapper(tensor.base, dtype)
    if interop.handler_for(type(tensor)) is None:
        raise TypeError(f"cannot reinterpret a {type(tensor).__name__}; pass an array (numpy, torch, CuPy, DLPack)")
    return TensorWrapper(tensor, dtype)


__all__ = ["TensorWrapper", "reinterpret"]
