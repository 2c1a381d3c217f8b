"""Compare kernellab's and Triton's Hopper code for the tutorial matmul and attention without a GPU.

Both compilers target sm_90a here (Triton through ``triton.compile(ASTSource(...),
target=GPUTarget("cuda", 90, 32))``, which needs no device), ptxas assembles both with the same
flags, nvdisasm lists the SASS, and one line per kernel gives what decides tensor-core speed:
registers (CTAs per SM), instructions (all, and those of the hottest loop: the innermost one
holding ``HGMMA``, whose issue slots the tensor cores wait on), the ``WARPGROUP.ARRIVE`` /
``HGMMA ... gsb0`` counts (how many separately waited wgmma chains), ``MEMBAR`` and barriers.
Needs Triton installed beside kernellab (``pip install triton==3.6.0`` works on a machine without a
GPU); it is a reference, never a dependency.

    python bench/offline_sass.py [--out DIR] [--matmul-configs]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from triton_copy import triton_tutorials  # noqa: E402  (bench/ is the script's folder)

import kernellab as kl  # noqa: E402
from kernellab.backends.cuda import ptxas, sass  # noqa: E402
from tests.kernels import tutorials as kl_tut  # noqa: E402

D16 = {"divisibility": 16}
MATMUL_CONSTS = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
                 "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "ACTIVATION": ""}
MATMUL_CONFIGS = [(128, 128, 32, 4), (128, 128, 64, 4), (128, 256, 32, 8), (64, 128, 32, 4), (128, 128, 32, 8),
                  (128, 128, 64, 8), (128, 256, 64, 8)]
ATTN_ARGS = ["Q", "K", "V", "sm_scale", "M", "Out"] + [
    f"stride_{t}{d}" for t, dims in (("q", "zhmk"), ("k", "zhnk"), ("v", "zhkn"), ("o", "zhmn")) for d in dims
] + ["Z", "H"]


def matmul_case(dtype: str, bm: int = 128, bn: int = 128, bk: int = 64, warps: int = 4,
                persistent: bool = False, out: str = "fp16") -> tuple:
    signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{out}", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    constexprs = {**MATMUL_CONSTS, "BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk}
    if persistent:
        del constexprs["ACTIVATION"]
        return ("matmul_persistent_kernel", signature, {**constexprs, "NUM_SMS": 132},
                {"num_warps": warps, "num_stages": 3})
    return "matmul_kernel", signature, constexprs, {"num_warps": warps, "num_stages": 3}


def attention_case(head_dim: int, stage: int) -> tuple:
    ones = {"stride_qk", "stride_kk", "stride_vn", "stride_on"}
    signature = {}
    for name in ATTN_ARGS:
        if name in ones:
            continue
        signature[name] = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "M": "*fp32",
                           "sm_scale": "fp32"}.get(name, "i32")
    constexprs = {**{o: 1 for o in ones}, "N_CTX": 4096, "HEAD_DIM": head_dim, "BLOCK_M": 128, "BLOCK_N": 64,
                  "STAGE": stage}
    return "_attn_fwd", signature, constexprs, {"num_warps": 8, "num_stages": 3}


def kernellab_ptx(case: tuple) -> str:
    name, signature, constexprs, options = case
    attrs = {k: D16 for k, v in signature.items() if v != "fp32"}
    return kl.compile(getattr(kl_tut, name), signature=signature, constexprs=constexprs, target="cuda:sm_90a",
                      arg_attrs=attrs, **options).asm["ptx"]


def triton_ptx(module, case: tuple) -> str:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    name, signature, constexprs, options = case
    fn = getattr(module, name)
    full = {arg: signature.get(arg, "constexpr") for arg in fn.arg_names}
    attrs = {(fn.arg_names.index(k),): [["tt.divisibility", 16]] for k, v in signature.items() if v != "fp32"}
    compiled = triton.compile(ASTSource(fn, full, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                              options=options)
    return compiled.asm["ptx"]


def summary(ptx: str, out: Path, stem: str) -> dict:
    result = ptxas.assemble(ptx, "sm_90a")
    cubin = out / f"{stem}.cubin"
    cubin.write_bytes(result.cubin)
    (out / f"{stem}.ptx").write_text(ptx)
    tool = sass.find_disassembler()
    code = subprocess.run([tool[1], "-c", str(cubin)], capture_output=True, text=True).stdout if tool else ""
    (out / f"{stem}.sass").write_text(code)
    count = lambda pattern: len(re.findall(pattern, code))  # noqa: E731
    return {"regs": result.kernel().registers, "instructions": count(r"/\*[0-9a-f]{4}\*/\s+\S"),
            "loop": len(sass.hot_loop(code)),
            "arrive": count(r"WARPGROUP\.ARRIVE"), "waited_chains": count(r"HGMMA[^;]*gsb0"),
            "membar": count(r"MEMBAR"), "bar_sync": count(r"BAR\.SYNC"),
            "serialized": len(ptxas.performance_warnings(result.log))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="kl-sass-")))
    parser.add_argument("--matmul-configs", action="store_true",
                        help="the fp16 matmul in each config of bench/gpu_suite.py's list instead")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.matmul_configs:
        cases = {f"matmul {bm}x{bn}x{bk} w{w}": matmul_case("fp16", bm, bn, bk, w)
                 for bm, bn, bk, w in MATMUL_CONFIGS}
    else:
        cases = {"matmul fp16": matmul_case("fp16"), "matmul bf16": matmul_case("bf16"),
                 "matmul bf16, bf16 out": matmul_case("bf16", out="bf16"),
                 "matmul persistent fp16": matmul_case("fp16", persistent=True)}
        for head_dim in (64, 128):
            for stage, label in ((1, ""), (3, " causal")):
                cases[f"attention D={head_dim}{label}"] = attention_case(head_dim, stage)
    module = triton_tutorials()
    print(f"{'kernel':<24} {'compiler':<10} {'regs':>5} {'instr':>6} {'loop':>5} {'arrive':>7} {'waited':>7} "
          f"{'membar':>7} {'bar':>4} {'ptxas-warn':>10}   (files in {args.out})")
    for label, case in cases.items():
        stem = label.replace(" ", "_").replace("=", "")
        for compiler, ptx in (("kernellab", kernellab_ptx(case)), ("triton", triton_ptx(module, case))):
            row = summary(ptx, args.out, f"{stem}-{compiler}")
            print(f"{label:<24} {compiler:<10} {row['regs']:>5} {row['instructions']:>6} {row['loop']:>5} "
                  f"{row['arrive']:>7} {row['waited_chains']:>7} {row['membar']:>7} {row['bar_sync']:>4} "
                  f"{row['serialized']:>10}")


if __name__ == "__main__":
    main()
