"""Tensor-core dots on the GPU against torch: the tutorial matmul (f16, bf16, fp8 e4m3/e5m2, f32 as
tf32) through the asynchronous pipeline (cp.async rings, wgmma on sm_90a, mma.sync where wgmma
does not apply), with M, N, K that are not multiples of the block, transposed operands and several
block shapes, warps and stages; the tutorial attention forward (causal and not, D 64 and 128).
Fresh random inputs; outputs start as NaN; the error is ||out - ref|| / ||ref|| against float32
products of the same (rounded) inputs."""

from __future__ import annotations

import pytest
from kernels import tutorials as tut

import kernellab as kl

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu

CONFIGS = [(128, 128, 64, 4), (128, 128, 32, 4), (128, 256, 32, 8), (64, 128, 32, 4), (128, 128, 64, 8),
           (64, 64, 32, 2)]
SHAPES = [(512, 512, 512), (1000, 776, 333)]


def _randn(*shape, dtype):
    return torch.randn(*shape, device="cuda").to(dtype)


def _error(out, ref) -> float:
    return float((out.float() - ref).norm() / ref.norm())


def _matmul(a, b, config, stages=3):
    bm, bn, bk, warps = config
    m, k = a.shape
    n = b.shape[1]
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = (kl.cdiv(m, bm) * kl.cdiv(n, bn),)
    tut.matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8,
                            ACTIVATION="", num_warps=warps, num_stages=stages)
    return c


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matmul_16bit(dtype, shape, config):
    m, n, k = shape
    a, b = _randn(m, k, dtype=getattr(torch, dtype)), _randn(k, n, dtype=getattr(torch, dtype))
    c = _matmul(a, b, config)
    assert not torch.isnan(c).any()
    assert _error(c, a.float() @ b.float()) < 1e-2


@pytest.mark.parametrize("layout", ["a_column_major", "b_k_major", "both"])
@pytest.mark.parametrize("stages", [2, 4])
def test_matmul_transposed_operands(layout, stages):
    m, n, k = 520, 392, 264
    a = _randn(k, m, dtype=torch.float16).t() if layout in ("a_column_major", "both") else _randn(m, k,
                                                                                                 dtype=torch.float16)
    b = _randn(n, k, dtype=torch.float16).t() if layout in ("b_k_major", "both") else _randn(k, n, dtype=torch.float16)
    c = _matmul(a, b, (128, 128, 64, 4), stages)
    assert _error(c, a.float() @ b.float()) < 1e-2


@pytest.mark.parametrize("config", [(128, 128, 128, 4), (128, 256, 64, 8), (64, 64, 64, 4)],
                         ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_matmul_fp8_b_k_major(dtype, config):
    m, n, k = 1000, 776, 320
    a = (_randn(m, k, dtype=torch.float32) * 0.5).to(getattr(torch, dtype))
    b = (_randn(n, k, dtype=torch.float32) * 0.5).to(getattr(torch, dtype)).t()
    c = _matmul(a, b, config)
    assert _error(c, a.float() @ b.float()) < 1e-2


@pytest.mark.parametrize("k", [0, 16, 64, 200])
def test_matmul_loops_shorter_than_the_pipeline(k):
    """No iteration, one (a partial block), exactly one block, more: the prologue's copies past the
    end are masked off and the result is right."""
    m, n = 192, 128
    a, b = _randn(m, k, dtype=torch.float16), _randn(k, n, dtype=torch.float16)
    c = _matmul(a, b, (128, 128, 64, 4), stages=4)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize("config", [(128, 128, 64, 4), (64, 64, 32, 4), (128, 64, 32, 8)],
                         ids=lambda c: "x".join(map(str, c)))
def test_descriptor_matmul(config):
    bm, bn, bk, warps = config
    m, n, k = 1000, 776, 328
    a, b = _randn(m, k, dtype=torch.float16), _randn(k, n, dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    tut.descriptor_matmul_kernel[(kl.cdiv(m, bm), kl.cdiv(n, bn))](a, b, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn,
                                                                     BLOCK_K=bk, num_warps=warps, num_stages=3)
    assert _error(c, a.float() @ b.float()) < 1e-2


@pytest.mark.parametrize("config", [(128, 128, 64, 4), (64, 64, 64, 4), (128, 128, 64, 8), (128, 256, 64, 8)],
                         ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_descriptor_matmul_through_tma(config, dtype, stages):
    """Row strides of 16-byte multiples: the tensor memory accelerator fills the rings (the
    launch encodes the tensor maps); M and the last K block ragged (TMA's zero fill)."""
    bm, bn, bk, warps = config
    m, n, k = 1000, 784, 336
    a, b = _randn(m, k, dtype=getattr(torch, dtype)), _randn(k, n, dtype=getattr(torch, dtype))
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    compiled = tut.descriptor_matmul_kernel[(kl.cdiv(m, bm), kl.cdiv(n, bn))](
        a, b, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
    assert "tma" in compiled.metadata
    assert not torch.isnan(c).any() and _error(c, a.float() @ b.float()) < 1e-2
    fresh = _randn(k, n, dtype=getattr(torch, dtype))  # the same launch again with another B: a new map
    tut.descriptor_matmul_kernel[(kl.cdiv(m, bm), kl.cdiv(n, bn))](
        a, fresh, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
    assert _error(c, a.float() @ fresh.float()) < 1e-2


@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 64, 8)], ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("programs", [7, 132])
def test_descriptor_persistent_matmul_through_tma(config, programs):
    """Tutorial 09's descriptor kernel: each program's inner loop runs once per tile, the ring's
    barriers made and released around each run (phases start over)."""
    bm, bn, bk, warps = config
    m, n, k = 1000, 784, 336
    a, b_t = _randn(m, k, dtype=torch.float16), _randn(n, k, dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    compiled = tut.matmul_descriptor_persistent_kernel[(programs,)](
        a, b_t, c, m, n, k, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, NUM_SMS=programs,
        num_warps=warps, num_stages=3)
    assert "tma" in compiled.metadata
    assert not torch.isnan(c).any() and _error(c, a.float() @ b_t.float().t()) < 1e-2


@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 64, 8), (64, 64, 64, 4)],
                         ids=lambda c: "x".join(map(str, c)))
def test_host_descriptor_matmul_through_tma(config):
    """Triton's tutorial-09 form: TensorDescriptors made on the host (kernellab.tools); their
    parts are launch values, so the tensor maps are encoded at launch and TMA moves every block."""
    from kernellab.tools.tensor_descriptor import TensorDescriptor

    bm, bn, bk, warps = config
    m, n, k = 1000, 784, 336
    a, b_t = _randn(m, k, dtype=torch.float16), _randn(n, k, dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    descs = (TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b_t, [bn, bk]),
             TensorDescriptor.from_tensor(c, [bm, bn]))
    compiled = tut.matmul_host_descriptor_kernel[(kl.cdiv(m, bm), kl.cdiv(n, bn))](
        *descs, m, n, k, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, num_warps=warps, num_stages=3)
    assert len(compiled.metadata["tma"]) == 3
    assert not torch.isnan(c).any() and _error(c, a.float() @ b_t.float().t()) < 1e-2


@pytest.mark.parametrize("dtype", ["float16", "float8_e4m3fn"])
@pytest.mark.parametrize("config", [(128, 128, 64, 4), (64, 64, 64, 2), (128, 128, 64, 8)],
                         ids=lambda c: "x".join(map(str, c)))
def test_matmul_with_a_transposed_tile(config, dtype):
    """tl.dot(a, tl.trans(b)) with B stored N x K: the ring slot is read as its transpose."""
    bm, bn, bk, warps = config
    m, n, k = 520, 392, 264
    a = (_randn(m, k, dtype=torch.float32) * 0.5).to(getattr(torch, dtype))
    b = (_randn(n, k, dtype=torch.float32) * 0.5).to(getattr(torch, dtype))
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    tut.matmul_bt_kernel[(kl.cdiv(m, bm), kl.cdiv(n, bn))](a, b, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                                             num_warps=warps, num_stages=3)
    assert _error(c, a.float() @ b.float().t()) < 1e-2


@pytest.mark.parametrize("warps", [4, 8])
def test_dot_with_an_f16_accumulator(warps):
    a, b = _randn(128, 64, dtype=torch.float16), _randn(64, 64, dtype=torch.float16)
    c = torch.full((128, 64), float("nan"), device="cuda", dtype=torch.float16)
    tut.dot_f16_out_kernel[(1,)](a, b, c, BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, num_warps=warps)
    assert _error(c, a.float() @ b.float()) < 1e-2


def test_matmul_tf32_f32_inputs():
    m, n, k = 384, 256, 200
    a, b = _randn(m, k, dtype=torch.float32), _randn(k, n, dtype=torch.float32)
    c = _matmul(a, b, (128, 128, 32, 4))
    assert _error(c, a @ b) < 5e-3


@pytest.mark.parametrize("config", [(128, 64, 8), (64, 64, 4)], ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_attention_forward(head_dim, causal, config):
    block_m, block_n, warps = config
    z, h, n = 2, 3, 512
    q, k, v = (_randn(z, h, n, head_dim, dtype=torch.float16) for _ in range(3))
    scale = 0.5
    o = torch.full_like(q, float("nan"))
    m = torch.full((z, h, n), float("nan"), device="cuda")
    grid = (kl.cdiv(n, block_m), z * h, 1)
    tut._attn_fwd[grid](q, k, v, scale, m, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), z, h, N_CTX=n,
                        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, STAGE=3 if causal else 1,
                        num_warps=warps, num_stages=3)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                           scale=scale)
    assert not torch.isnan(o).any()
    assert _error(o, ref) < 1e-2
