"""kernellab: a Triton-compatible tile kernel language with its own compiler and runtime.

    import kernellab as kl            # or: import kernellab as triton
    import kernellab.language as tl
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from . import language  # noqa: E402
from .errors import (  # noqa: E402
    CompilationError,
    InterpreterError,
    KernelLabError,
    LaunchError,
    OutOfResources,
)
from .language.core import constexpr_function  # noqa: E402
from .runtime import CompiledKernel, JITFunction, MockPointer, cdiv, compile, next_power_of_2  # noqa: E402
from .runtime.jit import jit  # noqa: E402

# Attributes provided by modules that load on first use: name -> (module, attribute or None
# for the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "testing": ("kernellab.testing", None),
    "runtime": ("kernellab.runtime", None),
    "Config": ("kernellab.runtime.autotuner", "Config"),
    "autotune": ("kernellab.runtime.autotuner", "autotune"),
    "heuristics": ("kernellab.runtime.autotuner", "heuristics"),
    "Autotuner": ("kernellab.runtime.autotuner", "Autotuner"),
    "to_device": ("kernellab.backends.cuda.device_array", "to_device"),
    "empty": ("kernellab.backends.cuda.device_array", "empty"),
    "zeros": ("kernellab.backends.cuda.device_array", "zeros"),
    "DeviceArray": ("kernellab.backends.cuda.device_array", "DeviceArray"),
    "notebook": ("kernellab.notebook", None),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'kernellab' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext kernellab``: the ``%%tile_kernel`` magic (``kernellab.notebook``)."""
    from .notebook import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext kernellab``."""
    from .notebook import unload_ipython_extension as unload

    unload(shell)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "jit", "compile", "CompiledKernel", "JITFunction", "MockPointer", "cdiv", "next_power_of_2", "constexpr_function",
    "language", "CompilationError", "OutOfResources", "KernelLabError", "LaunchError", "InterpreterError",
    "__version__", *_LAZY,
]
