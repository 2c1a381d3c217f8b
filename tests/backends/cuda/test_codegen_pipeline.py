"""Software pipelining of dot operand loads (``kernellab/backends/cuda/pipeline.py``).

The rewrite is checked for what it must keep — the kernel's results — by running the pipelined
Tile IR on the CPU target (``ir_override`` with the rewritten ``.tile`` text), on shapes where
the loop runs several times, once, or not at all; and for what it must change — the next
iteration's loads issued before the dots — on the printed ``tile.gpu`` stage."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab as kl
from kernellab.backends.cuda import ptxas
from kernellab.backends.cuda.pipeline import pipeline_module
from kernellab.ir.parser import parse_module
from kernellab.ir.printer import print_module
from tests.kernels import tutorials

D16 = {"divisibility": 16}
MATMUL_SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                    "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}


def matmul_constexprs(bm=64, bn=64, bk=32):
    return {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn,
            "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8, "ACTIVATION": ""}


def pipelined_tile(kernel, signature, constexprs, tmp_path, num_warps=4) -> tuple[str, int]:
    """The kernel's Tile IR, pipelined as the CUDA backend does, written to a ``.tile`` file."""
    compiled = kl.compile(kernel, signature=signature, constexprs=constexprs, target="cpu",
                          arg_attrs={k: D16 for k in signature})
    module = parse_module(compiled.asm["tile"])
    count = pipeline_module(module, 3, num_warps)
    path = tmp_path / f"{kernel.__name__}.tile"
    path.write_text(print_module(module))
    return str(path), count


@pytest.mark.parametrize("k_size", [96, 32, 16])
def test_pipelined_matmul_computes_the_same_product(rng, tmp_path, monkeypatch, k_size):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    m, n = 64, 64
    path, count = pipelined_tile(tutorials.matmul_kernel, MATMUL_SIGNATURE, matmul_constexprs(), tmp_path)
    assert count == 2
    a = rng.standard_normal((m, k_size)).astype(np.float16)
    b = rng.standard_normal((k_size, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    tutorials.matmul_kernel[(1,)](a, b, c, m, n, k_size, k_size, 1, n, 1, n, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                  BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", ir_override=path)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-3)


ATTENTION_SIGNATURE = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32", "Out": "*fp16",
                       "stride_qz": "i32", "stride_qh": "i32", "stride_qm": "i32", "stride_kz": "i32",
                       "stride_kh": "i32", "stride_kn": "i32", "stride_vz": "i32", "stride_vh": "i32",
                       "stride_vk": "i32", "stride_oz": "i32", "stride_oh": "i32", "stride_om": "i32", "Z": "i32",
                       "H": "i32"}


@pytest.mark.parametrize("causal", [False, True])
def test_pipelined_attention_guards_its_block_pointer_loads(rng, tmp_path, monkeypatch, causal):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    z, h, n, d, block = 2, 2, 64, 16, 16
    constexprs = {"stride_qk": 1, "stride_kk": 1, "stride_vn": 1, "stride_on": 1, "N_CTX": n, "HEAD_DIM": d,
                  "BLOCK_M": block, "BLOCK_N": block, "STAGE": 3 if causal else 1}
    path, count = pipelined_tile(tutorials._attn_fwd, ATTENTION_SIGNATURE, constexprs, tmp_path)
    assert count == (4 if causal else 2)  # K and V in each inner loop
    q, k, v = (rng.standard_normal((z, h, n, d)).astype(np.float16) for _ in range(3))
    o = np.full((z, h, n, d), np.nan, np.float16)
    m = np.full((z, h, n), np.nan, np.float32)
    strides = [s // 2 for t in (q, k, v, o) for s in t.strides]
    meta = {key: value for key, value in constexprs.items() if not key.startswith("stride")}
    tutorials._attn_fwd[(n // block, z * h, 1)](q, k, v, 0.5, m, o, *strides, z, h, ir_override=path, **meta)
    np.testing.assert_allclose(o.astype(np.float64), tutorials.ref_attention(q, k, v, causal, 0.5), rtol=2e-2,
                               atol=2e-2)


needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")


def compile_matmul(bm, bn, bk, num_warps):
    return kl.compile(tutorials.matmul_kernel, signature=MATMUL_SIGNATURE, constexprs=matmul_constexprs(bm, bn, bk),
                      target="cuda:sm_90a", arg_attrs={k: D16 for k in MATMUL_SIGNATURE}, num_warps=num_warps)


@needs_ptxas
def test_the_next_iteration_is_loaded_before_the_dot(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CUDA_PIPELINE", "registers")
    kernel = compile_matmul(128, 128, 32, 4)
    assert kernel.metadata["pipelining"] == {"loads": 2, "ctas_per_sm": [2, 2], "used": True}
    text = kernel.asm["tile.gpu"]
    body = text[text.index("= for("):]
    assert body.index(" = load(") < body.index(" = dot(")
    loop_line = next(line for line in text.splitlines() if "= for(" in line)
    assert loop_line.count("tile<") >= 5  # accumulator, two pointer tiles, two prefetched tiles


@needs_ptxas
def test_no_prefetch_where_it_would_cost_occupancy(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CUDA_PIPELINE", "registers")
    assert "pipelining" not in compile_matmul(128, 128, 64, 4).metadata  # over the register budget
    report = compile_matmul(64, 128, 32, 4).metadata["pipelining"]  # 4 CTAs per SM would become 3
    assert report["used"] is False and report["ctas_per_sm"][1] < report["ctas_per_sm"][0]


def test_pipelining_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CUDA_PIPELINE", "0")
    assert "pipelining" not in compile_matmul(128, 128, 32, 4).metadata
