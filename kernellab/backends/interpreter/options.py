"""Launch options the interpreter accepts: recorded (they are part of the cache key and the
metadata) and validated, but without effect on execution."""

from __future__ import annotations

from typing import Any

from ... import config

DEFAULTS: dict[str, Any] = {
    "num_warps": 4,
    "num_stages": 3,
    "num_ctas": 1,
    "maxnreg": None,
    "debug": None,  # None: KERNELLAB_DEBUG decides
    # Accepted for source compatibility with Triton; no effect here.
    "enable_fp_fusion": True,
    "launch_cooperative_grid": False,
    "launch_pdl": False,
    "sanitize_overflow": True,
}


def _power_of_two(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1):
        raise ValueError(f"{name} must be a positive power of two (1, 2, 4, 8...), got {value!r}")


def _non_negative(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def _register_limit(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{name} must be None or a positive integer, got {value!r}")


def _boolean(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")


_CHECKS = {"num_warps": _power_of_two, "num_stages": _non_negative, "num_ctas": _power_of_two,
           "maxnreg": _register_limit, "debug": _boolean, "enable_fp_fusion": _boolean,
           "launch_cooperative_grid": _boolean, "launch_pdl": _boolean, "sanitize_overflow": _boolean}


def validate(user: dict[str, Any]) -> dict[str, Any]:
    """``user``'s options with defaults filled in; raises ``ValueError`` on an unknown name or a
    bad value."""
    unknown = sorted(set(user) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for the interpreter; "
                         f"known: {', '.join(DEFAULTS)}")
    options = {**DEFAULTS, **{k: v for k, v in user.items() if v is not None or k == "maxnreg"}}
    if options["debug"] is None:
        options["debug"] = config.debug()
    for name, check in _CHECKS.items():
        check(name, options[name])
    return options
