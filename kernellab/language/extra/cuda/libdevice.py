"""``tl.extra.cuda.libdevice``: the functions of ``tl.extra.libdevice`` under Triton's CUDA path
(the same objects, read from it on first use)."""

from typing import Any

from .. import libdevice as _libdevice

__all__ = list(_libdevice.__all__)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_libdevice, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
