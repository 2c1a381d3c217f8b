"""The CPU as a device: the properties Triton code reads, and each kernel's stack frame
(``metadata["shared"]``) and registers (``n_regs``) read from its machine code."""

from __future__ import annotations

import numpy as np

import kernellab as triton
import kernellab.language as tl
from kernellab.backends.cpu.device import WORKER_STACK_BYTES, frame_bytes, registers_used

X86 = """\t.globl\tkernellab_grid
kernellab_grid:
\tpushq\t%rbp
\tmovq\t%rsp, %rbp
\tsubq\t$8960, %rsp
\tvmovaps\t%zmm1, 640(%rsp)
\tmovl\t%r8d, 32(%rsp)
\tmovq\t%rax, %r8
\taddl\t%eax, %ecx          # eax is rax: one register
\tvaddps\t%ymm3, %ymm1, %ymm1
\tkmovw\t%k1, %eax
.LBB0_2:
\t.p2align\t4
"""

ARM = """kernellab_grid:
\tsub\tsp, sp, #1, lsl #12
\tsub\tsp, sp, #3104
\tldr\tq0, [x1, #16]
\tfadd\tv0.4s, v0.4s, v2.4s
\tadd\tw3, w3, #1
\tmov\tx3, x29
"""


def test_frame_bytes_reads_the_prologue():
    assert frame_bytes(X86) == 8960
    assert frame_bytes(ARM) == 4096 + 3104
    assert frame_bytes("\tret\n") == 0


def test_registers_used_counts_architectural_registers_once():
    # rbp/rsp are not counted; rax=eax, r8=r8d, zmm1=ymm1, ymm3, rcx, k1
    assert registers_used(X86) == 6
    # q0=v0, v2, x1, w3=x3, x29
    assert registers_used(ARM) == 5


@triton.jit
def _row_softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.load(in_ptr + tl.program_id(0) * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
    num = tl.exp(row - tl.max(row, axis=0))
    tl.store(out_ptr + tl.program_id(0) * n_cols + offs, num / tl.sum(num, axis=0), mask=offs < n_cols)


def test_metadata_and_device_properties_on_the_cpu(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TARGET", "cpu")
    x = np.ones((2, 3000), np.float32)
    kernels = [_row_softmax.warmup(np.empty_like(x), x, 3000, BLOCK=block, num_warps=8, grid=(1,))
               for block in (1024, 4096)]
    small, large = kernels
    assert 0 < small.metadata.shared < large.metadata.shared   # a bigger tile takes more stack
    assert large.metadata.shared >= 4096 * 4                    # at least one tile of 4096 floats
    assert 4 < small.n_regs < 200 and small.metadata["num_warps"] == 8
    properties = triton.runtime.driver.active.utils.get_device_properties(0)
    assert properties["warpSize"] == 1 and properties["multiprocessor_count"] >= 1
    assert large.metadata.shared < properties["max_shared_mem"] <= WORKER_STACK_BYTES
    # the fused-softmax tutorial's occupancy, with the CPU's answers: at least one program per worker
    occupancy = properties["max_num_regs"] // (small.n_regs * properties["warpSize"] * 8)
    assert min(occupancy, properties["max_shared_mem"] // small.metadata.shared) >= 1
