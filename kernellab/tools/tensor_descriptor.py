"""Triton's host-side ``TensorDescriptor`` (``triton.tools.tensor_descriptor``): a tensor's
base, shape, strides and the block shape a kernel reads it in.

kernellab checks it as Triton does (its messages and exception types).  A kernel takes one as
an argument on every target: the launch passes its parts (base, shape, strides; the block shape
and padding are compile-time constants of the specialization) and the kernel sees
``tl.make_tensor_descriptor`` of them (``frontend.arguments.HostDescriptor``), whose tensor map
the CUDA launch encodes for the tensor memory accelerator where the parts allow (blocks of at
most 256 per dim; the base and strides are 16-byte multiples, as the checks here ask).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_BLOCK_NUMEL = 1 << 20  # as a tile's (language.semantics.typing.MAX_TILE_NUMEL)


def validate_block_shape(shape: list[int]) -> int:
    """Every block dim a power of two (ValueError), the block at most 2**20 elements; returns
    the element count.  The messages are Triton's."""
    numel = 1
    for i, dim in enumerate(shape):
        if not isinstance(dim, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got `constexpr[{type(dim)}]`")
        if dim < 1 or dim & (dim - 1):
            raise ValueError(f"Shape element {i} must be a power of 2, got {dim}")
        numel *= dim
    if numel > MAX_BLOCK_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds the largest block of {MAX_BLOCK_NUMEL} elements")
    return numel


def _address(base: Any) -> int | None:
    """The address of an array's first element (torch, numpy, kernellab device arrays)."""
    if callable(getattr(base, "data_ptr", None)):
        return int(base.data_ptr())
    for name in ("__cuda_array_interface__", "__array_interface__"):
        interface = getattr(base, name, None)
        if isinstance(interface, dict) and interface.get("data"):
            return int(interface["data"][0])
    return None


def _itemsize(base: Any) -> int:
    dtype = getattr(base, "dtype", None)
    return int(getattr(dtype, "itemsize", None) or getattr(base, "itemsize", 1))


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
        """Triton's checks, in its order and with its exception types (AssertionError for what it
        asserts): ranks, a 16-byte aligned base, the block shape, 16-byte multiples for every
        stride but the last, a positive shape, a contiguous last dim, the padding."""
        rank = len(self.shape)
        assert len(self.strides) == rank and len(self.block_shape) == rank, \
            f"rank mismatch: shape, strides and block_shape need one entry per dim ({rank}): {self}"
        assert rank > 0, "rank must not be zero"
        assert rank <= 5, "rank cannot be more than 5"
        address = _address(self.base)
        assert address is None or address % 16 == 0, f"base must be 16-byte aligned, got the address {address:#x}"
        validate_block_shape(list(self.block_shape))
        itemsize = _itemsize(self.base)
        for dim, stride in enumerate(self.strides[:-1]):
            assert int(stride) * itemsize % 16 == 0, \
                f"strides must be 16-byte aligned: stride {dim} is {stride} elements of {itemsize} bytes"
        for dim in self.shape:
            assert int(dim) > 0, f"shape must be positive, got {list(self.shape)}"
        assert int(self.strides[-1]) == 1, f"Last dimension must be contiguous (stride 1), got {list(self.strides)}"
        assert self.padding in ("zero", "nan"), f"Illegal value for padding: {self.padding!r} (zero or nan)"
        if self.padding == "nan":
            kind = getattr(getattr(self.base, "dtype", None), "kind", None)
            floating = getattr(getattr(self.base, "dtype", None), "is_floating_point", kind == "f")
            assert floating, "Padding option `nan` is only supported for floating point tensors"

    @staticmethod
    def from_tensor(tensor: Any, block_shape: list[int], padding: str = "zero") -> TensorDescriptor:
        """The descriptor of a whole torch tensor or numpy array (strides in elements)."""
        strides = tensor.stride() if callable(getattr(tensor, "stride", None)) else \
            [s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), list(strides), list(block_shape), padding)


__all__ = ["TensorDescriptor", "validate_block_shape", "MAX_BLOCK_NUMEL"]
