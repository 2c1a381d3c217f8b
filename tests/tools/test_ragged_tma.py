"""``kernellab.tools.ragged_tma`` (Triton's ``triton.tools.ragged_tma``): one sub-array of a
concatenation read, written and added into through a ragged descriptor, nothing outside it
touched; rows past the sub-array read as zeros."""

from __future__ import annotations

import pytest
import torch

import kernellab as kl
from kernellab.tools.ragged_tma import atomic_add_ragged, create_ragged_descriptor, load_ragged, store_ragged


@kl.jit
def copy_rows(X, Y, x_off, y_off, x_size, y_size):
    store_ragged(Y, y_off, y_size, [0, 0], load_ragged(X, x_off, x_size, [0, 0]))


@kl.jit
def add_rows(X, Y, x_off, y_off, x_size, y_size):
    atomic_add_ragged(Y, y_off, y_size, [0, 0], load_ragged(X, x_off, x_size, [0, 0]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_copy_and_add_one_sub_array(host_target, dtype) -> None:
    torch.manual_seed(3)
    src, more, before = (torch.randn(200, 48).mul(20).to(dtype) for _ in range(3))
    dst = before.clone()
    x_off, y_off, x_size, y_size = 42, 51, 17, 24  # the destination is longer: its last 7 rows get zeros
    copy_rows[(1,)](create_ragged_descriptor(src, [32, 64]), create_ragged_descriptor(dst, [32, 64]),
                    x_off, y_off, x_size, y_size)
    add_rows[(1,)](create_ragged_descriptor(more, [32, 64]), create_ragged_descriptor(dst, [32, 64]),
                   x_off, y_off, x_size, y_size)
    assert torch.equal(dst[:y_off], before[:y_off]) and torch.equal(dst[y_off + y_size:], before[y_off + y_size:])
    torch.testing.assert_close(dst[y_off:y_off + x_size], src[x_off:x_off + x_size] + more[x_off:x_off + x_size])
    assert (dst[y_off + x_size:y_off + y_size] == 0).all()


def test_the_descriptor_is_checked() -> None:
    with pytest.raises(AssertionError, match="last dim cannot be ragged"):
        create_ragged_descriptor(torch.zeros(64, 16), [8, 16], ragged_dim=1)
    with pytest.raises(AssertionError, match="2 or 3 dims"):
        create_ragged_descriptor(torch.zeros(2, 2, 2, 16), [1, 1, 2, 16])
