"""Triton's fp8e4b15 on every target (converted by the language through fp16, with Triton's
NVIDIA conversion), and the fp8 dtypes each target takes (Triton's words for the others)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError


def e4b15_value(codes: np.ndarray) -> np.ndarray:
    """The value of fp8e4b15 codes: sign, 4 exponent bits with bias 15, 3 mantissa bits, no NaN
    or infinity (every code a number)."""
    codes = codes.astype(np.int64)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exponent, mantissa = (codes >> 3) & 15, codes & 7
    normal = exponent > 0
    magnitude = np.where(normal, (8 + mantissa) * 2.0 ** (exponent - 18), mantissa * 2.0 ** -17)
    return (sign * magnitude).astype(np.float32)


def e4b15_from_f16(values: np.ndarray) -> np.ndarray:
    """Triton's fp16 -> fp8e4b15 conversion on the bits: |x| clamped to 1.75 (NaN and inf too),
    doubled, 0x80 added (ties away from zero), the high byte kept, the sign put back."""
    bits = values.astype(np.float16).view(np.uint16).astype(np.int64)
    magnitude = np.minimum(bits & 0x7FFF, 0x3F00)
    return (((magnitude * 2 + 0x80) >> 8) | ((bits >> 8) & 0x80)).astype(np.uint8)


@kl.jit
def upcast(src, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs).to(tl.float8e4b15, bitcast=True)
    tl.store(dst + offs, x.to(dst.dtype.element_ty))


@kl.jit
def downcast(src, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs).to(tl.float8e4b15).to(tl.uint8, bitcast=True))


@kl.jit
def e4b15_arithmetic(src, out, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs).to(tl.float8e4b15, bitcast=True)
    full = tl.full((BLOCK,), SCALE, tl.float8e4b15)
    tl.store(out + offs, (x * full + x).to(tl.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_every_fp8e4b15_code_upcasts_exactly(launch, dtype) -> None:
    codes = np.arange(256, dtype=np.uint8)
    out = np.full(256, np.nan, dtype)
    launch(upcast, (1,), codes, out, BLOCK=256)
    np.testing.assert_array_equal(out.astype(np.float32), e4b15_value(codes))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_downcast_clamps_and_rounds_as_triton(launch, inputs, dtype) -> None:
    values = (inputs.normal(512) * 0.75).astype(np.float16)  # exact in fp16: f32 -> f16 rounding is moot
    values[:4] = [np.inf, -np.inf, np.nan, 5.0]
    out = np.zeros(512, np.uint8)
    launch(downcast, (1,), values.astype(dtype), out, BLOCK=512)
    np.testing.assert_array_equal(out, e4b15_from_f16(values))
    assert np.abs(e4b15_value(out[4:]) - np.clip(values[4:], -1.75, 1.75)).max() <= 2.0 ** -4


def test_arithmetic_and_constants_compute_in_fp16(launch, rng) -> None:
    codes = rng.integers(0, 256, 256).astype(np.uint8)
    out = np.full(256, np.nan, np.float32)
    launch(e4b15_arithmetic, (1,), codes, out, SCALE=0.375, BLOCK=256)
    x = e4b15_value(codes).astype(np.float16)
    np.testing.assert_array_equal(out, (x * np.float16(0.375) + x).astype(np.float32))


@kl.jit
def dot_of(dtype: tl.constexpr):
    a = tl.full((64, 64), 1.0, dtype)
    tl.dot(a, a)


def test_fp8_dtypes_the_cuda_target_lacks_are_refused_in_tritons_words() -> None:
    for dtype in (tl.float8e4b8, tl.float8e5b16):
        with pytest.raises(CompilationError) as info:
            kl.compile(dot_of, constexprs={"dtype": dtype}, target="cuda:sm_90a")
        assert str(info.value.__cause__) == (f"type {dtype.name} not supported in this architecture. The supported "
                                             "fp8 dtypes are ('fp8e4b15', 'fp8e4nv', 'fp8e5')")
    with pytest.raises(CompilationError, match=r"type fp8e4nv not supported in this architecture"):
        kl.compile(dot_of, constexprs={"dtype": tl.float8e4nv}, target="cuda:sm_80")


def test_a_parameter_of_a_refused_fp8_dtype_is_an_error_at_the_def() -> None:
    with pytest.raises(CompilationError, match=r"in upcast at 1:0:[\s\S]*type fp8e4b8 not supported") as info:
        kl.compile(upcast, signature={"src": "*u8", "dst": "*fp8e4b8"}, constexprs={"BLOCK": 16},
                   target="cuda:sm_90a")
    assert "fp8e4b8" in str(info.value.__cause__)


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_host_targets_take_every_fp8_dtype(target) -> None:
    for dtype in (tl.float8e4b8, tl.float8e5b16, tl.float8e4nv, tl.float8e5, tl.float8e4b15):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # fp8e4b15's tl.dot warns on CUDA sm_90+ only
            kl.compile(dot_of, constexprs={"dtype": dtype}, target=target)


def test_fp8e4b15_dot_warns_on_hopper_and_builds() -> None:
    with pytest.warns(UserWarning, match="the use of fp8e4b15 is deprecated on Hopper and later architectures"):
        compiled = kl.compile(dot_of, constexprs={"dtype": tl.float8e4b15}, target="cuda:sm_90a")
    assert compiled.asm["ptx"]


@kl.jit
def to_fp8_and_back(src, dst, FP8: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs).to(FP8).to(tl.float32))


@kl.jit
def fp8_constant(dst, VALUE: tl.constexpr, FP8: tl.constexpr):
    tl.store(dst + tl.arange(0, 2), tl.full((2,), VALUE, tl.float32).to(FP8).to(tl.float32) * tl.where(
        tl.arange(0, 2) == 0, 1.0, -1.0))


@pytest.mark.parametrize("fp8, largest", [(tl.float8e4nv, 448.0), (tl.float8e5, 57344.0)], ids=["e4nv", "e5"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
def test_past_the_largest_finite_value_fp8_saturates_as_tritons_satfinite(launch, rng, fp8, largest, dtype) -> None:
    """torchao's mxfp8 'floor' kernels scale blocks up to 512 and rely on fp8e4nv's cast giving 448
    (NVIDIA's cvt.rn.satfinite, infinities too); NaN stays NaN, values in range round to nearest even."""
    big = float(np.finfo(dtype).max)
    sign = np.where(rng.random(256) < 0.5, -1.0, 1.0)
    over = sign * rng.uniform(largest * 1.04, min(largest * 8, big), 256)
    inside = rng.uniform(-largest, largest, 256)
    values = np.concatenate([over, inside, [np.inf, -np.inf, np.nan, largest, -largest, largest * 1.01]])
    values = np.resize(values, 1024).astype(dtype)
    out = np.full(1024, 7.0, np.float32)
    launch(to_fp8_and_back, (1,), values, out, FP8=fp8, BLOCK=1024)
    wide = values.astype(np.float64)
    expected = np.where(np.abs(wide) >= largest, np.sign(wide) * largest,
                        np.clip(wide, -largest, largest).astype(fp8_np(fp8)).astype(np.float64))
    expected[np.isnan(wide)] = np.nan
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    const = np.zeros(2, np.float32)
    launch(fp8_constant, (1,), const, VALUE=largest * 3, FP8=fp8)
    np.testing.assert_array_equal(const, [largest, -largest])


def fp8_np(fp8) -> np.dtype:
    import ml_dtypes

    return {"fp8e4nv": ml_dtypes.float8_e4m3fn, "fp8e5": ml_dtypes.float8_e5m2}[fp8.name]


@kl.jit
def fp8_arithmetic(src, other, out, BLOCK: tl.constexpr, FP8: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs).to(FP8, bitcast=True)
    y = tl.load(other + offs).to(FP8, bitcast=True)
    results = (-x, tl.abs(x), x + y, x - y, x * y, tl.maximum(x, y), tl.minimum(x, y))
    for i in tl.static_range(len(results)):
        tl.store(out + i * BLOCK + offs, results[i].to(tl.uint8, bitcast=True))
    tl.store(out + len(results) * BLOCK + offs, (x < y).to(tl.uint8))


@pytest.mark.parametrize("name, ml_name", [("float8e5", "float8_e5m2"), ("float8e4nv", "float8_e4m3fn")])
def test_fp8_arithmetic_computes_on_values_not_bits(launch, rng, name, ml_name) -> None:
    # an fp8 operand is widened to f32 (exactly), the op computed there and the result rounded
    # back (nearest even, saturating): on the compiled targets `x + y` was an integer add of the bits
    ml_dtypes = pytest.importorskip("ml_dtypes")
    fp8 = np.dtype(getattr(ml_dtypes, ml_name))
    codes = np.arange(256, dtype=np.uint8)
    codes[~np.isfinite(codes.view(fp8).astype(np.float32))] = 0  # NaN's sign is not kept; infinities saturate
    other = rng.permutation(codes)
    a, b = codes.view(fp8).astype(np.float32), other.view(fp8).astype(np.float32)
    n = len(codes)
    out = np.zeros(8 * n, np.uint8)
    launch(fp8_arithmetic, (1,), codes, other, out, BLOCK=n, FP8=getattr(tl, name))
    largest = float(ml_dtypes.finfo(fp8).max)

    def rounded(v: np.ndarray) -> np.ndarray:  # f32 -> fp8, nearest even, saturating
        return np.clip(v, -largest, largest).astype(fp8).view(np.uint8)

    expected = [rounded(-a), rounded(np.abs(a)), rounded(a + b), rounded(a - b), rounded(a * b),
                rounded(np.maximum(a, b)), rounded(np.minimum(a, b))]
    for i, want in enumerate(expected):
        np.testing.assert_array_equal(out[i * n:(i + 1) * n], want, err_msg=f"result {i}")
    np.testing.assert_array_equal(out[7 * n:], (a < b).astype(np.uint8))
