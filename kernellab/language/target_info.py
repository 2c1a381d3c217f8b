"""What a kernel can ask about the target it is being compiled for (Triton's
``triton.language.target_info``): ``current_target()`` and constexpr predicates over it."""

from __future__ import annotations

import platform
import re
from dataclasses import dataclass

from .core import _ACTIVE, constexpr_function


@dataclass(frozen=True)
class Target:
    """``backend`` ``"cuda"`` or ``"cpu"`` (the interpreter and the CPU target: each backend's
    ``Capabilities.triton_backend``); ``arch`` the compute capability as an int (90) or the
    host's machine name; ``warp_size``."""

    backend: str
    arch: int | str
    warp_size: int


def current_target() -> Target | None:
    """The target of the kernel being compiled; None outside a compilation.  Its facts come from
    the backend's capabilities (``SemanticOptions``, filled by the compiler)."""
    sem = _ACTIVE.get()
    if sem is None:
        return None
    options = sem.options
    if not options.gpu:
        return Target(options.triton_backend, platform.machine(), options.warp_size)
    digits = re.search(r"(\d+)", str(options.extra.get("arch") or options.target))
    return Target(options.triton_backend, int(digits.group(1)) if digits else 90, options.warp_size)


current_target.__kernellab_builtin__ = True  # callable from kernels (a compile-time Python object)


def _compiling_for(backend: str) -> Target | None:
    """The current target when Triton would name its backend ``backend`` (``"cuda"``, ``"hip"``)."""
    target = current_target()
    return target if target is not None and target.backend == backend else None


@constexpr_function
def is_cuda() -> bool:
    return _compiling_for("cuda") is not None


@constexpr_function
def cuda_capability_geq(major: int, minor: int = 0) -> bool:
    """Whether the target is a CUDA GPU of compute capability >= (major, minor)."""
    target = _compiling_for("cuda")
    return target is not None and target.arch >= major * 10 + minor


@constexpr_function
def is_hip() -> bool:
    return _compiling_for("hip") is not None


@constexpr_function
def is_hip_cdna3() -> bool:
    return False


@constexpr_function
def is_hip_cdna4() -> bool:
    return False


__all__ = ["current_target", "is_cuda", "cuda_capability_geq", "is_hip", "is_hip_cdna3", "is_hip_cdna4"]
