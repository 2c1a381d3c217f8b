"""Launch the tutorial matmul and attention once each with kernellab and with Triton, for Nsight
Compute to profile (where the issue slots go: ``bench/tc_run.sh`` runs it under ``ncu``).

    ncu --clock-control none --section SchedulerStats --section WarpStateStats python bench/ncu_probe.py
    python bench/ncu_probe.py --only matmul --launches 1     # one launch of each matmul (for -c 2)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from triton_copy import triton_tutorials  # noqa: E402  (bench/ is the script's folder)

from tests.kernels import tutorials as kl_tut  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["matmul", "attention"], default=None)
    parser.add_argument("--launches", type=int, default=2, help="launches of each kernel (the first compiles)")
    parser.add_argument("--warps", type=int, default=4, help="the matmul's num_warps (128x128x64 tiles)")
    args = parser.parse_args()
    size = 4096
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    z, h, n, d = 4, 16, 4096, 64
    q, k, v = (torch.randn(z, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    for tut in (kl_tut, triton_tutorials()):
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(size, 128) * triton.cdiv(size, 128),)
        for _ in range(args.launches if args.only != "attention" else 0):  # the first launch compiles
            tut.matmul_kernel[grid](a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                    c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                                    GROUP_SIZE_M=8, ACTIVATION="", num_warps=args.warps, num_stages=3)
        o = torch.empty_like(q)
        m = torch.empty((z, h, n), device="cuda")
        for _ in range(args.launches if args.only != "matmul" else 0):
            tut._attn_fwd[(triton.cdiv(n, 128), z * h, 1)](q, k, v, 0.5, m, o, *q.stride(), *k.stride(), *v.stride(),
                                                           *o.stride(), z, h, N_CTX=n, HEAD_DIM=d, BLOCK_M=128,
                                                           BLOCK_N=64, STAGE=1, num_warps=8, num_stages=3)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
