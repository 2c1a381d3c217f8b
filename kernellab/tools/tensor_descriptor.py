"""Triton's host-side ``TensorDescriptor`` (``triton.tools.tensor_descriptor``): a tensor's
base, shape, strides and the block shape a kernel reads it in.

kernellab checks it as Triton does.  A kernel takes one as an argument on every target: the
launch passes its parts (base, shape, strides; the block shape and padding are compile-time
constants of the specialization) and the kernel sees ``tl.make_tensor_descriptor`` of them
(``frontend.arguments.HostDescriptor``), whose tensor map the CUDA launch encodes for the tensor
memory accelerator where the parts allow (a 16-byte aligned base, strides of 16-byte multiples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def validate_block_shape(shape: list[int]) -> None:
    """Every block dim is a power of two, at most 256 elements per dim, at least one element."""
    numel = 1
    for i, dim in enumerate(shape):
        if not isinstance(dim, int) or dim < 1 or dim & (dim - 1):
            raise ValueError(f"block dim {i} must be a power of two, got {dim!r}")
        if dim > 256:
            raise ValueError(f"block dim {i} is {dim}; a tensor descriptor's block dims are at most 256")
        numel *= dim
    if not shape:
        raise ValueError("a block shape needs at least one dim")


@dataclass
class TensorDescriptor:
    base: Any
    shape: list[int]
    strides: list[int]
    block_shape: list[int]
    padding: str = "zero"

    __kernellab_descriptor__ = True  # specialized as its parts (runtime/specialize.py)

    def __kernellab_parts__(self) -> Any:
        from ..frontend.arguments import host_descriptor

        return host_descriptor(self)

    def __post_init__(self) -> None:
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"a tensor descriptor has 1 to 5 dims, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"shape, strides and block_shape must have one entry per dim ({rank}); got "
                             f"{list(self.strides)} and {list(self.block_shape)}")
        validate_block_shape(list(self.block_shape))
        if any(int(d) <= 0 for d in self.shape):
            raise ValueError(f"the shape's dims must be positive, got {list(self.shape)}")
        if int(self.strides[-1]) != 1:
            raise ValueError(f"the last dim must be contiguous (stride 1), got strides {list(self.strides)}")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"padding is 'zero' or 'nan', got {self.padding!r}")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: list[int], padding: str = "zero") -> TensorDescriptor:
        """The descriptor of a whole torch tensor or numpy array (strides in elements)."""
        strides = tensor.stride() if callable(getattr(tensor, "stride", None)) else \
            [s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), list(strides), list(block_shape), padding)


__all__ = ["TensorDescriptor", "validate_block_shape"]
