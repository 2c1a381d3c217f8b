"""The runtime: ``@jit`` kernels, specialization and the generated launch path, the compile
pipeline and its caches, argument interop and target selection.

Modules: ``jit`` (JITFunction), ``binder`` (the generated launch function), ``specialize``
(argument keys), ``interop`` (Buffer, arrays from numpy/torch/CuPy/DLPack), ``targets``
(which target a launch runs on), ``compiler`` (pipeline, ``kl.compile``), ``compiled``
(CompiledKernel), ``cache`` (on-disk cache), ``host_math`` (cdiv, next_power_of_2), ``driver``
(Triton's ``triton.runtime.driver.active``).
"""

from . import driver  # triton.runtime.driver.active
from .cache import warm_fingerprint
from .compiled import CompiledKernel
from .compiler import compile
from .host_math import cdiv, next_power_of_2
from .interop import Buffer
from .jit import JITFunction, KernelParam  # `jit` the function stays kernellab.jit: runtime.jit is the module
from .specialize import MockPointer

warm_fingerprint()  # a new process's first launch needs it (0.4-0.6 ms: a stat per source file)

__all__ = ["driver", "CompiledKernel", "compile", "cdiv", "next_power_of_2", "Buffer", "JITFunction", "KernelParam",
           "MockPointer"]
