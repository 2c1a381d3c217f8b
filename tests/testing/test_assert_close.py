"""kl.testing.assert_close: Triton's tolerances, every kind of input."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import kernellab as kl


def test_default_tolerance_is_absolute_1e_2(rng):
    x = rng.standard_normal(100).astype(np.float32)
    kl.testing.assert_close(x, x + 0.009)
    with pytest.raises(AssertionError):
        kl.testing.assert_close(x, x + 0.011)


def test_relative_and_callable_tolerances(rng):
    x = rng.uniform(1, 2, 50)
    kl.testing.assert_close(x * 1.05, x, atol=0, rtol=0.06)
    with pytest.raises(AssertionError):
        kl.testing.assert_close(x * 1.05, x, atol=0, rtol=0.04)
    seen = []
    kl.testing.assert_close(x, x + 0.5, atol=lambda dtype: seen.append(dtype) or 1.0)
    assert seen == [np.float64]


def test_scalars_lists_and_nans():
    kl.testing.assert_close(1.0, 1.005)
    with pytest.raises(AssertionError, match="oops 1.0 is not close to 2.0"):
        kl.testing.assert_close(1.0, 2.0, err_msg="oops")
    kl.testing.assert_close([1.0, float("nan")], [1.0, float("nan")])
    with pytest.raises(AssertionError):
        kl.testing.assert_close([1.0, float("nan")], [1.0, 2.0])


def test_bfloat16_arrays_and_torch_tensors(rng):
    x = rng.standard_normal(64).astype(np.float32)
    kl.testing.assert_close(x.astype(ml_dtypes.bfloat16), x, atol=0.02)
    torch = pytest.importorskip("torch")
    tensor = torch.from_numpy(x).to(torch.bfloat16).requires_grad_(False)
    kl.testing.assert_close(tensor, x, atol=0.02)
    with pytest.raises(AssertionError):
        kl.testing.assert_close(tensor, x + 1)
