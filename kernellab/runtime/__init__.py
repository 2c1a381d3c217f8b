"""The runtime: ``@jit`` kernels, specialization and the generated launch path, the compile
pipeline and its caches, argument interop and target selection.

Modules: ``jit`` (JITFunction), ``binder`` (the generated launch function), ``specialize``
(argument keys), ``interop`` (Buffer, arrays from numpy/torch/CuPy/DLPack), ``targets``
(which target a launch runs on), ``compiler`` (pipeline, ``kl.compile``), ``compiled``
(CompiledKernel), ``cache`` (on-disk cache), ``host_math`` (cdiv, next_power_of_2), ``driver``
(Triton's ``triton.runtime.driver.active``), ``autotuning`` (the package of ``Config``,
``autotune``, ``heuristics`` and the timers).

The names below load on first use (``kernellab.lazy``): ``@kl.jit`` and a launch import only
the modules they need, the compile pipeline loads on a cache miss.
"""

from __future__ import annotations

from ..lazy import lazy_attributes, names_from

_LAZY = {
    "driver": (".driver", None),  # triton.runtime.driver.active
    **names_from(".compiled", "CompiledKernel"),
    **names_from(".compiler", "compile"),
    **names_from(".host_math", "cdiv", "next_power_of_2"),
    **names_from(".interop", "Buffer"),
    **names_from(".jit", "JITFunction", "KernelParam"),  # kernellab.jit is the function, runtime.jit the module
    **names_from(".specialize", "MockPointer", "MockTensor"),
    **names_from(".reinterpret", "reinterpret", "TensorWrapper"),
    **names_from(".interface", "KernelInterface", "RemoteCacheBackend", "RedisRemoteCacheBackend"),
    **names_from(".autotuning.autotuner", "Autotuner", "Config", "Heuristics", "autotune", "heuristics"),
    **names_from("kernellab.errors", "InterpreterError", "OutOfResources"),
    "errors": (".errors", None),
    "autotuner": (".autotuning.autotuner", None),  # triton.runtime.autotuner
    "autotuning": (".autotuning", None),
    "cache": (".cache", None),
    "jit": (".jit", None),
    "interface": (".interface", None),
}
__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

__all__ = ["driver", "CompiledKernel", "compile", "cdiv", "next_power_of_2", "Buffer", "JITFunction", "KernelParam",
           "MockPointer", *_LAZY]
