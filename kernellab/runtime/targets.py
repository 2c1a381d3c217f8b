"""Which target a launch compiles for, and which targets this machine has.

A launch's target is forced by the environment (``config.forced_target()``: interpret mode or
``KERNELLAB_TARGET``); otherwise it follows the arguments: device arrays -> the backend that
launches their location (``backends.device_target``: CUDA arrays -> ``cuda``); only host arrays
(or none) -> the first available of ``backends.HOST_PREFERENCE`` (``cpu``, else
``interpret``).  Host and device arrays in one launch are an error that names each argument and
where it lives.  No target is named here: the backends registry and capabilities say.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from .. import backends, config
from ..errors import LaunchError
from .specialize import ANYWHERE

HOST_TARGETS = backends.HOST_PREFERENCE


def backend_available(name: str) -> bool:
    """Whether ``kernellab.backends.get(name)`` works here."""
    try:
        backends.get(name)
    except (ValueError, ImportError):
        return False
    return True


@functools.cache
def default_host_target() -> str:
    """The first host target whose backend is present (``cpu``, else ``interpret``)."""
    return next(name for name in HOST_TARGETS if backend_available(name) or name == HOST_TARGETS[-1])


def target_available(target: str) -> bool:
    """Whether ``target`` can launch here: its backend imports and, for a GPU target, a device
    is visible."""
    if not backend_available(target):
        return False
    return not backends.capabilities(target).gpu or cuda_device_count() > 0


def default_target() -> str:
    """The target a launch goes to when no argument decides: the forced one, else a GPU's when
    one is available, else the host's."""
    forced = config.forced_target()
    if forced:
        return forced
    gpus = [name for name in set(backends.DEVICE_TARGETS.values()) if target_available(name)]
    return sorted(gpus)[0] if gpus else default_host_target()


@functools.cache
def cuda_device_count() -> int:
    """CUDA devices visible to this process (0 without a driver or a GPU)."""
    from ..backends.cuda import driver

    return driver.device_count() if driver.available() else 0


def available_targets() -> list[str]:
    """The targets this machine can run (host ones in reverse preference: ``interpret``,
    ``cpu``; then GPU ones with a device: ``cuda``)."""
    hosts = [name for name in reversed(HOST_TARGETS) if target_available(name)]
    gpus = sorted(name for name in set(backends.DEVICE_TARGETS.values()) if target_available(name))
    return hosts + gpus


def is_device_location(location: str | None) -> bool:
    return location is not None and backends.device_target(location) is not None


def select_target(forced: str | None, pointers: Iterable[tuple[str, str]], kernel: str) -> str:
    """The target for a launch whose pointer arguments are ``(name, location)`` pairs."""
    if forced:
        return forced
    placed = [(name, where) for name, where in pointers if where != ANYWHERE]
    devices = {where for _, where in placed if is_device_location(where)}
    if not devices:
        return default_host_target()
    hosts = [(name, where) for name, where in placed if not is_device_location(where)]
    indexed = {where for where in devices if ":" in where}  # a bare "cuda": the device index is unknown
    targets = {backends.device_target(where) for where in devices}
    if hosts or len(indexed) > 1 or len(targets) > 1:
        listing = ", ".join(f"`{name}` on {where}" for name, where in placed)
        raise LaunchError(f"the arrays passed to `{kernel}` live in different places ({listing}); every array of "
                          "one launch must be on the same device: copy host arrays to the GPU "
                          "(kl.to_device(array), torch's .cuda()) or device arrays to the host (.numpy(), .cpu())")
    return targets.pop()


__all__ = ["HOST_TARGETS", "backend_available", "target_available", "default_host_target", "default_target",
           "cuda_device_count", "available_targets", "select_target", "is_device_location"]
