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
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
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
            print(f"matmul fp16 128x128x64 4 warps stages={stages} {name}: {2 * size**3 / ms / 1e9:.1f} TFLOP/s",
                  flush=True)
            if stages == 3 and kernel is not None and hasattr(kernel, "asm"):
                for stage in ("ttgir", "ptx", "tile.gpu"):
                    text = kernel.asm.get(stage) if hasattr(kernel.asm, "get") else None
                    if isinstance(text, str):
                        (out / f"matmul-{name}.{stage.replace('.', '_')}").write_text(text)
                cubin = kernel.asm.get("cubin") if hasattr(kernel.asm, "get") else None
                if isinstance(cubin, bytes):
                    (out / f"matmul-{name}.cubin").write_bytes(cubin)


if __name__ == "__main__":
    main()
