"""``assert_close(x, y, atol=None, rtol=None, err_msg="")`` (Triton's semantics).

Inputs may be Python scalars or lists, numpy arrays (ml_dtypes' bfloat16/float8 included), torch
tensors on any device, kernellab ``DeviceArray``s or CuPy arrays.  ``atol`` defaults to 1e-2
and ``rtol`` to 0; either may be a function of ``x``'s dtype.  NaNs compare equal to NaNs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Tolerance = float | Callable[[Any], float] | None

_NATIVE_FLOATS = (np.float16, np.float32, np.float64)


def to_numpy(value: Any) -> np.ndarray:
    """A host numpy array with ``value``'s contents."""
    if isinstance(value, np.ndarray):
        return value
    torch = _torch_of(value)
    if torch is not None:
        tensor = value.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.numpy()
    if callable(getattr(value, "numpy", None)):   # kernellab's DeviceArray
        return np.asarray(value.numpy())
    if callable(getattr(value, "get", None)) and hasattr(value, "__cuda_array_interface__"):   # CuPy
        return np.asarray(value.get())
    return np.asarray(value)


def _torch_of(value: Any) -> Any:
    module = type(value).__module__
    if not module.startswith("torch"):
        return None
    import torch

    return torch if isinstance(value, torch.Tensor) else None


def _comparable(array: np.ndarray) -> np.ndarray:
    """Float types numpy's testing cannot do arithmetic in (ml_dtypes' bfloat16, float8) as
    float32."""
    extension = array.dtype.type.__module__.split(".")[0] == "ml_dtypes"
    if extension or (array.dtype.kind == "f" and array.dtype.type not in _NATIVE_FLOATS):
        return array.astype(np.float32)
    if array.dtype.kind == "V":
        raise TypeError(f"assert_close cannot compare arrays of dtype {array.dtype}")
    return array


def _resolve(tolerance: Tolerance, default: float, dtype: Any) -> float:
    if tolerance is None:
        return default
    return float(tolerance(dtype)) if callable(tolerance) else float(tolerance)


def assert_close(x: Any, y: Any, atol: Tolerance = None, rtol: Tolerance = None, err_msg: str = "") -> None:
    """Raise ``AssertionError`` unless ``|x - y| <= atol + rtol * |y|`` everywhere."""
    dtype = getattr(x, "dtype", None)
    atol_value = _resolve(atol, 1e-2, dtype)
    rtol_value = _resolve(rtol, 0.0, dtype)
    a, b = _comparable(to_numpy(x)), _comparable(to_numpy(y))
    if a.size > 1 or b.size > 1:
        np.testing.assert_allclose(a, b, atol=atol_value, rtol=rtol_value, equal_nan=True, err_msg=err_msg)
        return
    if not np.allclose(a, b, atol=atol_value, rtol=rtol_value, equal_nan=True):
        raise AssertionError(f"{err_msg} {a} is not close to {b} (atol={atol_value}, rtol={rtol_value})".strip())


__all__ = ["assert_close", "to_numpy"]
