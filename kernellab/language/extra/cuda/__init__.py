"""``tl.extra.cuda``: the module path Triton users import libdevice from
(``triton.language.extra.cuda.libdevice``; the same functions as ``tl.extra.libdevice``), and
Triton's CUDA utilities: ``smid`` and ``globaltimer`` (PTX special registers, read by inline
assembly: CUDA targets only) and ``num_warps``/``num_threads`` (compile-time constants of the
launch's ``num_warps``, 32 threads each), and grid dependency control for programmatic dependent
launch (``gdc_wait``/``gdc_launch_dependents``: PTX ``griddepcontrol`` on sm_90+; nothing where
kernels already run one after another: older GPUs, the CPU target, the interpreter)."""

from __future__ import annotations

from typing import Any

from ....backends.options import SHARED_DEFAULTS
from ....ir import types as T
from ... import core
from ...target_info import cuda_capability_geq
from . import libdevice


def special_register(register: str, dtype: Any, is_pure: bool, reader: str = "tl.extra.cuda") -> core.tensor:
    """The PTX special register ``%<register>`` (``smid``, ``tid.x``, ``clock64``...) read as the
    32- or 64-bit integer ``dtype``, by inline assembly: CUDA targets only (``reader`` says who asks)."""
    sem = core.semantic()
    if not sem.options.gpu:
        raise core.SemanticError(f"{reader} reads the PTX register %{register}: CUDA targets only (this is "
                                 f"{sem.options.target})")
    wide = dtype.primitive_bitwidth == 64
    (value,) = sem.inline_asm_elementwise(f"mov.{'u64' if wide else 'u32'} $0, %{register};", "=l" if wide else "=r",
                                          [], [dtype], is_pure, 1)
    return value


@core.builtin
def smid() -> core.tensor:
    """The id of the streaming multiprocessor the program runs on (int32)."""
    return special_register("smid", T.i32, True)


@core.builtin
def globaltimer() -> core.tensor:
    """The GPU's global nanosecond timer (int64)."""
    return special_register("globaltimer", T.i64, False)


def _grid_dependency_control(action: str) -> None:
    """PTX ``griddepcontrol.<action>`` (sm_90+).  Elsewhere grids do not overlap (no programmatic
    dependent launch: each kernel starts after the one before it ended), so there is nothing to
    wait for or to signal."""
    if not cuda_capability_geq(9):
        return
    core.semantic().inline_asm_elementwise(f"griddepcontrol.{action}; // dummy $0", "=r", [], [T.i32], False, 1)


@core.builtin
def gdc_wait() -> None:
    """Waits until the grid this kernel depends on (the previous launch on the stream, when this one
    was launched with ``launch_pdl=True``) has finished and its writes are visible.  Safe without
    programmatic dependent launch."""
    _grid_dependency_control("wait")


@core.builtin
def gdc_launch_dependents() -> None:
    """Lets the next kernel on the stream (launched with ``launch_pdl=True``) start once every
    program of this grid has called it or ended: a hint, no memory ordering."""
    _grid_dependency_control("launch_dependents")


@core.builtin
def convert_custom_float8_sm80(arg: Any, dst_ty: Any, fp_downcast_rounding: Any = None) -> core.tensor:
    """Triton's fp8e4b15 converter (its CUDA backend's, sm_80+): fp8e4b15 to fp16/fp32, or fp16/fp32
    to fp8e4b15 (fp32 through fp16 rounded toward zero): ``tl.cast``'s conversion, on every target."""
    return core.semantic().cast(core.unwrap(arg), core.unwrap(dst_ty), core.unwrap(fp_downcast_rounding))


convert_custom_float8_sm70 = convert_custom_float8_sm80  # the same results without sm_80's min.x2


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


__all__ = ["libdevice", "smid", "globaltimer", "num_warps", "num_threads", "gdc_wait", "gdc_launch_dependents",
           "convert_custom_float8_sm80", "convert_custom_float8_sm70"]
