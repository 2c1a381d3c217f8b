"""kernellab: a Triton-compatible tile kernel language with its own compiler and runtime.

    import kernellab as kl            # or: import kernellab as triton
    import kernellab.language as tl
"""

from __future__ import annotations

from typing import Any

__version__ = _VERSION = "0.1.0"  # _VERSION: kernellab's own (kernellab.as_triton shows Triton's)

from . import language  # noqa: E402
from .errors import (  # noqa: E402
    CompilationError,
    InterpreterError,
    KernelLabError,
    LaunchError,
    OutOfResources,
)
from .errors import KernelLabError as TritonError  # noqa: E402  (Triton's base error)
from .language.compat import must_use_result  # noqa: E402
from .language.core import constexpr_function  # noqa: E402
from .lazy import lazy_attributes, names_from  # noqa: E402
from .runtime.cache import warm_fingerprint  # noqa: E402
from .runtime.jit import jit  # noqa: E402

# `import kernellab` makes a process ready to launch a kernel the disk cache holds: @jit's module
# imports the launch path and the cache's hit path, and the compiler fingerprint (the cache key's
# kernellab part, ~0.5 ms: a stat per source file) is computed here rather than in the first
# launch.  What loads on first use instead (kernellab.lazy): the compiler (frontend lowering,
# semantics, IR ops, passes, LLVM: on a cache miss), the autotuner, the testing module, device
# arrays and the notebook tools.
_LAZY = {
    "testing": ("kernellab.testing", None),
    "runtime": ("kernellab.runtime", None),
    "notebook": ("kernellab.notebook", None),
    "knobs": ("kernellab.knobs", None),
    "compiler": ("kernellab.compiler", None),
    "tools": ("kernellab.tools", None),
    "backends": ("kernellab.backends", None),
    **names_from("kernellab.runtime.reinterpret", "reinterpret", "TensorWrapper"),
    **names_from("kernellab.runtime.interface", "KernelInterface", "set_allocator", "AsyncCompileMode", "FutureKernel"),
    **names_from("kernellab.runtime.compiled", "CompiledKernel"),
    **names_from("kernellab.runtime.compiler", "compile"),
    **names_from("kernellab.runtime.jit", "JITFunction"),
    **names_from("kernellab.runtime.specialize", "MockPointer", "MockTensor"),
    **names_from("kernellab.runtime.host_math", "cdiv", "next_power_of_2"),
    **names_from("kernellab.runtime.autotuning.autotuner", "Config", "autotune", "heuristics", "Autotuner"),
    **names_from("kernellab.backends.cuda.device_array", "to_device", "empty", "zeros", "DeviceArray"),
}
__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

warm_fingerprint()


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext kernellab``: the ``%%tile_kernel`` magic (``kernellab.notebook``)."""
    from .notebook import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext kernellab``."""
    from .notebook import unload_ipython_extension as unload

    unload(shell)


__all__ = [
    "jit", "compile", "CompiledKernel", "JITFunction", "MockPointer", "cdiv", "next_power_of_2", "constexpr_function",
    "language", "CompilationError", "OutOfResources", "KernelLabError", "LaunchError", "InterpreterError",
    "TritonError", "must_use_result", "errors",
    "__version__", *_LAZY,
]
