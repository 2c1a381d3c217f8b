"""kernellab: a Triton-compatible tile kernel language with its own compiler and runtime.

    import kernellab as kl            # or: import kernellab as triton
    import kernellab.language as tl
"""

__version__ = "0.1.0"

from .errors import CompilationError, InterpreterError, LaunchError, OutOfResources  # noqa: F401
