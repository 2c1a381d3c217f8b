"""``triton.runtime.driver.active`` for Triton code run with ``import kernellab as triton``
(``active`` and ``default`` are made when first read, as Triton's; ``set_active``/``reset_active``).

Tutorials ask the active driver for the device torch should allocate on
(``get_active_torch_device``), the target (``get_current_target().backend == "cuda"``) and the
device's properties (``utils.get_device_properties(index)``: SM count, registers, shared
memory, warp size).  The active driver is the one of the target kernellab launches on by
default (``default_target()``: the forced target, else a GPU's when one is present, else the
host's); its backend's capabilities say whether it is a GPU.  On the host the "device" is the
CPU, so the same tutorial code runs there.
"""

from __future__ import annotations

import functools
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

from .. import backends
from ..backends.driver import DriverBase
from .targets import default_target, target_available


@dataclass(frozen=True)
class GPUTarget:
    """What ``get_current_target()`` returns: ``backend`` (``"cuda"`` or ``"cpu"``), ``arch``
    (the compute capability as an int, 90 on Hopper; the host's machine name on the CPU) and
    ``warp_size``."""

    backend: str
    arch: int | str
    warp_size: int


class _Utils:
    def __init__(self, driver: ActiveDriver):
        self._driver = driver

    def get_device_properties(self, device: Any = 0) -> dict[str, Any]:
        """Triton's property names: ``multiprocessor_count``, ``max_shared_mem``,
        ``max_num_regs``, ``warpSize``, ``sm_clock_rate``, ``mem_clock_rate``, ``mem_bus_width``."""
        if not self._driver.is_cuda():
            from ..backends.cpu.device import device_properties  # the host's facts, on its backend

            return device_properties()
        from ..backends.cuda import driver

        props = driver.properties(_ordinal(device))
        sm_clock, memory_clock = driver.clocks_khz(_ordinal(device))
        return {"multiprocessor_count": props.sm_count, "max_shared_mem": props.max_shared_per_block_optin,
                "max_num_regs": props.max_registers_per_block, "warpSize": props.warp_size,
                "sm_clock_rate": sm_clock, "mem_clock_rate": memory_clock,
                "mem_bus_width": props.memory_bus_width, "name": props.name}


def _ordinal(device: Any) -> int:
    index = getattr(device, "index", device)
    return 0 if index is None else int(index)


class ActiveDriver(DriverBase):
    """The driver of the target kernellab launches on by default (see the module docstring)."""

    def __init__(self) -> None:
        self.utils = _Utils(self)

    def target(self) -> str:
        """The target this driver launches on (``cuda``, ``cpu``, ``interpret``)."""
        return default_target()

    def is_cuda(self) -> bool:
        return backends.capabilities(self.target()).gpu

    def is_active(self) -> bool:
        """Whether this driver's target can launch here (its backend imports; a GPU target also
        needs a device)."""
        return target_available(self.target())

    def get_current_target(self) -> GPUTarget:
        """``backend`` is Triton's spelling: ``cuda`` on a GPU, ``cpu`` for every host target."""
        facts = backends.capabilities(self.target())
        if not self.is_cuda():
            return GPUTarget(facts.triton_backend, platform.machine(), facts.warp_size)
        from ..backends.cuda import driver

        props = driver.properties(self.get_current_device())
        return GPUTarget(facts.triton_backend, props.major * 10 + props.minor, props.warp_size)

    def get_current_device(self) -> int:
        if not self.is_cuda():
            return 0
        from ..backends.cuda import driver

        current = driver.current_device()
        return 0 if current is None else current

    def get_current_stream(self, device: Any = None) -> int:
        """The stream a launch without ``stream=`` goes on (torch's current stream once torch has
        initialised CUDA, a graph capture's, else the legacy default stream 0); 0 on the host,
        where launches are synchronous."""
        if not self.is_cuda():
            return 0
        from ..backends.cuda import driver

        return driver.current_stream(self.get_current_device() if device is None else _ordinal(device))

    def get_active_torch_device(self) -> Any:
        import torch

        return torch.device("cuda", self.get_current_device()) if self.is_cuda() else torch.device("cpu")


class TargetDriver(ActiveDriver):
    """The driver of one of Triton's backends (an entry of ``triton.backends.backends``): it
    launches on the target kernellab launches on when that is one of ``TARGETS``, else on the
    first of them that runs here; ``is_active()`` (asked of the class, as Triton's drivers are)
    says whether one does."""

    TARGETS: ClassVar[tuple[str, ...]] = ()

    def target(self) -> str:
        current = default_target()
        if current.split(":", 1)[0] in self.TARGETS:
            return current
        return next((name for name in self.TARGETS if target_available(name)), self.TARGETS[-1])

    @classmethod
    def is_active(cls) -> bool:  # type: ignore[override]
        return any(target_available(name) or _torch_sees_device(name) for name in cls.TARGETS)


def _torch_sees_device(target: str) -> bool:
    """Whether torch, when imported, sees a CUDA device for ``target`` (as Triton's CUDA driver's
    ``is_active`` asks it).  A process forked from one that initialised CUDA cannot initialise the
    driver itself (torch inductor's compile workers: they only compile, for the target they are
    given, and ask ``triton.backends.backends[...].driver.is_active()`` first); torch answers there."""
    torch = sys.modules.get("torch")
    if torch is None or not backends.capabilities(target).gpu:  # kernellab's GPU targets are CUDA's
        return False
    try:
        return bool(torch.cuda.is_available()) and getattr(torch.version, "hip", None) is None
    except Exception:  # noqa: BLE001 - a torch without CUDA support says so in its own ways
        return False


@dataclass(frozen=True)
class TritonBackend:
    """What Triton's ``triton.backends.backends[name]`` holds: ``compiler`` makes kernellab's
    backend for a target (a ``GPUTarget`` or a target string), ``driver`` is its driver class."""

    compiler: Callable[[Any], backends.Backend]
    driver: type[TargetDriver]


def _backend_for(target: Any) -> backends.Backend:
    from .ast_source import target_name

    return backends.get(target_name(target))


class BackendView:
    """Triton's ``BaseBackend`` as code outside the compiler reads it (``make_backend(target)``):
    ``hash()``, the toolchain's identity (torch.compile puts it in its cache keys), and
    ``parse_options(options)``, the target's options with its defaults, as attributes; anything
    else is kernellab's backend's."""

    def __init__(self, backend: backends.Backend, target: Any):
        self.backend = backend
        self.target = target

    def hash(self) -> str:
        return self.backend.version_key()

    def parse_options(self, options: dict[str, Any]) -> SimpleNamespace:
        return SimpleNamespace(**self.backend.options(**options))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)


def make_backend(target: Any) -> BackendView:
    """Triton's ``triton.compiler.compiler.make_backend``: the backend for ``target`` (a
    ``GPUTarget``, as ``driver.active.get_current_target()`` gives, or a target string)."""
    return BackendView(_backend_for(target), target)


@functools.cache
def triton_backends() -> dict[str, TritonBackend]:
    """Triton's ``triton.backends.backends``: kernellab's backends under Triton's package names
    (``Capabilities.triton_package``: ``cpu`` for the host targets, ``nvidia`` for CUDA), which
    code checks before using Triton on a device (torch's ``has_triton()``)."""
    order = [*backends.HOST_PREFERENCE, *sorted(set(backends.known()) - set(backends.HOST_PREFERENCE))]
    groups: dict[str, list[str]] = {}
    for name in order:
        groups.setdefault(backends.capabilities(name).triton_package, []).append(name)
    return {package: TritonBackend(_backend_for, type(f"{package.capitalize()}Driver", (TargetDriver,),
                                                      {"TARGETS": tuple(names)}))
            for package, names in groups.items()}


# Made when first asked for, as Triton's ``driver.active``/``driver.default`` (nothing is made
# at import): the module's ``__getattr__`` answers ``active`` and ``default``.
_default: ActiveDriver | None = None
_active: DriverBase | None = None


def __getattr__(name: str) -> Any:
    global _default, _active
    if name == "default":
        if _default is None:
            _default = ActiveDriver()
        return _default
    if name == "active":
        if _active is None:
            _active = __getattr__("default")
        return _active
    if name == "driver":  # Triton's DriverConfig object (from triton.runtime.driver import driver): this module
        return sys.modules[__name__]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def set_active(driver: DriverBase) -> None:
    """Make ``driver`` the one ``active`` gives (Triton's ``driver.set_active``)."""
    global _active
    _active = driver


def reset_active() -> None:
    """``active`` is the default driver again."""
    global _active
    _active = __getattr__("default")


# active, default and driver: the module's __getattr__
__all__ = ["active", "default", "driver", "set_active", "reset_active", "ActiveDriver", "GPUTarget",  # noqa: F822
           "DriverBase", "TargetDriver", "TritonBackend", "triton_backends", "BackendView", "make_backend"]
