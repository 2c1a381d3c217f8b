"""How many CTAs an SM holds, and the register limit that would let a tensor-core kernel hold one more.

A kernel a few registers over an occupancy cliff (the tutorial matmul at 64x256x32 and 4 warps:
188 registers, two CTAs of 128 threads per SM, where 168 fit three; the causal attention at 8
warps was at 139 until its Q was staged once) loses resident warps for little. ``register_cap``
finds the limit that gains one CTA per SM when it asks the kernel to give up at most
``MAX_SQUEEZE`` of its registers and nothing else (threads, shared memory) already stops that
CTA; the backend assembles again with it and keeps the result only when ptxas spills nothing.
It is tried on kernels whose loops feed tensor-core dots (where Triton's allocation sits at the
same cliffs); on bandwidth-bound kernels one more CTA measured no gain (bench/NOTES.md,
"Registers").

Limits are those of sm_80 and sm_90 (65536 registers and 2048 threads per SM; shared memory per
SM from the arch, 1 KiB of it reserved per CTA); registers are allocated per warp in units of
256, so a thread's count rounds up to a multiple of 8.
"""

from __future__ import annotations

REGISTERS_PER_SM = 65536
THREADS_PER_SM = 2048
SHARED_PER_SM = {"sm_80": 167936, "sm_86": 102400, "sm_87": 167936, "sm_89": 102400, "sm_90": 233472}
RESERVED_SHARED_PER_CTA = 1024
MAX_SQUEEZE = 0.15  # a cap takes at most 15% of the kernel's registers


def allocated(registers: int) -> int:
    """Registers a thread is given for a kernel that uses ``registers``."""
    return max(8, -(-registers // 8) * 8)


def ctas_by_registers(registers: int, threads: int) -> int:
    """CTAs of ``threads`` threads one SM holds by registers alone."""
    return REGISTERS_PER_SM // (allocated(registers) * threads)


def ctas_by_others(threads: int, shared: int, arch: str) -> int:
    """CTAs per SM allowed by threads and shared memory (an unknown arch: by threads alone)."""
    by_threads = THREADS_PER_SM // threads
    per_sm = SHARED_PER_SM.get(arch.rstrip("a"))
    if per_sm is None or shared <= 0:
        return by_threads
    return min(by_threads, per_sm // (shared + RESERVED_SHARED_PER_CTA))


def register_cap(registers: int, threads: int, shared: int, arch: str) -> int | None:
    """The register limit giving one more CTA per SM, or None when none is worth trying."""
    target = ctas_by_registers(registers, threads) + 1
    if target > ctas_by_others(threads, shared, arch):
        return None
    cap = REGISTERS_PER_SM // (target * threads) // 8 * 8
    if cap < 32 or cap < (1 - MAX_SQUEEZE) * registers:
        return None
    return min(cap, 255)


__all__ = ["register_cap", "ctas_by_registers", "ctas_by_others", "allocated"]
