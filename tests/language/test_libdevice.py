"""libdevice functions declared once in kernellab/ir/mathfns.py, end to end on every target:
each against numpy (floats) or Python integers (bit functions), in f32 and f64."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError
from kernellab.ir.mathfns import MATH
from kernellab.language.extra import libdevice

N = 64


@kl.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, FN(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@kl.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, FN(tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)), mask=mask)


@kl.jit
def isnan_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, libdevice.isnan(tl.load(x_ptr + offs, mask=mask)).to(tl.int32), mask=mask)


@kl.jit
def pow_scalar_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, libdevice.pow(tl.load(x_ptr + offs, mask=mask), 3.0), mask=mask)


FLOAT_CASES = {  # name: (numpy function, inputs' low, high)
    "tanh": (np.tanh, -6.0, 6.0),
    "expm1": (np.expm1, -3.0, 3.0),
    "log1p": (np.log1p, -0.9, 20.0),
    "rint": (np.rint, -40.0, 40.0),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(FLOAT_CASES))
def test_float_functions_match_numpy(launch, inputs, name: str, dtype) -> None:
    reference, low, high = FLOAT_CASES[name]
    x = inputs.uniform(N, low, high, dtype)
    x[:4] = np.array([0.5, -0.5, 2.5, 1e-7], dtype)  # ties for rint, tiny for expm1/log1p
    out = inputs.poisoned(N, dtype)
    launch(unary_kernel, (1,), x, out, N, FN=getattr(libdevice, name), BLOCK=N)
    rtol = 4e-7 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out, reference(x.astype(np.float64)).astype(dtype), rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_of_two_floats_and_of_a_python_number(launch, inputs, dtype) -> None:
    x = inputs.uniform(N, 0.1, 4.0, dtype)
    y = inputs.uniform(N, -3.0, 3.0, dtype)
    out = inputs.poisoned(N, dtype)
    launch(binary_kernel, (1,), x, y, out, N, FN=libdevice.pow, BLOCK=N)
    rtol = 2e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out, np.power(x.astype(np.float64), y).astype(dtype), rtol=rtol)
    cubed = inputs.poisoned(N, dtype)
    launch(pow_scalar_kernel, (1,), x, cubed, N, BLOCK=N)
    np.testing.assert_allclose(cubed, (x.astype(np.float64) ** 3).astype(dtype), rtol=rtol)


def test_pow_with_an_int32_exponent(launch, inputs) -> None:
    x = inputs.uniform(N, 0.5, 2.0)
    n = inputs.integers(N, -6, 7)
    out = inputs.poisoned(N)
    launch(binary_kernel, (1,), x, n, out, N, FN=libdevice.pow, BLOCK=N)
    np.testing.assert_allclose(out, (x.astype(np.float64) ** n).astype(np.float32), rtol=2e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_isnan(launch, inputs, dtype) -> None:
    x = inputs.normal(N, dtype)
    x[::3] = np.nan
    x[1] = np.inf
    out = inputs.poisoned(N, np.int32)
    launch(isnan_kernel, (1,), x, out, N, BLOCK=N)
    np.testing.assert_array_equal(out, np.isnan(x).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", ["popc", "clz"])
def test_bit_functions_return_int32(launch, rng, name: str, dtype) -> None:
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    x[:4] = np.array([0, -1, 1, info.min], dtype)
    out = np.full(N, -7, np.int32)
    launch(unary_kernel, (1,), x, out, N, FN=getattr(libdevice, name), BLOCK=N)
    bits = np.dtype(dtype).itemsize * 8
    patterns = [int(v) & ((1 << bits) - 1) for v in x.tolist()]
    if name == "popc":
        wanted = [p.bit_count() for p in patterns]
    else:
        wanted = [bits - p.bit_length() for p in patterns]
    np.testing.assert_array_equal(out, np.array(wanted, np.int32))


def test_a_half_tensor_is_refused_with_the_signatures(monkeypatch) -> None:
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x = np.ones(N, np.float16)
    with pytest.raises(CompilationError, match=r"tanh expects fp32, fp64 tensors, got fp16.*x.to\(tl.float32\)"):
        unary_kernel[(1,)](x, np.zeros(N, np.float16), N, FN=libdevice.tanh, BLOCK=N)


def test_every_declared_function_is_in_libdevice_and_tl_math_ones_are_shared() -> None:
    for fn in MATH.values():
        assert getattr(libdevice, fn.name).__name__ == fn.name
        if "math" in fn.modules:
            assert getattr(tl.math, fn.name) is getattr(libdevice, fn.name) is getattr(tl, fn.name)
