"""Write Triton's and kernellab's stages for the tutorial matmul and attention to a folder (to read
side by side: loop structure, instruction counts), and time stage variants of both.

    python bench/dump_triton_asm.py OUTDIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_suite import kl_tut, timed, triton_tutorials  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    tri = triton_tutorials()
    size = 4096
    for dtype in (torch.float16, torch.bfloat16):
        matmuls(out, tri, size, dtype)
    attention(out, tri)


def attention(out: Path, tri) -> None:
    z, h, n, d = 4, 16, 4096, 64
    q, k, v = (torch.randn(z, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    for name, tut in (("kernellab", kl_tut), ("triton", tri)):
        o = torch.empty_like(q)
        m = torch.empty((z, h, n), device="cuda")

        def run(tut=tut, o=o, m=m):
            return tut._attn_fwd[(n // 128, z * h, 1)](q, k, v, 0.5, m, o, *q.stride(), *k.stride(), *v.stride(),
                                                       *o.stride(), z, h, N_CTX=n, HEAD_DIM=d, BLOCK_M=128,
                                                       BLOCK_N=64, STAGE=1, num_warps=8, num_stages=3)

        kernel = run()
        if kernel is None or not hasattr(kernel, "asm"):
            kernel = list(tut._attn_fwd.cache.values())[-1]
        ms = timed(run)
        print(f"attention D=64 128x64 8 warps {name}: {4 * z * h * n * n * d / ms / 1e9:.1f} TFLOP/s", flush=True)
        save(out, f"attention-{name}", kernel)


def save(out: Path, stem: str, kernel) -> None:
    for stage in ("ttgir", "ptx", "tile.gpu"):
        text = kernel.asm.get(stage) if hasattr(kernel.asm, "get") else None
        if isinstance(text, str):
            (out / f"{stem}.{stage.replace('.', '_')}").write_text(text)
    cubin = kernel.asm.get("cubin") if hasattr(kernel.asm, "get") else None
    if isinstance(cubin, bytes):
        (out / f"{stem}.cubin").write_bytes(cubin)


def matmuls(out: Path, tri, size: int, dtype) -> None:
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    label = str(dtype).removeprefix("torch.")
    for stages in (3, 4):
        for name, tut in (("kernellab", kl_tut), ("triton", tri)):
            c = torch.empty(size, size, device="cuda", dtype=torch.float16)

            def run(tut=tut, c=c, stages=stages):
                grid = (triton.cdiv(size, 128) * triton.cdiv(size, 128),)
                return tut.matmul_kernel[grid](a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0),
                                               b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=128,
                                               BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, ACTIVATION="",
                                               num_warps=4, num_stages=stages)

            kernel = run()
            if kernel is None or not hasattr(kernel, "asm"):
                kernel = list(tut.matmul_kernel.cache.values())[-1]
            ms = timed(run)
            print(f"matmul {label} 128x128x64 4 warps stages={stages} {name}: {2 * size**3 / ms / 1e9:.1f} TFLOP/s",
                  flush=True)
            if stages == 3:
                save(out, f"matmul-{label}-{name}", kernel)


if __name__ == "__main__":
    main()
