"""The compile and launch options every target accepts, checked by one set of rules.

Triton's ``num_warps``, ``num_stages``, ``num_ctas``, ``maxnreg``, ``debug``, ``enable_fp_fusion``,
``launch_cooperative_grid`` and ``launch_pdl`` mean something on the GPU only, but a kernel (or an
autotune config) that a notebook runs on the CPU target or the interpreter must be one that the GPU would accept: a
``num_warps=3`` is refused on every target, not first on the H200.  Each backend adds its own
options and limits (the CUDA target allows ``num_ctas`` above 1 on sm_90+ only, the CPU target has
``opt_level``...).
"""

from __future__ import annotations

from typing import Any

from ..errors import OptionValueError, OutOfResources

SHARED_DEFAULTS: dict[str, Any] = {
    "num_warps": 4,
    "num_stages": 3,
    "num_ctas": 1,
    "maxnreg": None,
    "debug": False,
    "enable_fp_fusion": True,
    "line_info": True,  # source lines in the compiled stages (TRITON_DISABLE_LINE_INFO turns it off)
    # launch attributes (Triton's CUDA options): a cooperative launch (every program resident at
    # once, for grid-wide barriers) and programmatic dependent launch; the host targets run every
    # program of a grid anyway and launch in order, so there they change nothing
    "launch_cooperative_grid": False,
    "launch_pdl": False,
}
# Triton's compile options that code outside the compiler passes and every target takes: torch
# inductor gives each kernel sanitize_overflow=False (debug mode's integer-overflow checks are the
# frontend's, on every target) and enable_reflect_ftz=False where flushing is off (kernellab's
# math never flushes denormals: nvvm-reflect-ftz is 0 on CUDA); the rest are recorded, no effect.
TRITON_OPTIONS: dict[str, Any] = {"sanitize_overflow": True, "enable_reflect_ftz": True, "extern_libs": None,
                                  "supported_fp8_dtypes": None, "instrumentation_mode": ""}

# Triton's AMD backend's tuning options.  Triton code picks them where the target is not CUDA
# (tutorial 03 autotunes over `get_cuda_autotune_config() if is_cuda() else
# get_hip_autotune_config()`, so on the host targets it gives these): the host targets accept them
# and ignore them (tuning hints for AMD's compiler); the CUDA target refuses them, as Triton's
# CUDA backend does.
AMD_TUNING_OPTIONS: dict[str, Any] = {"waves_per_eu": None, "matrix_instr_nonkdim": None, "kpack": None,
                                      "schedule_hint": None, "allow_flush_denorm": None}
MAX_WARPS = 32
WARP_SIZE = 32  # threads per warp on the GPU (a block has at most MAX_WARPS * WARP_SIZE = 1024)
MAX_REGISTERS = 255


def shared_options(user: dict[str, Any]) -> dict[str, Any]:
    """The shared options of ``user`` (None: the default), checked; ``ValueError`` says what
    is allowed."""
    given = {name: user.get(name) for name in SHARED_DEFAULTS}
    options = {name: SHARED_DEFAULTS[name] if value is None else value for name, value in given.items()}
    options["num_warps"] = _num_warps(options["num_warps"])
    options["num_stages"] = count("num_stages", options["num_stages"], 0)
    options["num_ctas"] = count("num_ctas", options["num_ctas"], 1)
    if options["maxnreg"] is not None:
        options["maxnreg"] = count("maxnreg", options["maxnreg"], 1)
        if options["maxnreg"] > MAX_REGISTERS:
            raise OptionValueError(f"maxnreg={options['maxnreg']}: a thread has at most {MAX_REGISTERS} registers")
    options["debug"] = flag("debug", options["debug"])
    options["enable_fp_fusion"] = flag("enable_fp_fusion", options["enable_fp_fusion"])
    options["line_info"] = flag("line_info", options["line_info"])
    for name in ("launch_cooperative_grid", "launch_pdl"):
        options[name] = flag(name, options[name])
    return options


def triton_options(user: dict[str, Any]) -> dict[str, Any]:
    """:data:`TRITON_OPTIONS` as ``user`` gives them (None: the default), the two flags checked
    as the shared ones are; every target takes them this way."""
    options = {name: user.get(name, default) for name, default in TRITON_OPTIONS.items()}
    for name in ("sanitize_overflow", "enable_reflect_ftz"):
        options[name] = flag(name, TRITON_OPTIONS[name] if options[name] is None else options[name])
    return options


def count(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise OptionValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool | int) or value not in (0, 1):
        raise OptionValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _num_warps(value: Any) -> int:
    """A power of two up to :data:`MAX_WARPS`; a larger power of two is a block of more threads
    than a GPU has (OutOfResources, as Triton reports it when loading: an autotuner skips the
    config), anything else an OptionValueError."""
    warps = count("num_warps", value, 1)
    if warps & (warps - 1):
        raise OptionValueError(f"num_warps must be a positive power of two from 1 to {MAX_WARPS}, got {value!r}")
    if warps > MAX_WARPS:
        raise OutOfResources(warps * WARP_SIZE, MAX_WARPS * WARP_SIZE, "threads")
    return warps


__all__ = ["SHARED_DEFAULTS", "TRITON_OPTIONS", "AMD_TUNING_OPTIONS", "shared_options", "triton_options",
           "count", "flag", "MAX_WARPS", "MAX_REGISTERS"]
