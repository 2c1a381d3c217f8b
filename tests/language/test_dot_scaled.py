"""``tl.dot_scaled``: microscaled operands (fp4 e2m1 two per byte, fp8 e4m3/e5m2, bf16/fp16) with
e8m0 scales per 32 elements along K, multiplied as Triton emulates it (bf16 or fp16 upcasts, an
fp32 accumulator), against a numpy decoding of the formats."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.errors import CompilationError

FP4 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)


def fp4_values(packed: np.ndarray, axis: int) -> np.ndarray:
    """Codes two per byte (the first in the low nibble), the pair side by side along ``axis``."""
    def value(code):
        return np.where(code & 8, -1, 1) * FP4[code & 7]
    low, high = value(packed & 15), value(packed >> 4)
    return np.stack([low, high], axis=axis + 1).reshape(
        [2 * n if d == axis else n for d, n in enumerate(packed.shape)]).astype(np.float32)


def fp8_values(codes: np.ndarray, fmt: str) -> np.ndarray:
    exponent_bits, bias = (4, 7) if fmt == "e4m3" else (5, 15)
    mantissa_bits = 7 - exponent_bits
    e = (codes >> mantissa_bits) & ((1 << exponent_bits) - 1)
    m = (codes & ((1 << mantissa_bits) - 1)).astype(np.float64)
    magnitude = np.where(e == 0, m / 2**mantissa_bits * 2.0 ** (1 - bias),
                         (1 + m / 2**mantissa_bits) * 2.0 ** (e.astype(np.float64) - bias))
    return (np.where(codes & 0x80, -1, 1) * magnitude).astype(np.float32)


def scaled(values: np.ndarray, scales: np.ndarray | None, k_axis: int) -> np.ndarray:
    if scales is None:
        return values
    factor = np.where(scales == 255, np.nan, np.ldexp(np.float32(1), np.minimum(scales, 254).astype(np.int32) - 127))
    factor = np.repeat(factor, 32, axis=1)  # [rows, K]
    return values * (factor if k_axis == 1 else factor.T)


@kl.jit
def mx_matmul(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
              A_COLS: tl.constexpr, B_ROWS: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr, B_K_PACK: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * A_COLS + tl.arange(0, A_COLS)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_ROWS)[:, None] * (N if B_K_PACK else N // 2)
                + tl.arange(0, N if B_K_PACK else N // 2)[None, :])
    a_scale = None
    b_scale = None
    if a_scale_ptr is not None:
        a_scale = tl.load(a_scale_ptr + tl.arange(0, M)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    if b_scale_ptr is not None:
        b_scale = tl.load(b_scale_ptr + tl.arange(0, N)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, FA, b, b_scale, FB, rhs_k_pack=B_K_PACK)
    tl.store(out_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def _operand(rng, fmt, rows, cols, pack_axis):
    """Codes (or values) for a ``rows x cols`` operand and their float values."""
    if fmt in ("bf16", "fp16"):
        values = rng.standard_normal((rows, cols)).astype(np.float16 if fmt == "fp16" else np.float32)
        if fmt == "bf16":  # bf16 as its bits (numpy has no bf16): the top half of fp32
            bits = (values.view(np.uint32) >> 16).astype(np.uint16)
            return bits, (bits.astype(np.uint32) << 16).view(np.float32)
        return values, values.astype(np.float32)
    if fmt == "e2m1":
        shape = (rows // 2, cols) if pack_axis == 0 else (rows, cols // 2)
        codes = rng.integers(0, 256, shape, dtype=np.uint8)
        return codes, fp4_values(codes, pack_axis)
    codes = rng.integers(0, 256, (rows, cols), dtype=np.uint8)
    exponent_mask = 0x78 if fmt == "e4m3" else 0x7C
    codes = np.where((codes & exponent_mask) == exponent_mask, codes & 0x87, codes).astype(np.uint8)  # finite only
    return codes, fp8_values(codes, fmt)


@pytest.mark.parametrize("fa, fb, a_scaled, b_scaled, b_k_pack", [
    ("e2m1", "bf16", True, False, True), ("e4m3", "e5m2", True, True, True), ("fp16", "e2m1", False, True, True),
    ("bf16", "e2m1", False, True, False), ("e5m2", "e4m3", False, True, True)])
def test_microscaled_products(launch, fa, fb, a_scaled, b_scaled, b_k_pack) -> None:
    if fb == "bf16" or fa == "bf16":
        pytest.importorskip("torch")  # bf16 operands are passed as torch tensors
    import torch

    rng = np.random.default_rng(11)
    m, n, k = 16, 32, 64
    a_codes, a_values = _operand(rng, fa, m, k, 1)
    b_codes, b_values = _operand(rng, fb, k, n, 0 if b_k_pack else 1)
    a_scale = rng.integers(120, 135, (m, k // 32), dtype=np.uint8) if a_scaled else None
    b_scale = rng.integers(120, 135, (n, k // 32), dtype=np.uint8) if b_scaled else None
    if b_scale is not None:
        b_scale[3, 1] = 255  # NaN: column 3 of the product
    want = scaled(a_values, a_scale, 1) @ scaled(b_values, b_scale, 0)

    def arg(codes, fmt):
        return torch.from_numpy(codes.astype(np.int16)).view(torch.bfloat16) if fmt == "bf16" else codes

    out = np.zeros((m, n), np.float32)
    if launch.target == "cuda" and "bf16" in (fa, fb):
        pytest.skip("torch bf16 host tensors: the launch fixture moves numpy arrays only")
    launch(mx_matmul, (1,), arg(a_codes, fa), a_scale, arg(b_codes, fb), b_scale, out, m, n, k, a_codes.shape[1],
           b_codes.shape[0], fa, fb, b_k_pack)
    np.testing.assert_allclose(out, want, rtol=2e-2, atol=1e-2 * np.nanmax(np.abs(want)))
    if b_scale is not None:
        assert np.isnan(out[:, 3]).all() and not np.isnan(np.delete(out, 3, axis=1)).any()


@kl.jit
def bad_scale(a_ptr, out_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 64 + tl.arange(0, 64)[None, :])
    s = tl.full([16, 4], 127, tl.uint8)
    tl.store(out_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :],
             tl.dot_scaled(a, s, "e4m3", tl.trans(a).to(tl.bfloat16), None, "bf16")[:, :16])


def test_a_scale_of_the_wrong_shape_is_a_compile_error(host_target) -> None:
    """Triton's message word for word (its __cause__), kernellab's explanation after it."""
    with pytest.raises(CompilationError, match=r"lhs_scale must be a tensor of shape \[16, 2\]. Got \['16', '4'\]; "
                                               r"tl.dot_scaled takes one e8m0 scale per 32") as info:
        bad_scale[(1,)](np.zeros((16, 64), np.uint8), np.zeros((16, 16), np.float32))
    assert str(info.value.__cause__) == "lhs_scale must be a tensor of shape [16, 2]. Got ['16', '4']"
