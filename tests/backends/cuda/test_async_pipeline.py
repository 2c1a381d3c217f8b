"""The asynchronous pipelining pass (``async_pipeline.py``) keeps what a kernel computes: the
rewritten Tile IR (rings, prologue copies, slots turning over, copies ahead of the loop) runs in
the interpreter through the ``gpu.*`` ops' references (``ir_override`` with its ``.tile``) and
matches numpy, on trip counts shorter than, equal to and longer than the pipeline, ragged K,
block pointers, tensor descriptors and transposed tiles; and it leaves alone the loops it must."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
from kernellab.backends.cuda.async_pipeline import pipeline_async
from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module
from tests.kernels import tutorials

D16 = {"divisibility": 16}
MATMUL = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
          "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}


def pipelined(kernel, signature, constexprs, tmp_path, stages=3, warps=4, arch="sm_90a", attrs=None):
    """The kernel's Tile IR after the pass, as a ``.tile`` file, and how many loads became rings."""
    compiled = kl.compile(kernel, signature=signature, constexprs=constexprs, target="interpret",
                          arg_attrs=attrs if attrs is not None else {k: D16 for k in signature})
    module = parse_module(compiled.asm["tile"])
    count = pipeline_async(module, stages, warps, arch)
    text = print_module(module)
    assert print_module(parse_module(text)) == text  # the pipelined stage round-trips
    path = tmp_path / f"{kernel.__name__}-{stages}.tile"
    path.write_text(text)
    return str(path), count, text


@pytest.mark.parametrize("k_size", [0, 16, 32, 96, 200])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_pipelined_matmul_computes_the_product(rng, tmp_path, monkeypatch, k_size, stages):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    constexprs = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64,
                  "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
    path, count, text = pipelined(tutorials.matmul_kernel, MATMUL, constexprs, tmp_path, stages)
    assert count == 2 and text.count("gpu.async_copy") == 2 * stages  # prologue (stages - 1) + loop
    m, n = 64, 64
    a = rng.standard_normal((m, k_size)).astype(np.float16)
    b = rng.standard_normal((k_size, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    tutorials.matmul_kernel[(1,)](a, b, c, m, n, k_size, k_size or 32, 1, n, 1, n, 1, BLOCK_SIZE_M=64,
                                  BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="",
                                  ir_override=path)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-2, atol=5e-2)


def test_pipelined_attention_matches_numpy(rng, tmp_path, monkeypatch):
    """Block-pointer loads of K and V through rings, in both loops of the causal kernel."""
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    n, d, block = 128, 32, 32
    signature = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32", "Out": "*fp16"}
    constexprs = {"N_CTX": n, "HEAD_DIM": d, "BLOCK_M": block, "BLOCK_N": block, "STAGE": 3}
    for tensor, dims in (("q", "zhmk"), ("k", "zhnk"), ("v", "zhkn"), ("o", "zhmn")):
        for i, dim in enumerate(dims):
            if i == 3:
                constexprs[f"stride_{tensor}{dim}"] = 1
            else:
                signature[f"stride_{tensor}{dim}"] = "i32"
    signature["Z"] = signature["H"] = "i32"
    path, count, _ = pipelined(tutorials._attn_fwd, signature, constexprs, tmp_path, warps=4,
                               attrs={k: D16 for k in signature if k != "sm_scale"})
    assert count == 4
    z, h = 2, 2  # not 1: an int argument equal to 1 would become a constant of another specialization
    q, k, v = (rng.standard_normal((z, h, n, d)).astype(np.float16) for _ in range(3))
    o = np.full_like(q, np.nan)
    m = np.full((z, h, n), np.nan, np.float32)
    strides = [s // 2 for s in q.strides]
    tutorials._attn_fwd[(n // block, z * h, 1)](q, k, v, 0.5, m, o, *strides, *strides, *strides, *strides, z, h,
                                                 N_CTX=n, HEAD_DIM=d, BLOCK_M=block, BLOCK_N=block, STAGE=3,
                                                 ir_override=path)
    scores = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) * 0.5
    scores[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = -np.inf
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    want = np.einsum("zhmn,zhnd->zhmd", p / p.sum(axis=-1, keepdims=True), v.astype(np.float64))
    np.testing.assert_allclose(o.astype(np.float64), want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("kernel, b_rows", [("descriptor_matmul_kernel", "k"), ("matmul_bt_kernel", "n")])
def test_pipelined_descriptor_and_transposed_loads(rng, tmp_path, monkeypatch, kernel, b_rows):
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    fn = getattr(tutorials, kernel)
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
    path, count, _ = pipelined(fn, signature, constexprs, tmp_path, attrs={})
    assert count == 2
    m, n, k = 100, 72, 80
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n) if b_rows == "k" else (n, k)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    fn[(kl.cdiv(m, 64), kl.cdiv(n, 64))](a, b, c, m, n, k, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, ir_override=path)
    want = a.astype(np.float64) @ (b.astype(np.float64) if b_rows == "k" else b.astype(np.float64).T)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-2, atol=5e-2)


def test_loops_that_do_not_qualify_are_left_alone(tmp_path):
    """Loads with a non-zero ``other``, loops that store, a dot on CUDA cores: no rings."""
    signature = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    constexprs = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64,
                  "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
    _, count, _ = pipelined(tutorials.matmul_kernel, signature, constexprs, tmp_path, arch="sm_90")
    assert count == 0  # f32 inputs (tf32) have no tensor-core engine without sm_90a's wgmma: FMA


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_tensor_memory_accelerator_rings_compute_the_product(rng, tmp_path, monkeypatch, stages):
    """Descriptors made from the kernel's parameters, with 16-byte facts: TMA fills the rings
    (one expect and one copy per operand per stage, a barrier wait per iteration, the barriers
    made before the loop and released after it, no cp.async), and the product is still right."""
    monkeypatch.setenv("KERNELLAB_TARGET", "interpret")
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
    path, count, text = pipelined(tutorials.descriptor_matmul_kernel, signature, constexprs, tmp_path, stages)
    assert count == 2 and "gpu.async_copy" not in text
    assert text.count("gpu.tma_copy") == 2 * stages and text.count("gpu.tma_expect") == stages
    assert text.count("gpu.tma_wait") == 1 and text.count("gpu.tma_barriers") == 1 == text.count("gpu.tma_release")
    m, n, k = 100, 72, 80  # ragged in every dim: the copies' out-of-bounds parts are zeros
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    tutorials.descriptor_matmul_kernel[(kl.cdiv(m, 64), kl.cdiv(n, 64))](a, b, c, m, n, k, BLOCK_M=64, BLOCK_N=64,
                                                                         BLOCK_K=32, ir_override=path)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-2, atol=5e-2)


def test_tensor_memory_accelerator_needs_what_the_launch_knows(tmp_path):
    """Without 16-byte facts for the strides, or off sm_90, the rings keep cp.async."""
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
    unaligned = {"a_ptr": D16, "b_ptr": D16, "c_ptr": D16}
    for attrs, arch in ((unaligned, "sm_90a"), (None, "sm_80")):
        _, count, text = pipelined(tutorials.descriptor_matmul_kernel, signature, constexprs, tmp_path, arch=arch,
                                   attrs=attrs)
        assert count == 2 and "gpu.tma_copy" not in text and "gpu.async_copy" in text
