"""``tl.extra.cuda``: the module path Triton users import libdevice from
(``triton.language.extra.cuda.libdevice``; the same functions as ``tl.extra.libdevice``), and
Triton's CUDA utilities: ``smid`` and ``globaltimer`` (PTX special registers, read by inline
assembly: CUDA targets only) and ``num_warps``/``num_threads`` (compile-time constants of the
launch's ``num_warps``, 32 threads each)."""

from __future__ import annotations

from typing import Any

from ....backends.options import SHARED_DEFAULTS
from ....ir import types as T
from ... import core
from . import libdevice


def _special_register(register: str, dtype: Any, constraint: str, is_pure: bool) -> core.tensor:
    sem = core.semantic()
    if not sem.options.gpu:
        raise core.SemanticError(f"tl.extra.cuda reads the PTX register %{register}: CUDA targets only (this is "
                                 f"{sem.options.target})")
    (value,) = sem.inline_asm_elementwise(f"mov.{'u64' if dtype is T.i64 else 'u32'} $0, %{register};",
                                          constraint, [], [dtype], is_pure, 1)
    return value


@core.builtin
def smid() -> core.tensor:
    """The id of the streaming multiprocessor the program runs on (int32)."""
    return _special_register("smid", T.i32, "=r", True)


@core.builtin
def globaltimer() -> core.tensor:
    """The GPU's global nanosecond timer (int64)."""
    return _special_register("globaltimer", T.i64, "=l", False)


def _launch_warps() -> int:
    """The ``num_warps`` the kernel is compiled for (the shared default when none was given)."""
    return int(core.semantic().options.extra.get("num_warps") or SHARED_DEFAULTS["num_warps"])


@core.builtin
def num_warps() -> core.constexpr:
    """The launch's ``num_warps`` (a compile-time constant)."""
    return core.constexpr(_launch_warps())


@core.builtin
def num_threads() -> core.constexpr:
    """The threads of one program: ``num_warps * 32`` (a compile-time constant)."""
    return core.constexpr(_launch_warps() * 32)


__all__ = ["libdevice", "smid", "globaltimer", "num_warps", "num_threads"]
