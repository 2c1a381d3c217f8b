"""Hopper code without a GPU: the tutorial matmul and attention compiled for ``cuda:sm_90a`` run
their dots on ``wgmma.mma_async`` with operands streamed through ``cp.async`` rings in swizzled
shared memory (ptxas assembles them: the resources in the metadata come from it); ``tile.gpu``
shows the rings, copies and waits, linked to the source lines of the loads and dots."""

from __future__ import annotations

import re

import pytest

import kernellab as kl
from kernellab.backends.cuda import ptxas, sass
from tests.kernels import tutorials

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
needs_nvdisasm = pytest.mark.skipif(sass.find_disassembler() is None, reason="nvdisasm is not installed")
D16 = {"divisibility": 16}


def matmul(dtype="fp16", bm=128, bn=128, bk=64, warps=4, stages=3, b_k_major=False, arch="sm_90a"):
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_cm": "i32"}
    constexprs = {"stride_ak": 1, "stride_cn": 1, "BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                  "GROUP_SIZE_M": 8, "ACTIVATION": ""}
    if b_k_major:
        signature["stride_bn"], constexprs["stride_bk"] = "i32", 1
    else:
        signature["stride_bk"], constexprs["stride_bn"] = "i32", 1
    return kl.compile(tutorials.matmul_kernel, signature=signature, constexprs=constexprs, target=f"cuda:{arch}",
                      arg_attrs={k: D16 for k in signature}, num_warps=warps, num_stages=stages)


def attention(head_dim=64, block_m=128, block_n=64, warps=8, stage=1, n_ctx=1024):
    signature = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32", "Out": "*fp16"}
    constexprs = {"N_CTX": n_ctx, "HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n, "STAGE": stage}
    for tensor, dims in (("q", "zhmk"), ("k", "zhnk"), ("v", "zhkn"), ("o", "zhmn")):
        for i, dim in enumerate(dims):
            name = f"stride_{tensor}{dim}"
            if i == 3:
                constexprs[name] = 1
            else:
                signature[name] = "i32"
    signature["Z"] = signature["H"] = "i32"
    return kl.compile(tutorials._attn_fwd, signature=signature, constexprs=constexprs, target="cuda:sm_90a",
                      arg_attrs={k: D16 for k in signature if k != "sm_scale"}, num_warps=warps, num_stages=3)


def count(ptx: str, pattern: str) -> int:
    return len(re.findall(pattern, ptx))


@needs_ptxas
@pytest.mark.parametrize("dtype, kind", [("fp16", "f16"), ("bf16", "bf16")])
def test_matmul_runs_on_wgmma_fed_by_cp_async(dtype, kind):
    kernel = matmul(dtype)
    ptx = kernel.asm["ptx"]
    # two 64-row blocks (one warpgroup, M = 128) x four k16 steps; B is N-contiguous: transposed
    assert count(ptx, rf"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.{kind}\.{kind} .*, 0, 1;") == 8
    assert count(ptx, r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, %p\d+;") == 3 * 16
    assert "wgmma.wait_group.sync.aligned 1;" in ptx  # one dot stays in flight across iterations
    assert "cp.async.wait_group 1;" in ptx and "fence.proxy.async" not in ptx  # as Triton (see _async_wait)
    assert kernel.metadata["pipelining"] == {"kind": "async", "loads": 2, "stages": 3, "used": True}
    assert kernel.metadata["spills"] == 0 and kernel.metadata["registers"] > 128


@needs_ptxas
def test_fp8_matmul_runs_on_wgmma_k32():
    ptx = matmul("fp8e4nv", 128, 256, 64, 8, b_k_major=True).asm["ptx"]
    assert count(ptx, r"wgmma\.mma_async\.sync\.aligned\.m64n256k32\.f32\.e4m3\.e4m3 ") == 2


@needs_ptxas
def test_matmul_tile_gpu_shows_the_rings():
    text = matmul().asm["tile.gpu"]
    assert text.count("gpu.shared_buffer") == 2
    assert re.search(r"gpu\.shared_buffer \{buffer = 0, stages = 3, operand = 0, major = 1, engine = \"wgmma\", "
                     r"swizzle = 128, type = tile<128x64xf16>\}", text)
    loop = text[text.index("= for("):]
    assert loop.index("gpu.async_wait {pending = 1}") < loop.index("gpu.shared_read") < loop.index(" = dot(")
    assert loop.index(" = dot(") < loop.index("gpu.dot_wait") < loop.index("gpu.async_copy")
    dot_line = next(line for line in text.splitlines() if " = dot(" in line)
    assert "#mma<version=3, instr=64x128" in text and "loc(#f0:122:" in dot_line  # tutorials.py line of tl.dot


@needs_ptxas
def test_wgmma_line_maps_to_the_dot_line():
    kernel = matmul()
    ptx_lines = kernel.asm["ptx"].splitlines()
    current = None
    lines = set()
    for line in ptx_lines:
        found = re.match(r"\s*\.loc\s+\d+\s+(\d+)", line)
        if found:
            current = int(found.group(1))
        elif "wgmma.mma_async" in line:
            lines.add(current)
    assert lines == {122}


@needs_ptxas
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("stage", [1, 3])
def test_attention_runs_on_wgmma(head_dim, stage):
    kernel = attention(head_dim, stage=stage)
    ptx = kernel.asm["ptx"]
    loops = 1 if stage == 1 else 2
    # per loop: q @ k (A = q from shared memory, K = head_dim) and p @ v (A = p from registers, K = BLOCK_N)
    steps = head_dim // 16 + 64 // 16
    assert count(ptx, r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16 ") == loops * steps
    assert count(ptx, r"cp\.async\.cg\.shared\.global") > 0
    assert kernel.metadata["pipelining"]["loads"] == 2 * loops
    assert kernel.metadata["spills"] == 0


@needs_ptxas
def test_sm80_matmul_uses_cp_async_and_mma_sync():
    ptx = matmul(arch="sm_80", bm=64, bn=64, bk=32).asm["ptx"]
    assert "mma.sync.aligned.m16n8k16" in ptx and "cp.async.cg.shared.global" in ptx and "wgmma" not in ptx


def _descriptor_matmul(attrs, arch="sm_90a"):
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    return kl.compile(tutorials.descriptor_matmul_kernel, signature=signature,
                      constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, target=f"cuda:{arch}",
                      arg_attrs={k: D16 for k in signature if k in attrs}, num_warps=4, num_stages=3)


@needs_ptxas
def test_descriptor_loads_stream_through_tma_rings():
    """Descriptors made from the kernel's parameters, strides known to be 16-byte multiples: the
    tensor memory accelerator fills the rings (per stage one expect and a copy per 128-byte
    panel: A's 64 columns are one, B's 128 two), every thread waits on the slot's mbarrier, and
    the tensor maps are hidden ``__grid_constant__`` parameters the launch encodes."""
    kernel = _descriptor_matmul({"a_ptr", "b_ptr", "c_ptr", "M", "N", "K"})
    ptx = kernel.asm["ptx"]
    bulk = r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
    assert count(ptx, r"wgmma\.mma_async") == 8 and count(ptx, bulk) == 3 * 3
    assert count(ptx, r"cp\.async\.cg\.shared\.global") == 0 and count(ptx, r"mbarrier\.try_wait\.parity") == 1
    assert count(ptx, r"\.param \.align 64 \.b8 \w+\[128\]") == 3 and count(ptx, r"cvta\.param") == 3
    maps = kernel.metadata["tma"]
    assert [(m["base"], m["box"], m["swizzle"]) for m in maps] == [(0, [128, 64], 3), (1, [64, 64], 3),
                                                                   (2, [128, 64], 3)]
    assert maps[0]["dims"] == [["arg", 3], ["arg", 5]] and maps[0]["strides"] == [["arg", 5], ["const", 1]]
    assert kernel.metadata["pipelining"]["loads"] == 2 and kernel.metadata["spills"] == 0


@needs_ptxas
@needs_nvdisasm
def test_descriptor_stores_go_through_the_tma():
    """The C block of a descriptor the launch encodes: the accumulator's registers go, in their
    own layout and two halves at a time, into a swizzled staging slot, which thread 0 stores
    with one bulk tensor copy per 128-byte panel and waits on before the slot is reused; no
    thread stores to global memory itself."""
    kernel = _descriptor_matmul({"a_ptr", "b_ptr", "c_ptr", "M", "N", "K"})
    ptx, code = kernel.asm["ptx"], kernel.asm["sass"]
    assert count(ptx, r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group") == 2
    assert "cp.async.bulk.wait_group.read 0;" in ptx and count(ptx, r"\bst\.global") == 0
    assert count(code, r"\bUTMASTG\b") == 2 and count(code, r"\bSTG\b") == 0 and count(code, r"\bLDS\b") == 0


@needs_ptxas
@pytest.mark.parametrize("attrs, arch", [({"a_ptr", "b_ptr", "c_ptr"}, "sm_90a"), ({"a_ptr", "b_ptr", "N", "K"},
                                                                                   "sm_80")])
def test_descriptor_loads_without_tma_stream_through_cp_async(attrs, arch):
    """Strides not known to be 16-byte multiples (then even the vectors are narrow: element copies
    through registers), or no TMA on the target (sm_80: 16-byte cp.async): rings all the same."""
    kernel = _descriptor_matmul(attrs, arch)
    ptx = kernel.asm["ptx"]
    assert "cp.async.bulk" not in ptx and "tma" not in kernel.metadata
    assert kernel.metadata["pipelining"]["loads"] == 2 and "cp.async.wait_group" in ptx
    assert count(ptx, r"cp\.async\.cg\.shared\.global") == (48 if arch == "sm_80" else 0)


@needs_ptxas
@pytest.mark.parametrize("arch, instruction", [("sm_90a", "wgmma.mma_async"), ("sm_80", "mma.sync.aligned")])
def test_an_f16_accumulator_stays_on_tensor_cores(arch, instruction):
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16"}
    kernel = kl.compile(tutorials.dot_f16_out_kernel, signature=signature,
                        constexprs={"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}, target=f"cuda:{arch}",
                        arg_attrs={k: D16 for k in signature}, num_warps=4)
    assert instruction in kernel.asm["ptx"]


@needs_ptxas
@pytest.mark.parametrize("dtype, pattern", [("fp16", r"m64n128k16\.f32\.f16\.f16 .*, 0, 0;"),
                                            ("fp8e4nv", r"m64n128k32\.f32\.e4m3\.e4m3 ")])
def test_a_transposed_tile_is_a_view_of_its_slot(dtype, pattern):
    """tl.dot(a, tl.trans(b)) with b's tiles K-contiguous: B is read K-major (no transpose bit),
    straight from its ring (no staging through registers)."""
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    kernel = kl.compile(tutorials.matmul_bt_kernel, signature=signature,
                        constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, target="cuda:sm_90a",
                        arg_attrs={k: D16 for k in signature}, num_warps=4, num_stages=3)
    ptx = kernel.asm["ptx"]
    assert count(ptx, r"wgmma\.mma_async\.sync\.aligned\." + pattern) > 0
    assert kernel.metadata["pipelining"]["loads"] == 2




@needs_ptxas
@needs_nvdisasm
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("stage", [1, 3])
def test_attention_issues_each_dot_as_one_chain_of_wgmma(head_dim, stage):
    """P's registers are written before ``wgmma.fence`` (they pass through it).  Before, LLVM sank
    their conversion to f16 next to each P @ V instruction, past the fence, and ptxas put a
    ``WARPGROUP.ARRIVE`` before each of the four and waited for each alone (ptxas 13.0 says so as
    advisory C7519; 13.5 does it silently): one arrive and one wait per dot now, as Triton's."""
    code = attention(head_dim, stage=stage, n_ctx=4096).asm["sass"]
    loops = 1 if stage == 1 else 2
    assert count(code, r"WARPGROUP\.ARRIVE") == 2 * loops
    assert count(code, r"HGMMA[^;]*gsb0") == 2 * loops


@needs_ptxas
@pytest.mark.parametrize("stage", [1, 3])
def test_attention_keeps_p_at_v_in_flight_and_q_in_shared_memory(stage):
    """As Triton schedules it: each loop's P @ V stays in flight over the back edge (the next
    iteration's Q @ K wait completes it), and Q, made before the loops, is written to shared
    memory once and read by descriptor instead of holding registers through every iteration."""
    kernel = attention(64, stage=stage)
    tile = kernel.asm["tile.gpu"]
    loops = 1 if stage == 1 else 2
    assert count(tile, r"gpu\.dot_wait\(%[\w.]+\) \{pending = 1\}") == loops
    ptx = kernel.asm["ptx"]
    q_from_shared = r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 \{[^}]*\}, %rd\d+, %rd\d+"
    assert count(ptx, q_from_shared) == loops * 64 // 16


def _attention_with(fp_fusion: bool):
    signature = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32", "Out": "*fp16"}
    constexprs = {"N_CTX": 1024, "HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": 1}
    for tensor, dims in (("q", "zhmk"), ("k", "zhnk"), ("v", "zhkn"), ("o", "zhmn")):
        for dim in dims:
            name = f"stride_{tensor}{dim}"
            if dim in "kn" and dim == dims[-1]:
                constexprs[name] = 1
            else:
                signature[name] = "i32"
    signature["Z"] = signature["H"] = "i32"
    return kl.compile(tutorials._attn_fwd, signature=signature, constexprs=constexprs, target="cuda:sm_90a",
                      arg_attrs={k: D16 for k in signature if k != "sm_scale"}, num_warps=8, num_stages=3,
                      enable_fp_fusion=fp_fusion).asm["ptx"]


@needs_ptxas
def test_fp_fusion_contracts_the_softmax_into_fma_as_triton_does():
    """``enable_fp_fusion`` (on by default, as in Triton): ``qk * scale - m`` is one fma;
    ``enable_fp_fusion=False`` keeps every multiply and add rounded on its own.  ``tl.exp2`` is
    ``ex2.approx.ftz`` either way (Triton's: libdevice's exp2f in ftz mode)."""
    fused, plain = _attention_with(True), _attention_with(False)
    assert count(fused, r"\bfma\.rn\.f32") >= 32 and count(plain, r"\bfma\.rn\.f32") == 0
    assert count(plain, r"\bmul\.rn\.f32") > count(fused, r"\bmul\.rn\.f32")
    for ptx in (fused, plain):
        assert count(ptx, r"ex2\.approx\.ftz\.f32") >= 32 and count(ptx, r"ex2\.approx\.f32") == 0


@needs_ptxas
def test_copies_take_their_mask_as_the_ignore_src_predicate():
    ptx = matmul().asm["ptx"]
    assert count(ptx, r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, %p\d+;") == 3 * 16
    assert count(ptx, r"selp\.b32\s+%r\d+, 16, 0") == 0  # no src-size operands left


@needs_ptxas
@needs_nvdisasm
@pytest.mark.parametrize("bm, bn, bk, warps, triton_loop", [(128, 128, 64, 4, 131), (128, 128, 64, 8, 103),
                                                            (128, 256, 64, 8, 117)])
def test_matmul_main_loop_is_no_longer_than_tritons(bm, bn, bk, warps, triton_loop):
    """The issue slots of the hot loop (per warp and iteration) decide how much of the tensor
    cores' time is left for the copies and the address arithmetic: each thread's copies share one
    address register plus immediates, each wgmma descriptor is a base plus a constant, the masks
    are copy predicates, and the warpgroup's values are uniform.  ``triton_loop``: Triton 3.6's
    loop for the same kernel and config (bench/offline_sass.py --matmul-configs, ptxas 13)."""
    code = matmul(bm=bm, bn=bn, bk=bk, warps=warps).asm["sass"]
    loop = sass.hot_loop(code)
    assert count("\n".join(loop), r"HGMMA") == (bm // 64 // max(1, warps // 4)) * (bk // 16) * max(1, bn // 256)
    assert len(loop) <= triton_loop
    assert not [x for x in loop if re.search(r"\bR2UR\b", x)]
