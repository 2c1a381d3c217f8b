"""What a kernel can ask about the target it is being compiled for (Triton's
``triton.language.target_info``): ``current_target()`` and constexpr predicates over it."""

from __future__ import annotations

import platform
import re
from dataclasses import dataclass

from .core import _ACTIVE, constexpr_function


@dataclass(frozen=True)
class Target:
    """``backend`` ``"cuda"`` or ``"cpu"`` (the interpreter and the CPU target); ``arch`` the
    compute capability as an int (90) or the host's machine name; ``warp_size``."""

    backend: str
    arch: int | str
    warp_size: int


def current_target() -> Target | None:
    """The target of the kernel being compiled; None outside a compilation."""
    sem = _ACTIVE.get()
    if sem is None:
        return None
    name = sem.options.target
    if not name.startswith("cuda"):
        return Target("cpu", platform.machine(), 1)
    digits = re.search(r"(\d+)", str(sem.options.extra.get("arch") or name))
    return Target("cuda", int(digits.group(1)) if digits else 90, 32)


current_target.__kernellab_builtin__ = True  # callable from kernels (a compile-time Python object)


@constexpr_function
def is_cuda() -> bool:
    target = current_target()
    return target is not None and target.backend == "cuda"


@constexpr_function
def cuda_capability_geq(major: int, minor: int = 0) -> bool:
    """Whether the target is a CUDA GPU of compute capability >= (major, minor)."""
    target = current_target()
    return target is not None and target.backend == "cuda" and target.arch >= major * 10 + minor


@constexpr_function
def is_hip() -> bool:
    return False


@constexpr_function
def is_hip_cdna3() -> bool:
    return False


@constexpr_function
def is_hip_cdna4() -> bool:
    return False


__all__ = ["current_target", "is_cuda", "cuda_capability_geq", "is_hip", "is_hip_cdna3", "is_hip_cdna4"]
