"""The tensor-core instruction each tl.dot gets on sm_90a, without a GPU (ptxas assembles every
kernel): int8 on ``wgmma ... s32.s8.s8`` or ``mma.sync ... m16n8k32 .satfinite.s32.s8.s8.s32``,
an fp16 ``out_dtype`` summed in fp16 (``.f16.f16.f16``), tf32 on ``mma.sync ... m16n8k8`` where
wgmma does not fit, the fp32 precisions tf32x3/bf16x3/bf16x6 as several tensor-core dots (the
``tile`` stage keeps the one dot the kernel wrote), and K loops of int8/tf32 operands streamed
through K-major rings.  The values are checked on the GPU by tests/language/test_dot_kinds.py."""

from __future__ import annotations

import re

import pytest

import kernellab as kl
import kernellab.language as tl
from kernellab.backends.cuda import ptxas

pytestmark = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
D16 = {"divisibility": 16}
SHARED_LIMIT = 232448  # bytes of shared memory a CTA may take on the H100/H200


@kl.jit
def single_dot(x_ptr, y_ptr, z_ptr, stride_yk, stride_yn, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               PRECISION: tl.constexpr, OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :])
    y = tl.load(y_ptr + rk[:, None] * stride_yk + rn[None, :] * stride_yn)
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], tl.dot(x, y, input_precision=PRECISION, out_dtype=OUT))


@kl.jit
def k_loop(a_ptr, b_ptr, c_ptr, K, stride_bn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           OUT: tl.constexpr, PRECISION: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), OUT)
    for k in tl.range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] + rn[None, :] * stride_bn)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


_POINTERS = {"int8": ("*i8", "*i32", tl.int32), "fp16": ("*fp16", "*fp16", tl.float16),
             "fp16-f32": ("*fp16", "*fp32", tl.float32), "fp32": ("*fp32", "*fp32", tl.float32)}


def compile_dot(kind: str, m: int, n: int, k: int, warps: int, precision: str = "ieee", b_k_major: bool = False):
    operand, result, out = _POINTERS[kind]
    signature = {"x_ptr": operand, "y_ptr": operand, "z_ptr": result}
    constexprs = {"M": m, "N": n, "K": k, "PRECISION": precision, "OUT": out}
    if b_k_major:
        signature["stride_yn"], constexprs["stride_yk"] = "i32", 1
    else:
        signature["stride_yk"], constexprs["stride_yn"] = "i32", 1
    kernel = kl.compile(single_dot, signature=signature, constexprs=constexprs, target="cuda:sm_90a",
                        arg_attrs={name: D16 for name in signature}, num_warps=warps)
    ptxas.assemble(kernel.asm["ptx"], "sm_90a")
    return kernel


def instructions(ptx: str) -> set[str]:
    return set(re.findall(r"(?:wgmma\.mma_async\.sync|mma\.sync)\.aligned\.\S+", ptx))


@pytest.mark.parametrize("kind, shape, b_k_major, instruction", [
    ("int8", (64, 128, 64, 4), False, "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8"),
    ("int8", (128, 64, 64, 8), True, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8"),
    ("int8", (32, 128, 64, 4), False, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),
    ("int8", (128, 128, 64, 2), True, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),
    ("fp16", (128, 16, 32, 4), False, "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16"),
    ("fp16", (32, 128, 64, 2), True, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
    ("fp16-f32", (32, 32, 32, 4), False, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ("fp32", (32, 32, 32, 4), False, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    ("fp32", (64, 64, 32, 1), True, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    ("fp32", (128, 64, 32, 4), False, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"),
])
def test_each_kind_takes_its_tensor_core_instruction(kind, shape, b_k_major, instruction):
    m, n, k, warps = shape
    ptx = compile_dot(kind, m, n, k, warps, "tf32" if kind == "fp32" else "ieee", b_k_major).asm["ptx"]
    assert instructions(ptx) == {instruction}


def test_an_fp16_out_dtype_sums_in_fp16_registers():
    """Two halves per accumulator register, no conversion to f32 around the instructions."""
    ptx = compile_dot("fp16", 64, 64, 64, 4).asm["ptx"]
    assert instructions(ptx) == {"wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16"}
    assert "cvt.f32.f16" not in ptx and "cvt.rn.f16.f32" not in ptx


@pytest.mark.parametrize("precision, dots, instruction", [
    ("tf32x3", 3, r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32"),
    ("bf16x3", 3, r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32"),
    ("bf16x6", 6, r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32"),
])
def test_split_precisions_are_several_tensor_core_dots(precision, dots, instruction):
    kernel = compile_dot("fp32", 32, 32, 32, 4, precision)
    assert kernel.asm["tile"].count(" = dot(") == 1 and f'input_precision = "{precision}"' in kernel.asm["tile"]
    assert kernel.asm["tile.gpu"].count(" = dot(") == dots
    assert all(re.search(instruction, line) for line in instructions(kernel.asm["ptx"]))


@pytest.mark.parametrize("precision", ["tf32x3", "bf16x6"])
def test_dots_staging_one_value_share_its_shared_memory(precision):
    """tf32x3 of a 128 x 128 A stages four tiles, not six (each split part once)."""
    kernel = compile_dot("fp32", 128, 64, 128, 8, precision, b_k_major=True)
    assert kernel.metadata["shared"] <= SHARED_LIMIT


@pytest.mark.parametrize("kind, block_m, warps, instruction", [
    ("int8", 32, 4, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),
    ("int8", 64, 4, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8"),
    ("fp32", 64, 2, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    ("fp16", 32, 4, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
])
def test_k_major_operands_stream_through_rings(kind, block_m, warps, instruction):
    operand, result, out = _POINTERS[kind]
    signature = {"a_ptr": operand, "b_ptr": operand, "c_ptr": result, "K": "i32", "stride_bn": "i32"}
    kernel = kl.compile(k_loop, signature=signature, target="cuda:sm_90a", num_warps=warps, num_stages=3,
                        constexprs={"BM": block_m, "BN": 64, "BK": 32, "OUT": out,
                                    "PRECISION": "tf32" if kind == "fp32" else "ieee"},
                        arg_attrs={name: D16 for name in signature})
    ptxas.assemble(kernel.asm["ptx"], "sm_90a")
    assert kernel.metadata["pipelining"] == {"kind": "async", "loads": 2, "stages": 3, "used": True}
    assert instructions(kernel.asm["ptx"]) == {instruction}


@kl.jit
def fp8_dot(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, LIMIT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :])
    y = tl.load(y_ptr + rn[None, :] * K + rk[:, None])
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], tl.dot(x, y, max_num_imprecise_acc=LIMIT))


@pytest.mark.parametrize("limit, adds", [(None, 0), (128, 1), (64, 2), (32, 4)])
def test_fp8_partial_sums_are_added_in_fp32(limit, adds):
    """max_num_imprecise_acc = L: every L K elements (and at the end) the partial sum is waited
    for and added to the fp32 accumulator, one add.f32 per accumulator register (as Triton)."""
    signature = {"x_ptr": "*fp8e4nv", "y_ptr": "*fp8e4nv", "z_ptr": "*fp32"}
    kernel = kl.compile(fp8_dot, signature=signature, constexprs={"M": 64, "N": 64, "K": 128, "LIMIT": limit},
                        target="cuda:sm_90a", arg_attrs={name: D16 for name in signature}, num_warps=4)
    ptx = kernel.asm["ptx"]
    ptxas.assemble(ptx, "sm_90a")
    registers = 64 * 64 // 128  # accumulator registers per thread
    assert ptx.count("add.f32") == registers * adds
    assert ptx.count("wgmma.mma_async") == 4 and ptx.count("wgmma.wait_group") == max(adds, 1)
