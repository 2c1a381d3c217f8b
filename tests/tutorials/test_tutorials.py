"""Triton's tutorial kernels, unchanged, on every target present, against float64 numpy
references on fresh random inputs; and their Tile IR prints, parses back identically and
verifies."""

from __future__ import annotations

import numpy as np
import pytest
from kernels import philox_ref
from kernels import tutorials as tut


def _rel_err(out, ref) -> float:
    out = np.asarray(out, dtype=np.float64)
    assert np.all(np.isfinite(out)), "output has NaN/inf (unwritten elements?)"
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def test_vector_add(target, rng, on_target):
    n = 98_432  # not a multiple of the block
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    result = on_target.run(tut.run_add, x, y, out)
    assert _rel_err(result[2], tut.ref_add(x, y)) < 1e-7


def test_fused_softmax(target, rng, on_target):
    x = rng.standard_normal((97, 781), dtype=np.float32)
    out = np.full_like(x, np.nan)
    result = on_target.run(tut.run_softmax, x, out)
    assert _rel_err(result[1], tut.ref_softmax(x)) < 1e-6


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_grouped_matmul(target, rng, on_target, activation):
    M, N, K = 160, 96, 80  # ragged edges in every dim
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float16)
    result = on_target.run(tut.run_matmul, a, b, c, activation=activation, block_m=32, block_n=32, block_k=32,
                           group_m=2)
    assert _rel_err(result[2], tut.ref_matmul(a, b, activation)) < 2e-3


@pytest.mark.parametrize("programs", [3, 64])  # fewer programs than tiles (each walks several), more
def test_persistent_matmul(target, rng, on_target, programs):
    M, N, K = 150, 90, 70  # ragged edges in every dim
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float16)
    result = on_target.run(tut.run_matmul_persistent, a, b, c, num_sms=programs, block_m=32, block_n=32,
                           block_k=32, group_m=2)
    assert _rel_err(result[2], tut.ref_matmul(a, b)) < 2e-3


@pytest.mark.parametrize("programs", [3, 64])
def test_descriptor_persistent_matmul(target, rng, on_target, programs):
    M, N, K = 150, 96, 80  # ragged M and K blocks; row strides of whole 16-byte multiples
    a = rng.standard_normal((M, K)).astype(np.float16)
    b_t = rng.standard_normal((N, K)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float16)
    result = on_target.run(tut.run_matmul_descriptor_persistent, a, b_t, c, num_sms=programs, block_m=32,
                           block_n=32, block_k=32, group_m=2)
    assert _rel_err(result[2], tut.ref_matmul(a, b_t.T)) < 2e-3


def test_low_memory_dropout(target, rng, on_target):
    n, p, seed = 10_000, 0.4, 123
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    result = on_target.run(tut.run_dropout, x, out, p, seed)
    keep = philox_ref.rand(seed, np.arange(n, dtype=np.int32)) > p
    expected = np.where(keep, x / np.float32(1 - p), np.float32(0))
    np.testing.assert_allclose(result[1], expected, rtol=1e-6, atol=0)
    assert 0.5 < keep.mean() < 0.7
    again = on_target.run(tut.run_dropout, x, np.full_like(out, np.nan), p, seed)
    np.testing.assert_array_equal(again[1], result[1])


def test_layer_norm_forward(target, rng, on_target):
    M, N = 37, 1151
    x = rng.standard_normal((M, N), dtype=np.float32)
    w = rng.standard_normal(N, dtype=np.float32)
    b = rng.standard_normal(N, dtype=np.float32)
    y = np.full_like(x, np.nan)
    mean = np.full(M, np.nan, dtype=np.float32)
    rstd = np.full(M, np.nan, dtype=np.float32)
    result = on_target.run(tut.run_layer_norm, x, w, b, y, mean, rstd)
    ref_y, ref_mean, ref_rstd = tut.ref_layer_norm(x, w, b)
    assert _rel_err(result[3], ref_y) < 1e-5
    assert _rel_err(result[4], ref_mean) < 1e-5
    assert _rel_err(result[5], ref_rstd) < 1e-5


@pytest.mark.parametrize("causal", [False, True])
def test_fused_attention_forward(target, rng, on_target, causal):
    Z, H, N_CTX, HEAD_DIM = 1, 2, 64, 32
    q, k, v = (rng.standard_normal((Z, H, N_CTX, HEAD_DIM)).astype(np.float16) for _ in range(3))
    o = np.full_like(q, np.nan)
    m = np.full((Z * H, N_CTX), np.nan, dtype=np.float32)
    result = on_target.run(tut.run_attention, q, k, v, o, m, causal, 0.5)
    assert _rel_err(result[3], tut.ref_attention(q, k, v, causal, 0.5)) < 5e-3
