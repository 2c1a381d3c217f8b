"""What the H200 measurements of 2026-12-04 found in kernellab's sm_90a code, held by tests without a
GPU (ptxas and nvdisasm only), plus the GPU checks of the conversions they changed:

* a scalar ``cvt.rn.f16.f32`` reading a wgmma accumulator makes ptxas serialize every wgmma of the
  kernel (C7514): the matmul with a bf16 output (f32 -> f16 -> bf16) ran 441 against Triton's 557
  TFLOP/s; f32 -> f16/bf16 now converts two registers at a time;
* ``mul.wide.s32`` offsets let ptxas rebuild each copy's address with an ``IMAD.WIDE``, whose
  dispatch stalls held the cp.async matmul at 0.90x Triton; the offsets are now kept 64-bit;
* the causal attention at 8 warps used 139 registers (one CTA per SM); a tensor-core kernel just
  over an occupancy cliff is assembled again under the cap that fits one more CTA.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernels import tutorials as tut

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import occupancy, ptxas, sass
from kernellab.backends.cuda.ptx import widen_offsets

from .test_tensor_core_codegen import D16, attention, matmul

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
needs_nvdisasm = pytest.mark.skipif(sass.find_disassembler() is None, reason="nvdisasm is not installed")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setenv("KERNELLAB_CACHE", "0")


def _matmul(out="fp16", dtype="fp16", bm=128, bn=128, bk=64, warps=4):
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{out}", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    constexprs = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn,
                  "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
    return kl.compile(tut.matmul_kernel, signature=signature, constexprs=constexprs, target="cuda:sm_90a",
                      arg_attrs={k: D16 for k in signature}, num_warps=warps, num_stages=3)


@needs_ptxas
@needs_nvdisasm
@pytest.mark.parametrize("bm, bn, bk, warps", [(128, 128, 64, 4), (128, 256, 32, 8)])
def test_a_bf16_output_keeps_the_wgmma_chain(bm, bn, bk, warps):
    kernel = _matmul("bf16", "bf16", bm, bn, bk, warps)
    ptx, code = kernel.asm["ptx"], kernel.asm["sass"]
    assert "ptxas_warnings" not in kernel.metadata
    assert re.search(r"cvt\.rn\.f16x2\.f32", ptx) and not re.search(r"cvt\.rn\.f16\.f32", ptx)
    assert len(re.findall(r"WARPGROUP\.ARRIVE", code)) == 1 and len(re.findall(r"HGMMA[^;]*gsb0", code)) == 1


def test_ptxas_performance_warnings_are_read_from_its_log():
    log = ("ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
           "to non wgmma instructions reading accumulator registers\nptxas info    : Used 198 registers\n")
    assert ptxas.performance_warnings(log) == [
        "(C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma "
        "instructions reading accumulator registers"]
    assert ptxas.performance_warnings("ptxas info    : Used 40 registers\n") == []


def test_widen_offsets_spells_power_of_two_offsets_as_a_64_bit_shift():
    ptx = "\tmul.wide.s32 \t%rd10, %r172, 2;\n\tmul.wide.s32 \t%rd11, %r3, 16;\n\tmul.wide.s32 \t%rd12, %r4, 12;\n"
    assert widen_offsets(ptx) == ("\tcvt.s64.s32 \t%rd10, %r172;\n\tshl.b64 \t%rd10, %rd10, 1;\n"
                                  "\tcvt.s64.s32 \t%rd11, %r3;\n\tshl.b64 \t%rd11, %rd11, 4;\n"
                                  "\tmul.wide.s32 \t%rd12, %r4, 12;\n")


@needs_ptxas
@needs_nvdisasm
@pytest.mark.parametrize("warps", [4, 8])
def test_the_copies_add_64_bit_offsets_without_imad_wide(warps):
    kernel = _matmul(warps=warps)
    assert not re.search(r"mul\.wide\.s32 \t%rd\d+, %r\d+, 2;", kernel.asm["ptx"])
    loop = sass.hot_loop(kernel.asm["sass"])
    copies = [line for line in loop if "LDGSTS" in line]
    assert len(copies) == 16 * 4 // warps and not [line for line in loop if "IMAD.WIDE" in line]


@needs_ptxas
def test_a_tensor_core_kernel_over_an_occupancy_cliff_is_capped(monkeypatch):
    """The tutorial matmul at 64x256x32, 4 warps, uses 188 registers (2 CTAs of 128 threads per SM);
    168 fit 3, within the cap's squeeze, and ptxas meets them without spilling."""
    capped = matmul("fp16", 64, 256, 32, warps=4, stages=3)
    cap = capped.metadata["register_cap"]
    assert cap["cap"] == 168 and cap["used"] and cap["ctas_per_sm"] == [2, 3]
    assert capped.metadata["registers"] <= 168 < cap["registers"][0] and capped.metadata["spills"] == 0
    assert ".maxnreg 168" in capped.asm["ptx"]
    monkeypatch.setenv("KERNELLAB_CUDA_REGISTER_CAP", "0")
    free = matmul("fp16", 64, 256, 32, warps=4, stages=3)
    assert "register_cap" not in free.metadata and free.metadata["registers"] > 168
    assert ".maxnreg" not in free.asm["ptx"]


@needs_ptxas
def test_a_cap_ptxas_cannot_meet_keeps_the_kernel_as_it_was(monkeypatch):
    """ptxas refuses (C7602) a limit below what one instruction needs; the uncapped code stays."""
    monkeypatch.setattr(occupancy, "register_cap", lambda *args: 24)
    kernel = attention(64, stage=1, warps=8, n_ctx=1024)
    assert kernel.metadata["register_cap"]["used"] is False
    assert ".maxnreg" not in kernel.asm["ptx"] and kernel.metadata["registers"] > 24


def test_occupancy_arithmetic():
    assert occupancy.ctas_by_registers(139, 256) == 1 and occupancy.ctas_by_registers(128, 256) == 2
    assert occupancy.register_cap(139, 256, 81920, "sm_90a") == 128
    assert occupancy.register_cap(210, 256, 163840, "sm_90a") is None  # shared memory already stops a 2nd CTA
    assert occupancy.register_cap(199, 128, 98304, "sm_90a") is None  # 96 KB rings: 2 CTAs by shared memory
    assert occupancy.register_cap(160, 256, 0, "sm_90a") is None  # 128 would take more than 15%


@kl.jit
def _narrow(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(out_ptr.dtype.element_ty), mask=mask)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_pairwise_narrowing_keeps_each_element_in_place_on_the_gpu(dtype):
    """Distinct values (halves of each pair differ), overflow, NaN and a masked tail."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    n = 4099
    x = torch.randn(n, device="cuda") * 1000
    x[:8] = torch.tensor([1.0, -2.5, 65520.0, -1e6, float("nan"), float("inf"), 3.14159, 1e-8])
    out = torch.full((n,), float("nan"), device="cuda", dtype=getattr(torch, dtype))
    _narrow[(kl.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    expected = x.to(getattr(torch, dtype))
    np.testing.assert_array_equal(out.float().cpu().numpy(), expected.float().cpu().numpy())
