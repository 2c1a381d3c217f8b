"""Triton's ``triton.language`` names kernellab added for compatibility: the library functions
(topk, bitonic_merge, map_elementwise), the fnuz fp8 types, tuples, conditions, and the error
classes Triton users catch."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.compiler.errors import CompileTimeAssertionFailure, UnsupportedLanguageConstruct


@kl.jit
def topk_kernel(x_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, 4)[:, None] * N
    x = tl.load(x_ptr + rows + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@pytest.mark.parametrize("n, k", [(16, 4), (32, 1), (8, 8)])
def test_topk_gives_the_largest_first(launch, inputs, n, k):
    x = inputs.normal((4, n))
    out = inputs.poisoned((4, k))
    launch(topk_kernel, (1,), x, out, n, k)
    np.testing.assert_array_equal(out, -np.sort(-x, axis=1)[:, :k])


@kl.jit
def merge_kernel(x_ptr, out_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.bitonic_merge(tl.load(x_ptr + offs), descending=DESCENDING))


@pytest.mark.parametrize("descending", [False, True])
def test_bitonic_merge_sorts_a_bitonic_sequence(launch, inputs, descending):
    x = inputs.normal(32)
    x[:16].sort()
    x[16:] = -np.sort(-x[16:])  # up then down: bitonic
    out = inputs.poisoned(32)
    launch(merge_kernel, (1,), x, out, 32, descending)
    expected = np.sort(x)
    np.testing.assert_array_equal(out, expected[::-1] if descending else expected)


@kl.jit
def affine(a, b, c):
    return a * b + c, a - b


@kl.jit
def map_kernel(x_ptr, y_ptr, s_ptr, d_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    s, d = tl.map_elementwise(affine, tl.load(x_ptr + offs), tl.load(y_ptr + offs), 0.5)
    tl.store(s_ptr + offs, s)
    tl.store(d_ptr + offs, d)


def test_map_elementwise_applies_a_jit_function(launch, inputs):
    x, y = inputs.normal(16), inputs.normal(16)
    s, d = inputs.poisoned(16), inputs.poisoned(16)
    launch(map_kernel, (1,), x, y, s, d, 16)
    np.testing.assert_allclose(s, x * y + 0.5, rtol=1e-6)
    np.testing.assert_array_equal(d, x - y)


@kl.jit
def fp8_round_trip(x_ptr, out_ptr, bits_ptr, DT: tl.constexpr):
    offs = tl.arange(0, 64)
    y = tl.load(x_ptr + offs).to(DT)
    tl.store(bits_ptr + offs, y.to(tl.uint8, bitcast=True))
    tl.store(out_ptr + offs, y.to(tl.float32))


@pytest.mark.parametrize("dtype, reference", [(tl.float8e4b8, ml_dtypes.float8_e4m3fnuz),
                                              (tl.float8e5b16, ml_dtypes.float8_e5m2fnuz)])
def test_fnuz_fp8_conversions_round_to_nearest_even(inputs, monkeypatch, dtype, reference):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x = inputs.normal(64) * 8
    out, bits = inputs.poisoned(64), np.zeros(64, np.uint8)
    fp8_round_trip[(1,)](x, out, bits, dtype)
    np.testing.assert_array_equal(bits, x.astype(reference).view(np.uint8))
    np.testing.assert_array_equal(out, x.astype(reference).astype(np.float32))


def test_fp8e4b15_round_trips_saturating_at_1_75(inputs, monkeypatch):
    """Triton's fp8e4b15 (tests/language/test_fp8_targets.py checks its conversions bit for bit)."""
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    x = inputs.normal(64)
    out, bits = inputs.poisoned(64), np.zeros(64, np.uint8)
    fp8_round_trip[(1,)](x, out, bits, tl.float8e4b15)
    assert np.abs(out - np.clip(x, -1.75, 1.75)).max() <= 2.0 ** -4 and np.abs(out).max() <= 1.75


@kl.jit
def tuple_kernel(out_ptr, N: tl.constexpr):
    pair = tl.tuple([tl.full((N,), 3, tl.int32), tl.full((N,), 4, tl.int32)])
    offs = tl.arange(0, N)
    i = 0
    while tl.condition(i < 2, disable_licm=True):
        i += 1
    tl.store(out_ptr + offs, pair[0] * pair[1] + i)


def test_tuples_and_while_conditions(launch):
    out = np.full(8, -1, np.int32)
    launch(tuple_kernel, (1,), out, 8)
    np.testing.assert_array_equal(out, np.full(8, 14))


def test_type_level_names():
    assert isinstance((1, 2), tl.tuple) and tl.tuple([1, 2]) == (1, 2)
    assert isinstance(slice(1, 2), tl.slice) and tl.slice(1, 4, 2) == slice(1, 4, 2)
    assert tl.constexpr_type(3) == tl.constexpr_type(3) != tl.constexpr_type(4)
    assert tl.str_to_ty("*fp16") is tl.pointer_type(tl.float16)
    assert tl.str_to_ty("*kfp32") is tl.pointer_type(tl.float32, const=True)
    assert tl.str_to_ty("i32") is tl.int32
    assert tl.str_to_ty(("i32", "fp32")) == tl.tuple_type([tl.int32, tl.float32])
    assert tl.dtype("fp8e5b16") is tl.float8e5b16 and tl.dtype("void") is tl.void
    assert "fp8e4b15" in tl.dtype.FP_TYPES and tl.dtype.UINT_TYPES[0] == "int1"


@kl.jit
def assert_kernel(out_ptr, N: tl.constexpr):
    tl.static_assert(N % 2 == 0, "N must be even")
    tl.store(out_ptr + tl.arange(0, N), tl.zeros((N,), tl.float32))


@kl.jit
def lambda_kernel(out_ptr):
    f = lambda v: v  # noqa: E731
    tl.store(out_ptr, f(1.0))


def test_triton_error_classes(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    with pytest.raises(CompileTimeAssertionFailure, match="N must be even"):
        assert_kernel[(1,)](np.zeros(4, np.float32), 3)
    with pytest.raises(UnsupportedLanguageConstruct, match="lambda"):
        lambda_kernel[(1,)](np.zeros(1, np.float32))
    assert issubclass(CompileTimeAssertionFailure, kl.CompilationError)
    assert issubclass(kl.CompilationError, kl.TritonError)


@kl.must_use_result("it returns the new value")
@kl.jit
def incremented(x):
    return x + 1


@kl.jit
def unused_kernel(out_ptr):
    incremented(1)
    tl.store(out_ptr, 1.0)


def test_must_use_result_rejects_a_dropped_result(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    message = "The result of incremented is not being used. it returns the new value"  # Triton's words, then the reason
    with pytest.raises(kl.CompilationError, match=message):
        unused_kernel[(1,)](np.zeros(1, np.float32))


@kl.jit
def target_kernel(out_ptr):
    tl.store(out_ptr, 1.0 if tl.target_info.is_cuda() else 2.0)


def test_target_info_names_the_compiling_target(launch):
    out = np.full(1, np.nan, np.float32)
    launch(target_kernel, (1,), out)
    assert out[0] == (1.0 if launch.target == "cuda" else 2.0)
    assert tl.target_info.current_target() is None  # outside a compilation
