"""The host ``TensorDescriptor`` checks what Triton's checks, with Triton's exception types and
messages (code that catches them, and Triton's tests, rely on both)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from kernellab.tools.tensor_descriptor import TensorDescriptor


@pytest.mark.parametrize("array", [np.zeros((64, 48), np.float16), torch.zeros((64, 48), dtype=torch.float16)])
def test_a_good_descriptor(array) -> None:
    desc = TensorDescriptor.from_tensor(array, [16, 32])
    assert list(desc.shape) == [64, 48] and list(desc.strides) == [48, 1] and desc.padding == "zero"
    assert list(desc.block_shape) == [16, 32]


@pytest.mark.parametrize("block, error, message", [
    ([16, 24], ValueError, "Shape element 1 must be a power of 2"),
    ([0, 16], ValueError, "Shape element 0 must be a power of 2"),
    ([2048, 1024], ValueError, r"numel \(2097152\) exceeds"),
    ([16], AssertionError, "rank mismatch"),
    ([1024, 512], None, None),  # large blocks are Triton's to accept (the CUDA launch decides on TMA)
])
def test_block_shapes(block, error, message) -> None:
    x = torch.zeros((64, 64))
    if error is None:
        TensorDescriptor.from_tensor(x, block)
        return
    with pytest.raises(error, match=message):
        TensorDescriptor.from_tensor(x, block)


def test_strides_base_shape_and_padding() -> None:
    with pytest.raises(AssertionError, match="strides must be 16-byte aligned"):
        TensorDescriptor.from_tensor(torch.zeros((8, 127), dtype=torch.float16), [8, 16])
    with pytest.raises(AssertionError, match="base must be 16-byte aligned"):
        TensorDescriptor.from_tensor(torch.zeros(130)[1:], [16])
    with pytest.raises(AssertionError, match="shape must be positive"):
        TensorDescriptor.from_tensor(torch.zeros((0, 16)), [8, 16])
    with pytest.raises(AssertionError, match="Last dimension must be contiguous"):
        TensorDescriptor.from_tensor(torch.zeros((16, 32))[:, ::2], [8, 8])
    with pytest.raises(AssertionError, match="only supported for floating point"):
        TensorDescriptor.from_tensor(np.zeros((8, 16), np.int32), [8, 16], padding="nan")
    with pytest.raises(AssertionError, match="Illegal value for padding"):
        TensorDescriptor.from_tensor(torch.zeros((8, 16)), [8, 16], padding="inf")
