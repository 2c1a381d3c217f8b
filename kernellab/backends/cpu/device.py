"""The CPU as a device: the facts Triton code asks a GPU for, and what a compiled kernel uses.

A program runs on one thread (a worker of the launcher's pool, or the launching thread), so a
"multiprocessor" is a worker thread and a warp is one thread.  A program's tiles live on its
thread's stack, which therefore plays the part of shared memory: ``max_shared_mem`` is the stack
a program can count on, and a kernel's ``shared`` is its stack frame, read from its machine code
(as is ``registers``, the distinct architectural registers it names).

``max_num_regs`` keeps a GPU's count (65536 32-bit registers per SM): Triton's occupancy formula
``max_num_regs // (n_regs * warpSize * num_warps)`` multiplies by ``num_warps``, which the CPU
does not run as threads; with a core's real count (16-32 registers of each kind) it would give
no program per core at all.  Registers never limit how many programs a worker takes in turn;
the stack does.
"""

from __future__ import annotations

import re
from typing import Any

from ... import config
from .scheduling import WORKER_STACK_BYTES  # each pool thread's stack (the launch path does not import this module)

REGISTER_BUDGET = 65536  # see the module docstring


def program_stack_bytes() -> int:
    """The stack a program can count on: the pool's threads have WORKER_STACK_BYTES; the
    launching thread, which runs programs too, has the process's stack limit."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    except (ImportError, OSError, ValueError):
        return WORKER_STACK_BYTES
    return WORKER_STACK_BYTES if soft in (resource.RLIM_INFINITY, -1) else min(WORKER_STACK_BYTES, soft)


def device_properties() -> dict[str, Any]:
    """``get_device_properties`` for the CPU, under Triton's names."""
    import platform

    return {"multiprocessor_count": config.num_threads(), "max_shared_mem": program_stack_bytes(),
            "max_num_regs": REGISTER_BUDGET, "warpSize": 1, "sm_clock_rate": 0, "mem_clock_rate": 0,
            "mem_bus_width": 0, "name": platform.processor() or platform.machine()}


# ---------------------------------------------------------------------------------------------
# What a compiled kernel uses, read from its assembly (x86-64 and AArch64, AT&T / LLVM syntax)
# ---------------------------------------------------------------------------------------------

_FRAME = (re.compile(r"^\s*sub[ql]?\s+\$(\d+),\s*%rsp\b"),                           # x86-64
          re.compile(r"^\s*sub\s+sp,\s*sp,\s*#(?:0x)?(\d+)(?:,\s*lsl\s*#(\d+))?", re.I))  # AArch64
_X86_REGISTER = re.compile(r"%([a-z][a-z0-9]*)")
_X86_GPR = {"ax": "a", "bx": "b", "cx": "c", "dx": "d", "si": "si", "di": "di", "bp": "bp", "sp": "sp"}
_ARM_REGISTER = re.compile(r"\b([xwvqdshbz])([0-9]|[12][0-9]|3[01])\b")
_NOT_ALLOCATABLE = {"gpr:sp", "gpr:bp", "gpr:ip"}


def frame_bytes(asm: str) -> int:
    """Bytes the kernel's functions reserve on the stack (their frames' sizes, added)."""
    total = 0
    for line in asm.splitlines():
        for pattern in _FRAME:
            found = pattern.match(line)
            if found:
                shift = int(found.group(2)) if found.lastindex == 2 and found.group(2) else 0
                total += int(found.group(1)) << shift
    return total


def _x86_register(name: str) -> str | None:
    """``rax``/``eax``/``al`` -> ``gpr:a``; ``r9d`` -> ``gpr:r9``; ``ymm3`` -> ``vec:3``."""
    vector = re.fullmatch(r"[xyz]mm(\d+)", name)
    if vector:
        return f"vec:{vector.group(1)}"
    if re.fullmatch(r"k[0-7]", name):
        return f"mask:{name[1]}"
    numbered = re.fullmatch(r"r(\d+)[dwb]?", name)
    if numbered:
        return f"gpr:r{numbered.group(1)}"
    core = re.fullmatch(r"[re]?([a-d]x|si|di|bp|sp|ip)|([a-d])[lh]|(si|di|bp|sp)l", name)
    if core:
        part = core.group(1) or core.group(2) or core.group(3)
        return f"gpr:{_X86_GPR.get(part, part.rstrip('x') if part.endswith('x') else part)}"
    return None


def registers_used(asm: str) -> int:
    """Distinct architectural registers (general, vector, mask) the kernel's instructions name,
    the stack and frame pointers excepted."""
    found: set[str] = set()
    for line in asm.splitlines():
        text = line.split("#", 1)[0].split("//", 1)[0]
        if not text.startswith(("\t", " ")) or text.lstrip().startswith("."):
            continue  # labels and directives
        for name in _X86_REGISTER.findall(text):
            register = _x86_register(name)
            if register is not None:
                found.add(register)
        for kind, number in _ARM_REGISTER.findall(text):
            found.add(f"{'gpr' if kind in 'xw' else 'vec'}:{number}")
    return len(found - _NOT_ALLOCATABLE)


__all__ = ["device_properties", "frame_bytes", "program_stack_bytes", "registers_used", "WORKER_STACK_BYTES"]
