"""Backends: the registry that maps a target string to a :class:`Backend`.

A target is ``name`` or ``name:detail`` (``interpret``, ``cpu``, ``cuda``, ``cuda:sm_90a``).
Each backend package registers a factory under its name when it is imported::

    register("cpu", lambda target: CPUBackend(), CAPABILITIES)

(``CAPABILITIES``: the target's facts, :mod:`.capabilities`) and :func:`get` imports the
package of a known name on first use, so callers never import a
backend themselves.  The factory receives the whole target string (so ``cuda:sm_90a`` can read
its architecture); instances are cached per target string.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any, Protocol

from .capabilities import Capabilities


class Launcher(Protocol):
    def __call__(self, grid: tuple[int, int, int], args: list, stream: Any = None) -> None: ...


class Backend(Protocol):
    """What the runtime needs from a backend (ARCHITECTURE.md section 5)."""

    name: str
    capabilities: Capabilities

    def options(self, **user: Any) -> dict: ...

    def version_key(self) -> str: ...

    def compile(self, module: Any, options: dict, metadata: dict) -> dict[str, str | bytes]: ...

    def load(self, asm: dict, metadata: dict) -> Launcher: ...


BackendFactory = Callable[[str], Backend]

# Backend name -> the module (under kernellab.backends) whose import registers it.
_PACKAGES = {"interpret": "interpreter", "cpu": "cpu", "cuda": "cuda"}
# Host targets in order of preference (the first one available runs host arrays), and the
# target that launches arrays of each device location (interop's "cuda:N" -> "cuda").
HOST_PREFERENCE = ("cpu", "interpret")
DEVICE_TARGETS = {"cuda": "cuda"}

_factories: dict[str, BackendFactory] = {}
_capabilities: dict[str, Capabilities] = {}
_instances: dict[str, Backend] = {}
_lock = threading.Lock()


def register(name: str, factory: BackendFactory, capabilities: Capabilities | None = None) -> None:
    """Make ``factory(target)`` the maker of backends for targets named ``name``, whose facts are
    ``capabilities``."""
    if not name or ":" in name:
        raise ValueError(f"a backend name is a plain word like 'cpu', got {name!r}")
    with _lock:
        _factories[name] = factory
        if capabilities is not None:
            _capabilities[name] = capabilities
        for target in [t for t in _instances if t.split(":", 1)[0] == name]:
            del _instances[target]


def known() -> list[str]:
    """Names of every backend kernellab knows (registered or importable on first use)."""
    return sorted(set(_PACKAGES) | set(_factories))


def available() -> list[str]:
    """Names of the backends registered so far (importing none)."""
    return sorted(_factories)


def get(target: str) -> Backend:
    """The backend for ``target`` (``interpret``, ``cpu``, ``cuda`` or ``cuda:sm_XX``)."""
    if not isinstance(target, str) or not target.strip():
        raise ValueError(f"a target is a string such as 'interpret', 'cpu' or 'cuda:sm_90a', got {target!r}")
    target = target.strip()
    name = target.split(":", 1)[0]
    with _lock:
        found = _instances.get(target)
    if found is not None:
        return found
    factory = _factory(name, target)
    backend = factory(target)
    with _lock:
        return _instances.setdefault(target, backend)


def capabilities(target: str) -> Capabilities:
    """The facts of ``target``'s backend (importing its package, not making the backend)."""
    if not isinstance(target, str) or not target.strip():
        raise ValueError(f"a target is a string such as 'interpret', 'cpu' or 'cuda:sm_90a', got {target!r}")
    name = target.strip().split(":", 1)[0]
    found = _capabilities.get(name)
    if found is None:
        _factory(name, target)
        found = _capabilities.get(name)
    if found is None:
        raise ValueError(f"the {name!r} backend registered no capabilities")
    return found


def device_target(location: str) -> str | None:
    """The target that launches arrays living at interop ``location`` (``"cuda:0"`` -> ``cuda``),
    None for host memory."""
    return DEVICE_TARGETS.get(location.split(":", 1)[0])


def __getattr__(name: str) -> Any:
    """``backends``: Triton's ``triton.backends.backends`` (this package is ``triton.backends``
    under the alias); the runtime's drivers make it, on first use."""
    if name == "backends":
        from ..runtime.driver import triton_backends

        return triton_backends()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _factory(name: str, target: str) -> BackendFactory:
    if name not in _factories and name in _PACKAGES:
        package = f"{__name__}.{_PACKAGES[name]}"
        try:
            importlib.import_module(package)
        except ModuleNotFoundError as error:
            if error.name != package:
                raise
            raise ValueError(f"target {target!r} is not available: {package} is not installed") from None
    try:
        return _factories[name]
    except KeyError:
        raise ValueError(f"unknown target {target!r}; targets are {', '.join(known())} "
                         "(cuda may carry an architecture: 'cuda:sm_90a')") from None


__all__ = ["Backend", "Launcher", "BackendFactory", "Capabilities", "register", "get", "available", "known",
           "capabilities", "device_target", "HOST_PREFERENCE"]
