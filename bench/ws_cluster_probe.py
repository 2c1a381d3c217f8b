"""Does warp specialization or a 2-CTA cluster pay on this GPU?  Times Triton 3.6's own tutorial
kernels (06 fused attention, 09's TMA matmul), loaded unmodified from ``--tutorials DIR`` (the
two files of release/3.6.x, not kept in this repository), with ``warp_specialize`` off and on,
and the matmul with ``num_ctas`` 1 and 2, at fixed configurations (the autotuners are bypassed
through ``.fn``).  Run it twice in one job, once as is (real Triton) and once through
``python -m kernellab.as_triton`` (the same files on kernellab); each run checks every output
against torch before timing it and writes one JSON file.

    python3 bench/ws_cluster_probe.py --tutorials .probe --out a.json
    python3 -m kernellab.as_triton bench/ws_cluster_probe.py --tutorials .probe --out b.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import traceback
import types

import torch
import triton
import triton.testing


def load(path: str, name: str):
    try:
        importlib.import_module("triton.profiler")  # 09 imports proton at the top; kernellab has none
    except ImportError:
        triton.profiler = sys.modules["triton.profiler"] = types.ModuleType("triton.profiler")  # never used here
    text = open(path).read()
    try:
        importlib.import_module("triton._C")
    except ImportError:  # 09 makes Triton's cuBLAS binding at import (for its cuBLAS rows, not run here)
        text = text.replace("if torch.cuda.is_available():\n    from triton._C.libtriton import nvidia",
                            "if False:\n    from triton._C.libtriton import nvidia")
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(text, path, "exec"), module.__dict__)
    return module


def timed(fn) -> float:
    return float(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median"))


def matmul_rows(mm, size: int, rows: list) -> None:
    from triton.tools.tensor_descriptor import TensorDescriptor

    torch.manual_seed(0)
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b_t = torch.randn(size, size, device="cuda", dtype=torch.float16)
    ref = a.float() @ b_t.float().T
    for bm, bn, bk, warps, stages in ((128, 256, 64, 8, 3), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4)):
        for ws, ctas in ((False, 1), (True, 1), (False, 2)):
            label = f"matmul tma fp16 {size}^3 {bm}x{bn}x{bk} w{warps} s{stages} ws={int(ws)} ctas={ctas}"
            c = torch.full((size, size), float("nan"), device="cuda", dtype=torch.float16)
            descs = (TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b_t, [bn, bk]),
                     TensorDescriptor.from_tensor(c, [bm, bn]))

            def run(descs=descs, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages, ws=ws, ctas=ctas):
                grid = (triton.cdiv(size, bm) * triton.cdiv(size, bn),)
                mm.matmul_kernel_tma.fn[grid](*descs, size, size, size, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                              BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, FP8_OUTPUT=False,
                                              WARP_SPECIALIZE=ws, num_warps=warps, num_stages=stages,
                                              num_ctas=ctas)

            measure(rows, label, run, lambda c=c: (c.float() - ref).abs().max().item() < 0.5,
                    2 * size**3 / 1e12)


def attention_rows(att, rows: list) -> None:
    z, h, n = 4, 16, 4096
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    for d in (64, 128):
        torch.manual_seed(0)
        q, k, v = (torch.randn(z, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=0.5)
            flops = 4 * z * h * n * n * d / 1e12 / (2 if causal else 1)
            for bn, warps, stages in ((64, 8, 3), (128, 8, 2), (64, 4, 3)):
                if bn > d:
                    continue
                for ws in (False, True):
                    label = f"attention D={d}{' causal' if causal else ''} 128x{bn} w{warps} s{stages} ws={int(ws)}"
                    o = torch.full_like(q, float("nan"))
                    m = torch.empty((z, h, n), device="cuda", dtype=torch.float32)

                    def run(q=q, k=k, v=v, o=o, m=m, d=d, causal=causal, bn=bn, warps=warps, stages=stages, ws=ws):
                        att._attn_fwd.fn[(triton.cdiv(n, 128), z * h, 1)](
                            0.5, m, z, h, q, k, v, o, N_CTX=n, HEAD_DIM=d, BLOCK_M=128, BLOCK_N=bn,
                            FP8_OUTPUT=False, STAGE=3 if causal else 1, warp_specialize=ws, IS_HOPPER=True,
                            num_warps=warps, num_stages=stages)

                    measure(rows, label, run, lambda o=o, ref=ref: (o.float() - ref.float()).abs().max().item() < 2e-2,
                            flops)


def measure(rows: list, label: str, run, check, tflop: float) -> None:
    try:
        run()
        torch.cuda.synchronize()
        if not check():
            rows.append({"row": label, "error": "wrong result"})
            print(f"{label}: WRONG RESULT", flush=True)
            return
        ms = timed(run)
        rows.append({"row": label, "ms": ms, "tflops": tflop / (ms / 1e3)})
        print(f"{label}: {tflop / (ms / 1e3):.1f} TFLOP/s", flush=True)
    except Exception as error:  # noqa: BLE001 - a refused option is a result here
        rows.append({"row": label, "error": f"{type(error).__name__}: {str(error)[:300]}"})
        print(f"{label}: {type(error).__name__}: {str(error)[:200]}", flush=True)
        traceback.print_exc(limit=2)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tutorials", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    implementation = "kernellab" if "kernellab" in sys.modules else "triton"
    rows: list = []
    mm = load(f"{args.tutorials}/09-persistent-matmul.py", "tutorial09")
    matmul_rows(mm, args.size, rows)
    att = load(f"{args.tutorials}/06-fused-attention.py", "tutorial06")
    attention_rows(att, rows)
    with open(args.out, "w") as handle:
        json.dump({"implementation": implementation, "triton": getattr(triton, "__version__", "?"),
                   "torch": torch.__version__, "device": torch.cuda.get_device_name(), "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
