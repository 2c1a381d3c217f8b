"""Which target a launch compiles for, and which targets this machine has.

A launch's target is forced by the environment (``config.forced_target()``: interpret mode or
``KERNELLAB_TARGET``); otherwise it follows the arguments: any CUDA array -> ``cuda``; only
host arrays (or none) -> ``cpu`` when the CPU backend is present, else ``interpret``.  Host
and device arrays in one launch are an error that names each argument and where it lives.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from .. import backends
from ..errors import LaunchError
from .specialize import ANYWHERE

HOST_TARGETS = ("cpu", "interpret")


def backend_available(name: str) -> bool:
    """Whether ``kernellab.backends.get(name)`` works here."""
    try:
        backends.get(name)
    except (ValueError, ImportError):
        return False
    return True


@functools.cache
def default_host_target() -> str:
    """``cpu`` when its backend is present, else ``interpret``."""
    return "cpu" if backend_available("cpu") else "interpret"


@functools.cache
def cuda_device_count() -> int:
    """CUDA devices visible to this process (0 without a driver or a GPU)."""
    from ..backends.cuda import driver

    return driver.device_count() if driver.available() else 0


def available_targets() -> list[str]:
    """The targets this machine can run: ``interpret`` always, ``cpu`` with its backend,
    ``cuda`` with its backend and a device."""
    found = ["interpret"]
    if backend_available("cpu"):
        found.append("cpu")
    if cuda_device_count() > 0 and backend_available("cuda"):
        found.append("cuda")
    return found


def is_device_location(location: str | None) -> bool:
    return location is not None and location.startswith("cuda")


def select_target(forced: str | None, pointers: Iterable[tuple[str, str]], kernel: str) -> str:
    """The target for a launch whose pointer arguments are ``(name, location)`` pairs."""
    if forced:
        return forced
    placed = [(name, where) for name, where in pointers if where != ANYWHERE]
    devices = {where for _, where in placed if is_device_location(where)}
    if not devices:
        return default_host_target()
    hosts = [(name, where) for name, where in placed if not is_device_location(where)]
    if hosts or len(devices - {"cuda"}) > 1:  # plain "cuda": an array whose device index is unknown
        listing = ", ".join(f"`{name}` on {where}" for name, where in placed)
        raise LaunchError(f"the arrays passed to `{kernel}` live in different places ({listing}); every array of "
                          "one launch must be on the same device: copy host arrays to the GPU "
                          "(kl.to_device(array), torch's .cuda()) or device arrays to the host (.numpy(), .cpu())")
    return "cuda"


__all__ = ["HOST_TARGETS", "backend_available", "default_host_target", "cuda_device_count", "available_targets",
           "select_target", "is_device_location"]
