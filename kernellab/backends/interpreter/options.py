"""Launch options the interpreter accepts: recorded (they are part of the cache key and the
metadata) and checked by the rules every target shares (``backends/options.py``), but without
effect on execution."""

from __future__ import annotations

from typing import Any

from ... import config
from ..options import AMD_TUNING_OPTIONS, SHARED_DEFAULTS, TRITON_OPTIONS, shared_options, triton_options

DEFAULTS: dict[str, Any] = {
    **SHARED_DEFAULTS,
    **TRITON_OPTIONS,
    **AMD_TUNING_OPTIONS,  # ignored here, as on the CPU target
    "debug": None,  # None: KERNELLAB_DEBUG decides
}


def validate(user: dict[str, Any]) -> dict[str, Any]:
    """``user``'s options with defaults filled in; raises ``ValueError`` on an unknown name or a
    bad value."""
    unknown = sorted(set(user) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for the interpreter; "
                         f"known: {', '.join(DEFAULTS)}")
    debug = user.get("debug")
    return {**DEFAULTS, **user, **shared_options({**user, "debug": config.debug() if debug is None else debug}),
            **triton_options(user)}
