"""Triton's ``triton.runtime.errors``: the errors a launch, the interpreter, ptxas or the
autotuner raise (kernellab's own classes; ``TritonError`` is kernellab's base error)."""

from __future__ import annotations

from ..errors import AutotunerError, InterpreterError, OutOfResources
from ..errors import KernelLabError as TritonError
from ..lazy import lazy_attributes

# ptxas's error lives with the CUDA backend's ptxas driver (imported when first named).
__getattr__, __dir__ = lazy_attributes(globals(), {"PTXASError": ("kernellab.backends.cuda.ptxas", "PtxasError")})

__all__ = ["TritonError", "InterpreterError", "OutOfResources", "AutotunerError", "PTXASError"]  # noqa: F822 (lazy)
